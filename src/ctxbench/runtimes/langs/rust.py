"""Rust: tokio (Notify, mpsc), a corosensei stackful coroutine, std::thread.

The harness itself picks tokio's current-thread runtime for --placement pinned
(only code can), and the multi-thread runtime with its default workers else.
"""

from ctxbench.runtimes.harness import Runtime

RUNTIME = Runtime(
    name="rust",
    mechanisms=("tokio-notify", "tokio-mpsc", "corosensei", "thread-channel"),
    version_cmd=("rustc", "--version"),
    harness=("build/runtimes/rust/ctxbench-rt-rust",),
    pinned_env={},
    pinned_args=(),
    missing="rust: cargo not found; install Rust with rustup, then `make runtimes` builds the harness",
)
