"""ctxbench: what a context switch really costs."""


def __getattr__(name: str):
    """`__version__`, read from the installed package's metadata when it is
    first asked for: importing the package runs nothing (the command line
    answers Ctrl-C from its first instruction, ctxbench/cli.py)."""
    if name != "__version__":
        raise AttributeError(name)
    from importlib.metadata import PackageNotFoundError, version
    try:
        v = version("ctxbench")
    except PackageNotFoundError:  # running from a source tree without install
        v = "0.0.0-dev"
    globals()["__version__"] = v
    return v
