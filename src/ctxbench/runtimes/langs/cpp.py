"""C++20: coroutines with symmetric transfer, Boost.Context fibers, std::thread.

Coroutines and fibers run on one thread whatever the placement; std::thread's
two threads get the CPUs the front end's affinity gives.
"""

from ctxbench.runtimes.harness import Runtime

RUNTIME = Runtime(
    name="cpp",
    mechanisms=("coroutine", "boost-fiber", "thread-condvar"),
    version_cmd=("g++", "--version"),
    harness=("build/runtimes/cpp/ctxbench-rt-cpp",),
    pinned_env={},
    pinned_args=(),
    missing="cpp: g++ with Boost.Context not found; `make runtimes` installs g++, libboost-context-dev and nlohmann-json3-dev",
)
