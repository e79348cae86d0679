"""Go: an unbuffered channel, runtime.Gosched, iter.Pull's coroutine switch,
and two OS-thread-locked goroutines over a channel (runtimes/go). Pinned is
GOMAXPROCS=1 on one CPU; default is Go's own GOMAXPROCS (the CPUs it may
use: two)."""
from ctxbench.runtimes.harness import Runtime

RUNTIME = Runtime(
    name="go",
    mechanisms=("channel", "gosched", "iter-pull", "lockosthread"),
    version_cmd=("go", "version"),
    harness=("build/runtimes/go/ctxbench-rt-go",),
    pinned_env={"GOMAXPROCS": "1"},
    missing="go: not found; `make runtimes` installs it",
)
