"""Python: greenlet switch, asyncio's Future hand-off on the default loop and
on uvloop, threading with a Condition (runtimes/python). Run by the
project's .venv python, or the one CTXBENCH_PYTHON names (3.11 and 3.13
differ); one event loop and one GIL in both placements, so only the CPUs
differ (the default placement lets the threading pair wake across CPUs)."""
from ctxbench.runtimes.harness import Runtime

RUNTIME = Runtime(
    name="python",
    mechanisms=("greenlet", "asyncio", "uvloop", "threading"),
    version_cmd=None,  # the interpreter says its version (and greenlet's, uvloop's) in the header
    harness=(".venv/bin/python", "runtimes/python/main.py"),
    interpreter_env="CTXBENCH_PYTHON",
    missing="python: the project's .venv is not there; `make runtimes` creates it",
)
