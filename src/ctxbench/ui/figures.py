"""What every figure shares: a headless matplotlib, the machine label, and
the ways a figure leaves the program (PNG bytes, a file)."""
from __future__ import annotations

import io
import math
import os

import matplotlib

from ctxbench.core.model import Environment, Result, Summary

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


# ---- shared by the panel figures of tasks, irq and noise --------------------

MS = 1e6  # ns per ms


def finish_titled(fig):
    fig.tight_layout(rect=(0, 0, 1, 0.88))  # room for the two-line title
    return fig


def err_bar(s: Summary, scale: float):
    m = s.mean / scale
    lo, hi = s.ci95
    if not (math.isfinite(lo) and math.isfinite(hi)):
        return m, 0.0, 0.0
    return m, max(m - lo / scale, 0.0), max(hi / scale - m, 0.0)


def panel_grid(k: int):
    cols = min(3, k)
    rows = (k + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(4.6 * cols, 3.4 * rows), squeeze=False)
    for ax in axes.flat[k:]:
        ax.set_visible(False)
    return fig, list(axes.flat)
