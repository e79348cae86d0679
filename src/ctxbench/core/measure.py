"""Running engine benchmarks from the front end: one engine process for a
list of ids, progress while it runs, analysed results at the end."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

from ctxbench.core import engine
from ctxbench.core import model, results
from ctxbench.core.errors import UserError


class Progress(Protocol):
    """What run_ids drives while the engine runs (ui.progress.Progress is
    one): declared here so that core needs nothing from ui."""
    done: int

    def update(self, what: str) -> None: ...

    def step(self, what: str = "") -> None: ...


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
    task_scale: float | None = None  # tasks/ and irq/ ids: size of each task
    extra: list[str] = field(default_factory=list)

    def args(self) -> list[str]:
        a: list[str] = []
        for flag, val in (("--cpu", self.cpu), ("--cross-cpu", self.cross_cpu), ("--groups", self.groups),
                          ("--iterations", self.iterations), ("--min-sample-us", self.min_sample_us),
                          ("--n", self.n), ("--size", self.size), ("--stride", self.stride),
                          ("--warmup-ms", self.warmup_ms), ("--task-scale", self.task_scale)):
            if val is not None:
                a += [flag, str(val)]
        if self.no_idle:
            a.append("--no-idle")
        return a + list(self.extra)


def run_ids(ids: list[str], opts: EngineOptions, progress: Progress | None = None,
            on_result=None, interleave: bool = False,
            failures: list[dict] | None = None) -> tuple[dict, list[dict]]:
    """Measure `ids` in one engine run; returns (header, analysed results).

    With `interleave`, the engine measures group 1 of every id, then group 2,
    and so on, so that each id's samples span the whole run and a machine
    whose speed drifts over seconds (a VM's host) shifts every id alike; the
    results then all arrive at the end, and `progress` (sized
    len(ids) * (groups + 1)) follows the engine's progress lines instead.

    With `failures` (a list), an id the engine could not measure does not
    stop the run: it is appended as {"id", "error"} and the other ids'
    results are returned; an id the engine never answered (it stopped)
    is a failure too. Without it, any failure raises UserError."""
    header: dict = {}
    out: list[dict] = []
    if progress:
        progress.update(ids[0] if ids else "")

    def got_header(h):
        header.update(h)

    def got_result(r):
        try:
            a = model.analyse(r)
        except results.ValidationError as e:  # engine and front end disagree on the format: one line
            raise UserError(f"the engine's result does not fit {results.SCHEMA}: {results.problem(e, r, results.Result)} "
                            "(an engine from another version of ctxbench?)")
        out.append(a)
        if on_result:
            on_result(a)
        if progress and not interleave:
            nxt = ids[len(out)] if len(out) < len(ids) else "done"
            progress.step(nxt)

    def got_progress(p):
        if progress:
            progress.done = int(p.get("done", progress.done))
            g = p.get("group", -1)
            progress.update(f"{p.get('id', '')}" + (f"  group {g + 1}" if g >= 0 else "  preparing"))

    args = ["run", *ids, *opts.args()] + (["--interleave"] if interleave else [])

    def got_failures(failed: list[dict], lines: list[str], status: int) -> set[str]:
        found, used = failures_by_id(ids, out, failed, lines, status)
        failures.extend(found)  # type: ignore[union-attr]
        return used

    engine.stream(args, got_header, got_result, got_progress,
                  on_failure=got_failures if failures is not None else None)
    return header, out


def failures_by_id(ids: list[str], got: list[dict], failed: list[dict], lines: list[str],
                   status: int) -> tuple[list[dict], set[str]]:
    """({"id", "error"} for every id of `ids` without a result, the engine's
    stderr lines used to say why). A failure line names its id, or its place
    among the result lines does; the error is the line's own, else what the
    engine said about that id ("<id>: <why>"); an id not answered at all
    (the engine stopped) takes the engine's last other word."""
    have = {model.Result(r).id for r in got}
    used: set[str] = set()
    why: dict[str, str] = {}
    for f in failed:
        pos = f.get("position")
        fid = f.get("id") or (ids[pos] if isinstance(pos, int) and 0 <= pos < len(ids) else None)
        if fid is None or fid in have:
            continue
        said = [ln for ln in lines if ln.startswith(fid + ": ")]
        used.update(said)
        why.setdefault(fid, f.get("error") or (said[-1].split(": ", 1)[1] if said else
                                                "the engine could not measure it"))
    rest = [ln for ln in lines if ln not in used]
    stopped = rest[-1] if rest else f"the engine stopped (exit status {status}) before it"
    if any(i not in have and i not in why for i in ids) and rest:
        used.add(rest[-1])
    return [{"id": i, "error": why.get(i, stopped)} for i in ids if i not in have], used
