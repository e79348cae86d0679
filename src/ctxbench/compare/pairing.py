"""The ids present on both sides, each in the unit its change is judged
in, and their changes (compare/change.py): core cycles where both sides
have them, ns elsewhere (--unit auto: the host's clock moves between
runs), or ns only, or cycles only; and the two lines that say what the
units and the intervals were."""
from __future__ import annotations

from dataclasses import dataclass

from ctxbench.compare import change as changes
from ctxbench.core.errors import UserError
from ctxbench.core.model import Document

UNITS = ("auto", "cycles", "ns")
REFERENCE = "reference/cpu"  # fixed CPU work: the machine's own speed in each run


@dataclass(frozen=True)
class Paired:
    base_docs: list[dict]
    new_docs: list[dict]
    common: list[str]                           # ids on both sides, first-seen order
    in_cycles: set[str]                         # those judged in core cycles
    base: dict[str, changes.SideSamples]        # each common id's samples, in the unit it is judged in
    new: dict[str, changes.SideSamples]
    base_ns: dict[str, changes.SideSamples]     # every id's samples in ns
    new_ns: dict[str, changes.SideSamples]
    units: dict[str, str]                       # the unit each id's values are printed in
    found: dict[str, changes.Change]            # each common id's change, in the unit it is judged in
    found_ns: dict[str, changes.Change]         # the same change in ns, for the ids judged in cycles
    host: object = None                          # the sensors' change between the sides (compare/host.py)


def pair(base: list[dict], new: list[dict], asked: str) -> Paired:
    """Kept samples per id, first-seen order, in ns and (where they apply)
    in core cycles; one line (UserError) where nothing can be compared."""
    sb_ns, sn_ns = changes.side_samples(base), changes.side_samples(new)
    sb_c, sn_c = changes.side_samples(base, "cycles"), changes.side_samples(new, "cycles")
    common = [k for k in sb_ns if k in sn_ns]
    if not common:
        raise UserError("compare: no id is present on both sides")
    in_cycles = {k for k in common if asked != "ns" and k in sb_c and k in sn_c}
    if asked == "cycles":
        common = [k for k in common if k in in_cycles]
        if not common:
            raise UserError("compare: --unit cycles, but no id has core cycles on both sides (files from before "
                            "the core-clock probe, or only cross-CPU ids)")
    sb = {k: (sb_c if k in in_cycles else sb_ns)[k] for k in common}
    sn = {k: (sn_c if k in in_cycles else sn_ns)[k] for k in common}
    units = {r.point_key: r.unit for d in base + new for r in Document(d).results}
    units.update({k: "cycles" for k in in_cycles})
    return Paired(base, new, common, in_cycles, sb, sn, sb_ns, sn_ns, units,
                  found={k: changes.change(sb[k], sn[k]) for k in common},
                  found_ns={k: changes.change(sb_ns[k], sn_ns[k]) for k in in_cycles})


def units_note(found: dict) -> str:
    """What the intervals and spreads were made over."""
    kinds = {u for c in found.values() for u in c.units}
    text = ("±%sd: the sd of each side's unit medians over their mean; change: new/base - 1 of the pooled medians, "
            "its 95% interval resampled over " + " and ".join(sorted(kinds)))
    if kinds - {"runs"}:
        text += ("; a side of one run has only what moved within it in its interval, not what moves between runs "
                 "(measure each side several times)")
    return text


def cycles_note(in_cycles: set, common: list[str], asked: str) -> str:
    if asked == "ns":
        return "unit: ns for every id (--unit ns)"
    if not in_cycles:
        return "unit: ns for every id (no id has core cycles on both sides: files from before the probe, or cross-CPU ids)"
    return (f"unit: core cycles for {len(in_cycles)} of {len(common)} ids (each sample's ns x its group's core clock: "
            "the host's clock, which moves between runs, taken out; 'in ns' is the same change in time); ns for "
            "the rest (cross-CPU wake-ups and results without the probe)")
