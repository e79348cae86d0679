"""ctxbench: what a context switch really costs."""
from importlib.metadata import PackageNotFoundError, version as _version

try:
    __version__ = _version("ctxbench")
except PackageNotFoundError:  # running from a source tree without install
    __version__ = "0.0.0-dev"
