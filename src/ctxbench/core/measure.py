"""Running engine benchmarks from the front end: one engine process for a
list of ids, progress while it runs, analysed results at the end."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Protocol

from ctxbench.core import model, results
from ctxbench.core.engine import Engine, EngineOptions
from ctxbench.core.errors import UserError


class Progress(Protocol):
    """What run_ids drives while the engine runs (ui.progress.Progress is
    one): declared here so that core needs nothing from ui."""
    done: int

    def update(self, what: str) -> None: ...

    def step(self, what: str = "") -> None: ...


def run_ids(eng: Engine, ids: list[str], opts: EngineOptions, progress: Progress | None = None,
            on_result=None, interleave: bool = False,
            failures: list[dict] | None = None) -> tuple[dict, list[dict]]:
    """Measure `ids` in one run of the command's engine `eng`; returns
    (header, analysed results).

    With `interleave`, the engine measures group 1 of every id, then group 2,
    and so on, so that each id's samples span the whole run and a machine
    whose speed drifts over seconds (a VM's host) shifts every id alike; the
    results then all arrive at the end, and `progress` (sized
    len(ids) * (groups + 1)) follows the engine's progress lines instead.

    With `failures` (a list), an id the engine could not measure does not
    stop the run: it is appended as {"id", "error"} and the other ids'
    results are returned; an id the engine never answered (it stopped)
    is a failure too. Without it, any failure raises UserError."""
    run = _Run(ids, progress, on_result, interleave, failures)
    if progress:
        progress.update(ids[0] if ids else "")
    eng.stream(ids, opts, run.header.update, run.result, interleave=interleave, on_progress=run.progress,
               on_failure=run.failed if failures is not None else None)
    return run.header, run.out


@dataclass
class _Run:
    """One engine run of run_ids, as its lines arrive: the header, the
    analysed results, progress, and the ids that failed."""
    ids: list[str]
    progress_bar: Progress | None
    on_result: Callable[[dict], None] | None
    interleave: bool
    failures: list[dict] | None
    header: dict = field(default_factory=dict)
    out: list[dict] = field(default_factory=list)

    def result(self, r: dict) -> None:
        try:
            a = model.analyse(r)
        except results.ValidationError as e:  # engine and front end disagree on the format: one line
            raise UserError(f"the engine's result does not fit {results.SCHEMA}: {results.problem(e, r, results.Result)} "
                            "(an engine from another version of ctxbench?)")
        self.out.append(a)
        if self.on_result:
            self.on_result(a)
        if self.progress_bar and not self.interleave:
            nxt = self.ids[len(self.out)] if len(self.out) < len(self.ids) else "done"
            self.progress_bar.step(nxt)

    def progress(self, p: dict) -> None:
        bar = self.progress_bar
        if bar:
            bar.done = int(p.get("done", bar.done))
            g = p.get("group", -1)
            bar.update(f"{p.get('id', '')}" + (f"  group {g + 1}" if g >= 0 else "  preparing"))

    def failed(self, failed: list[dict], lines: list[str], status: int) -> set[str]:
        found, used = failures_by_id(self.ids, self.out, failed, lines, status)
        self.failures.extend(found)  # type: ignore[union-attr]
        return used


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
