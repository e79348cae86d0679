"""A document analysed again from its samples: what the reader does to
a ctxbench/1 file as it upgrades it (model.analyse of each result, the
drift of an interleaved run, what the command derives from them:
core/reader.analysed), plus the widening between runs a run applied when
it measured, from the spreads its file recorded."""
from __future__ import annotations

import msgspec

from ctxbench.core import reader, results
from ctxbench.core.errors import UserError, escaped
from ctxbench.records import RECORDS
from ctxbench.rounds import apply_between_runs
from ctxbench.stats import drift
from ctxbench.stats.numbers import finite_or_nan

MAX_REL_SD = drift.MAX_REL_SD  # a relative sd between runs beyond it is no host's: a damaged record
SDS = ("ns_rel_sd", "cycles_rel_sd", "ns_between_rel_sd", "cycles_between_rel_sd")


def _spread(key: str, s: dict, name: str):
    """One point's recorded spread, checked: runs a count of at least two
    runs, each relative sd absent (nan) or in [0, MAX_REL_SD]."""
    from ctxbench.core.store.between import Spread  # here: the store's module imports SQLAlchemy
    runs = s.get("runs")
    sds = [finite_or_nan(s.get(k)) for k in SDS]
    if isinstance(runs, bool) or not isinstance(runs, int) or runs < 2 or \
            any(not (0 <= x <= MAX_REL_SD) for x in sds if x == x) or \
            any(s.get(k) is not None and not (sd == sd) for k, sd in zip(SDS, sds)):
        raise UserError(f"{name}: run.between_runs.spreads of {escaped(key)} is not a spread between runs "
                        f"(runs: a count of 2 or more; each relative sd a number in [0, {MAX_REL_SD:g}] or null)")
    return Spread(runs, *sds)


def recorded_spreads(between: dict, name: str = "the file") -> dict | None:
    """The spreads a run's `between_runs` record kept, as the store gave
    them (core/store/between.Spread by point key); None where the record
    does not hold the between-run part of each (a file from before it was
    kept), so the widening cannot be made again."""
    spreads = between.get("spreads")
    if not isinstance(spreads, dict):
        return None
    if not all(isinstance(s, dict) and "ns_between_rel_sd" in s for s in spreads.values()):
        return None
    return {key: _spread(key, s, name) for key, s in spreads.items()}


def _between_runs(rec: results.Document, name: str) -> tuple[results.Document, list[str]]:
    """The run's intervals widened again by the part between runs its
    file recorded (run/command.py: rounds.apply_between_runs), or a note
    that it could not be."""
    run = results.member(rec, "run")
    between = results.plain(results.member(run, "between_runs"))
    if not isinstance(between, dict) or not between.get("intervals_widened"):
        return rec, []
    spreads = recorded_spreads(between, name)
    if spreads is None:
        run = results.replace(run, between_runs=dict(between, intervals_widened=0))
        return msgspec.structs.replace(rec, run=run), ["the widening between runs was not re-applied: the file does not record the part between "
                     "runs of each id (its intervals cover this run only now)"]
    res, widened = apply_between_runs(list(rec.results), spreads)
    run = results.replace(run, between_runs=dict(between, intervals_widened=widened))
    return msgspec.structs.replace(rec, results=res, run=run), [
        f"the widening between runs re-applied from the file's record: {widened} interval(s)"]


def reanalysed(rec: results.Document, name: str) -> tuple[results.Document, list[str], list[str]]:
    """`rec` (read from `name`) with every result measured from samples
    analysed again, its drift derived again, its widening between runs
    re-applied and what its command derives from them made again; the
    notes on the widening, and the command's on what its own analysis
    changed or could not do (a section's effects: no result shows them).
    `rec` is not changed; one UserError for what the analysis cannot take."""
    rec, derived = reader.analysed(rec, name, RECORDS, everything=True)
    rec, widened = _between_runs(rec, name)
    return rec, widened, derived
