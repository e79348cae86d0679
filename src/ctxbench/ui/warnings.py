"""Warnings, one line per code with where it applies (a line per result
for the same warning is a wall nobody reads): for the terminal and for
the report.

Grouped by code (core/model.py: CODES), never by text: where every
warning of a code says the same, that text; where they differ (3 of 30
samples dropped here, 7 of 30 there), the code's meaning with the range of
each number they were made from (`data`); where they carry no numbers
(the engine's text-only warnings), the code's meaning and its texts."""
from __future__ import annotations

import math
from dataclasses import dataclass

from ctxbench.core.model import CODES, coded
from ctxbench.ui.format import fmt_time


MAX_TEXTS = 4  # texts of one code said in full when they carry no numbers


@dataclass(frozen=True)
class Line:
    code: str
    severity: str   # "warning" or "info" (model.SEVERITY)
    text: str       # the text, with the places it concerns

    def __str__(self) -> str:
        return self.text

    @property
    def level(self) -> str:
        """What the line is called before its text: "warning" or "note"
        (the report's levels)."""
        return "warning" if self.severity == "warning" else "note"


def _where(places: list[str]) -> str:
    return ", ".join(places) if len(places) <= 4 else f"{len(places)} results ({places[0]}, ..., {places[-1]})"


def _fmt(key: str, x: float) -> str:
    if key.endswith("_ns"):  # a time: in the unit that keeps it short
        return fmt_time(x)
    return f"{x:.0f}" if float(x).is_integer() else f"{x:.3g}"


def _ranges(ws: list[dict]) -> str:
    """'dropped 3 to 7, samples 30, mde 1.2 to 3.4 µs': each numeric data
    member's range (times without their _ns)."""
    keys = dict.fromkeys(k for w in ws for k, v in w["data"].items()
                         if isinstance(v, (int, float)) and not isinstance(v, bool))
    out = []
    for k in keys:
        vals = [float(w["data"][k]) for w in ws if isinstance(w["data"].get(k), (int, float))
                and not isinstance(w["data"].get(k), bool) and math.isfinite(w["data"][k])]
        if vals:
            lo, hi = min(vals), max(vals)
            out.append(f"{k.removesuffix('_ns')} {_fmt(k, lo)}" + (f" to {_fmt(k, hi)}" if hi != lo else ""))
    return ", ".join(out)


def group(items: list[tuple[str, list]]) -> list[Line]:
    """[(where, [warning, ...]), ...] -> one Line per code, in the order
    the codes first appear."""
    by_code: dict[str, list[tuple[str, dict]]] = {}
    for where, warns in items:
        for w in warns:
            c = coded(w)
            by_code.setdefault(c["code"], []).append((where, c))
    out = []
    for code, hits in by_code.items():
        ws = [c for _, c in hits]
        places = list(dict.fromkeys(where for where, _ in hits))
        texts = list(dict.fromkeys(c["text"] for c in ws))
        if len(texts) == 1:
            text = texts[0]
        elif ranges := _ranges(ws):
            text = f"{CODES[code]} ({len(ws)} warnings; {ranges})"
        else:
            # no numbers to range over (the engine's own warnings are text only: which setting it
            # refused): the code's meaning alone would hide what was refused, so its texts follow
            shown = texts[:MAX_TEXTS] + ([f"{len(texts) - MAX_TEXTS} more"] if len(texts) > MAX_TEXTS else [])
            text = f"{CODES[code]}: " + "; ".join(shown)
        out.append(Line(code, ws[0]["severity"], f"{text} [{_where(places)}]"))
    return out


def print_warnings(items: list[tuple[str, list]]) -> None:
    for line in group(items):
        print(f"  {line.level}: {line.text}")
