"""A sweep continued from its results file (-o naming an existing one):
the points it has, checked before they are trusted, and the time its
earlier runs already spent of the budget."""
from __future__ import annotations

import math
import os

from ctxbench.core import model, reader, results
from ctxbench.core.errors import UserError, shown
from ctxbench.sweep import plan as sweep_plan
from ctxbench.records import RECORDS

# Settings that must match for a resumed sweep to add to an existing file.
SETTINGS = ("iterations", "min_sample_us", "cpu")


def existing(path: str, settings: dict) -> tuple[list[dict], dict | None]:
    """Results already in `path` (to continue) and its document."""
    if not os.path.exists(path):
        return [], None
    doc = reader.load(path, RECORDS)
    sw = model.Document(doc).section("sweep")
    if sw is None:
        raise UserError(f"'{path}' exists and is not a sweep results file: choose another -o")
    _check_resumable(path, sw)
    old = results.member(sw, "settings") or {}
    diff = [k for k in SETTINGS if old.get(k) != settings.get(k)]
    if diff:
        raise UserError(f"'{path}' was measured with different settings ({', '.join(diff)}): "
                        f"resume with the same options, or choose another -o")
    return [r for r in model.Document(doc).records if sweep_plan.key(r)], doc


def _check_resumable(path: str, sw) -> None:
    """What a resumed sweep trusts beyond the members' types (the reader
    checked those against core/results): a negative wall time extended
    the budget (-1e9 made the default sweep unbounded)."""
    wall = results.member(sw, "wall_s", 0.0)
    if wall is not None and not (math.isfinite(wall) and wall >= 0):
        raise UserError(f"'{shown(path)}' is malformed: sweep.wall_s must be the seconds already spent "
                        f"(a number >= 0), not {shown(repr(wall)[:40])}")


def prior_wall(old_doc: dict | None) -> float:
    """Seconds the resumed runs already spent (checked by _check_resumable)."""
    return float(results.member(section(old_doc), "wall_s") or 0.0)


def section(old_doc) -> results.Section | None:
    """The resumed file's sweep section, None for a new sweep."""
    return model.Document(old_doc).section("sweep") if old_doc else None
