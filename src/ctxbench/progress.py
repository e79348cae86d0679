"""Progress on stderr: a redrawn line on a terminal, plain lines otherwise."""
from __future__ import annotations

import sys
import time


class Progress:
    def __init__(self, total: int, label: str = "", stream=None):
        self.total = max(total, 1)
        self.done = 0
        self.label = label
        self.stream = stream or sys.stderr
        self.tty = self.stream.isatty()
        self.t0 = time.monotonic()
        self._last = ""

    def eta(self) -> float | None:
        if self.done == 0:
            return None
        el = time.monotonic() - self.t0
        return el / self.done * (self.total - self.done)

    def update(self, what: str) -> None:
        el = time.monotonic() - self.t0
        eta = self.eta()
        width = 24
        filled = int(width * self.done / self.total)
        bar = "█" * filled + "░" * (width - filled)
        msg = (f"{self.label}[{bar}] {self.done}/{self.total}  {el:5.1f} s"
               + (f", ~{eta:.0f} s left" if eta is not None else "") + f"  {what}")
        if self.tty:
            self.stream.write("\r\033[K" + msg)
        else:
            self.stream.write(msg + "\n")
        self.stream.flush()

    def step(self, what: str = "") -> None:
        self.done += 1
        self.update(what)

    def close(self) -> None:
        if self.tty:
            self.stream.write("\r\033[K")
            self.stream.flush()
