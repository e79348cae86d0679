"""Progress on stderr: a redrawn line on a terminal, plain lines otherwise.

Updates can come by the thousand (an interleaved run reports every group of
every id), so a terminal is redrawn at most 10 times a second and a log
gets a line at most every 2 seconds, plus the first and the last."""
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
        self._shown_at: float | None = None

    def _due(self) -> bool:
        now = time.monotonic()
        gap = 0.1 if self.tty else 2.0
        if self._shown_at is not None and now - self._shown_at < gap and self.done < self.total:
            return False
        self._shown_at = now
        return True

    def eta(self) -> float | None:
        if self.done == 0:
            return None
        el = time.monotonic() - self.t0
        return el / self.done * (self.total - self.done)

    def update(self, what: str) -> None:
        if not self._due():
            return
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
