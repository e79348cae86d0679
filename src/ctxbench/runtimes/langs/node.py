"""Node: a Promise microtask hand-off, a MessageChannel on one thread, and a
worker_threads Worker taking turns over Atomics.wait/notify (runtimes/node).
Node has one event loop in both placements (V8's helper threads share the
pinned CPU); --expose-gc only lets the memory measure collect first."""
from ctxbench.runtimes.harness import Runtime

RUNTIME = Runtime(
    name="node",
    mechanisms=("promise", "messagechannel", "worker-atomics"),
    version_cmd=("node", "--version"),
    harness=("node", "--expose-gc", "runtimes/node/main.js"),
    interpreter_env="CTXBENCH_NODE",
    jit=True,
    missing="node: not found; `make runtimes` installs it",
)
