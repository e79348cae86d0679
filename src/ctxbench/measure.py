"""Running engine benchmarks from the front end: one engine process for a
list of ids, progress while it runs, analysed results at the end."""
from __future__ import annotations

from dataclasses import dataclass, field

from . import engine, results
from .progress import Progress


@dataclass
class EngineOptions:
    """Engine options shared by the measuring commands (None: engine default)."""
    cpu: int | None = None
    cross_cpu: int | None = None
    groups: int | None = None
    iterations: int | None = None
    min_sample_us: int | None = None
    n: int | None = None
    size: int | None = None
    stride: int | None = None
    no_idle: bool = False
    warmup_ms: int | None = None
    extra: list[str] = field(default_factory=list)

    def args(self) -> list[str]:
        a: list[str] = []
        for flag, val in (("--cpu", self.cpu), ("--cross-cpu", self.cross_cpu), ("--groups", self.groups),
                          ("--iterations", self.iterations), ("--min-sample-us", self.min_sample_us),
                          ("--n", self.n), ("--size", self.size), ("--stride", self.stride),
                          ("--warmup-ms", self.warmup_ms)):
            if val is not None:
                a += [flag, str(val)]
        if self.no_idle:
            a.append("--no-idle")
        return a + list(self.extra)


def run_ids(ids: list[str], opts: EngineOptions, progress: Progress | None = None,
            on_result=None) -> tuple[dict, list[dict]]:
    """Measure `ids` in one engine run; returns (header, analysed results)."""
    header: dict = {}
    out: list[dict] = []
    if progress:
        progress.update(ids[0] if ids else "")

    def got_header(h):
        header.update(h)

    def got_result(r):
        a = results.analyse(r)
        out.append(a)
        if on_result:
            on_result(a)
        if progress:
            nxt = ids[len(out)] if len(out) < len(ids) else "done"
            progress.step(nxt)

    engine.stream(["run", *ids, *opts.args()], got_header, got_result)
    return header, out
