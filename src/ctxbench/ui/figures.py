"""What every figure shares: a headless matplotlib, the machine label, and
the ways a figure leaves the program (PNG bytes, a file)."""
from __future__ import annotations

import io
import os

import matplotlib

from ctxbench.core.model import Environment, Result

matplotlib.use("Agg")  # no display, no network: figures are files or bytes
import matplotlib.pyplot as plt  # noqa: E402


def machine_label(env: dict) -> str:
    """Hostname, CPU, kernel and VM-ness, for the corner of a figure."""
    return Environment(env).label


def ci_of(result: dict) -> tuple[float, float, float]:
    """(median, low, high) of the kept samples, nan when unknown."""
    s = Result(result).summary
    return (s.median, *s.ci95)


def png_bytes(fig, dpi: int = 110) -> bytes:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi, bbox_inches="tight")
    plt.close(fig)
    return buf.getvalue()


def size_label(b: int) -> str:
    for unit, k in (("M", 1 << 20), ("K", 1 << 10)):
        if b >= k and b % k == 0:
            return f"{b // k}{unit}"
    return f"{b}"


FORMATS = ("png", "svg")


def save(fig, directory: str, name: str, formats: tuple[str, ...] = FORMATS, dpi: int = 110) -> list[str]:
    """The one place figures become files: <directory>/<name>.<format>."""
    os.makedirs(directory, exist_ok=True)
    paths = []
    for ext in formats:
        p = os.path.join(directory, f"{name}.{ext}")
        fig.savefig(p, dpi=dpi, bbox_inches="tight")
        paths.append(p)
    plt.close(fig)
    return paths
