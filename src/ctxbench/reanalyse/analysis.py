"""A document analysed again from its samples: what the reader did on
every load before issue 47 (model.analyse of each result, the drift of
an interleaved run: core/reader.analysed_once), plus the widening between
runs a run applied when it measured, from the spreads its file recorded."""
from __future__ import annotations

import math

import msgspec

from ctxbench.core import reader, results
from ctxbench.rounds import apply_between_runs


def _num(x) -> float:
    return float(x) if isinstance(x, (int, float)) and not isinstance(x, bool) else math.nan


def recorded_spreads(between: dict) -> dict | None:
    """The spreads a run's `between_runs` record kept, as the store gave
    them (core/store/between.Spread by point key); None where the record
    does not hold the between-run part of each (a file from before it was
    kept), so the widening cannot be made again."""
    from ctxbench.core.store.between import Spread  # here: the store's module imports SQLAlchemy
    spreads = between.get("spreads")
    if not isinstance(spreads, dict):
        return None
    out = {}
    for key, s in spreads.items():
        if not isinstance(s, dict) or "ns_between_rel_sd" not in s or not isinstance(s.get("runs"), int):
            return None
        out[key] = Spread(s["runs"], _num(s.get("ns_rel_sd")), _num(s.get("cycles_rel_sd")),
                          _num(s.get("ns_between_rel_sd")), _num(s.get("cycles_between_rel_sd")))
    return out


def _between_runs(rec: results.Document) -> tuple[results.Document, list[str]]:
    """The run's intervals widened again by the part between runs its
    file recorded (run/command.py: rounds.apply_between_runs), or a note
    that it could not be."""
    run = results.member(rec, "run")
    between = results.plain(results.member(run, "between_runs"))
    if not isinstance(between, dict) or not between.get("intervals_widened"):
        return rec, []
    spreads = recorded_spreads(between)
    if spreads is None:
        return rec, ["the widening between runs was not re-applied: the file does not record the part between "
                     "runs of each id (its intervals cover this run only now)"]
    res, widened = apply_between_runs(list(rec.results), spreads)
    run = results.replace(run, between_runs=dict(between, intervals_widened=widened))
    return msgspec.structs.replace(rec, results=res, run=run), [
        f"the widening between runs re-applied from the file's record: {widened} interval(s)"]


def reanalysed(rec: results.Document, name: str) -> tuple[results.Document, list[str]]:
    """`rec` (read from `name`) with every result measured from samples
    analysed again, its drift derived again and its widening between runs
    re-applied; and notes on what could not be done. `rec` is not
    changed; one UserError for what the analysis cannot take."""
    return _between_runs(reader.analysed(rec, name, everything=True))
