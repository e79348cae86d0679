"""The peers' table: one section per kind of quantity (a same-CPU switch,
one thread, a cross-CPU wake-up, throughput), so that an unpinned peer is
never printed beside a same-CPU switch cost; under each section, what
each peer's operation holds and where its number and ctxbench's part.
Every cell of the comparison is the one the row kept (`comparison`,
peers/record.py), never judged again here: the report prints what the
command printed (ctxbench reanalyse judges a row again)."""
from __future__ import annotations

import math
import textwrap

import numpy as np

from ctxbench.core.model import Result
from ctxbench.core.results import member
from ctxbench.peers import analysis, catalogue
from ctxbench.stats.numbers import is_finite
from ctxbench.ui.format import fmt_time

SECTIONS = (catalogue.SAME_CPU, catalogue.ONE_THREAD, catalogue.CROSS_CPU, catalogue.THROUGHPUT)
OTHER = "rows of no known kind (a file this version did not write)"
HEADER = ["peer", "placement", "peer says", "converted (± 95% CI)", "ctxbench", "ratio [95% CI]",
          "from parts", "switches/op", "verdict"]


def is_peer(r) -> bool:
    return Result(r).id.startswith("peers/")


NOT_KEPT_VERDICT = "not kept in the file"


def kept(r) -> dict | None:
    """The comparison the row kept when it was measured (null numbers are
    the nan the command had: the cells say n/a for both), None for a row
    of a file that kept none."""
    c = member(r, "comparison")
    return c if isinstance(c, dict) else None


def _iv(iv: dict | None, fmt) -> str:
    if not iv:
        return "-"
    ci = iv.get("ci95")
    if not ci or not all(map(is_finite, ci)):
        return fmt(iv.get("point"))
    return f"{fmt(iv.get('point'))} [{fmt(ci[0])}, {fmt(ci[1])}]"


def _ratio(x: float | None) -> str:
    return f"{x:.2f}" if is_finite(x) else "n/a"


def _own(r: Result) -> str:
    """The peer's own number as it prints it, over the rounds (median)."""
    per_op = [x for x in r.raw("per_op_ns") if math.isfinite(x)]
    if not per_op:
        return "-"
    return f"{fmt_time(float(np.median(per_op)))}/op"


def _pm(iv: dict | None, unit: str = "") -> str:
    """'2.74 µs/hand-off ±4.9%': the point (mean over the rounds) and its interval's half-width."""
    if not iv:
        return "-"
    ci, point = iv.get("ci95"), iv.get("point")
    half = f" ±{(ci[1] - ci[0]) / 2 / abs(point):.1%}" if ci and is_finite(point) and point and all(map(is_finite, ci)) \
        else ""
    return f"{fmt_time(point)}{unit}{half}"


def cells(r: dict) -> list[str]:
    """The row's cells: the peer's own number, and what its kept comparison says."""
    v = Result(r)
    p = v.params
    c = kept(r)
    if c is None:
        return [str(p.get("title")), str(p.get("placement")), _own(v), *["-"] * 5, NOT_KEPT_VERDICT]
    sw = c.get("switches_per_op")
    exp = c.get("switches_per_op_expected")
    switches = "-" if sw is None else f"{sw:.2f}" + (f" ({exp:g})" if is_finite(exp) else "")
    if c.get("switches_ok") is False:
        switches += " !"
    verdict = c["verdict"]
    if c.get("one_cpu_rounds"):
        verdict += f"; {c['one_cpu_rounds']}/{c['rounds_judged']} rounds on one CPU"
    elif p.get("label") == catalogue.CROSS_CPU and p.get("placement_seen") is False:
        verdict += "; on one CPU or two: not seen"  # its busy time mixes its ping-pong with a part alone
    return [str(p.get("title")), str(p.get("placement")), _own(v), _pm(c.get("converted"), f"/{p.get('per')}"),
            _pm(c.get("match")), _iv(c.get("ratio"), _ratio), _iv(c.get("explained"), _ratio), switches, verdict]


def _grid(head: list[str], rows: list[list[str]]) -> list[str]:
    widths = [max(len(x) for x in col) for col in zip(head, *rows)]
    return ["  " + "  ".join(x.ljust(w) for x, w in zip(row, widths)).rstrip() for row in [head, *rows]]


def section_of(r) -> str:
    """The row's section; a row whose label is none of them (a file from
    elsewhere) is shown under OTHER, never dropped."""
    label = Result(r).params.get("label")
    return label if label in SECTIONS else OTHER


def render(results: list[dict]) -> str:
    peers = [r for r in results if is_peer(r)]
    out: list[str] = []
    for section in (*SECTIONS, OTHER):
        rs = [r for r in peers if section_of(r) == section]
        if not rs:
            continue
        out += ["", section[0].upper() + section[1:]]
        out += _grid(HEADER, [cells(r) for r in rs])
        for r in rs:
            p = Result(r).params
            what = (f"{p.get('title')}, {p.get('placement')}: one op is {p.get('op')}. "
                    f"Beside {p.get('match_name') or 'no ctxbench part'}: {p.get('why')}.")
            out += textwrap.wrap(what, 110, initial_indent="  - ", subsequent_indent="    ")
            for w in Result(r).warnings:
                out += textwrap.wrap(f"warning: {w.text}", 110, initial_indent="    ! ", subsequent_indent="      ")
    out += ["", "  ratio: the peer's converted number over ctxbench's (the median of the rounds' ratios; 95% "
                "bootstrap of whole rounds); from parts:", "  over the sum of ctxbench's parts one op holds. verdict: agrees when the "
                f"whole interval is within {analysis.AGREE:.0%} of 1, not resolved", "  when it crosses that edge or "
                f"there were fewer than {analysis.MIN_ROUNDS} rounds. switches/op: counted in the peer's processes "
                "(getrusage),", "  beside what its contents imply (! where they differ)."]
    return "\n".join(out)
