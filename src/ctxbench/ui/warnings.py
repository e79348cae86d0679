"""Warnings, each distinct one once with where it applies (a line per
result for the same warning is a wall nobody reads): for the terminal and
for the report."""
from __future__ import annotations

from ctxbench.core.model import coded


def group(items: list[tuple[str, list]]) -> list[str]:
    """[(where, [warning, ...]), ...] -> one line per distinct warning,
    naming the places it concerns (the first and last if there are many).
    Warnings are {code, text} (model.py); the same text under one code is
    one line."""
    seen: dict[tuple[str, str], list[str]] = {}
    for where, warns in items:
        for w in warns:
            c = coded(w)
            seen.setdefault((c["code"], c["text"]), []).append(where)
    out = []
    for (_, text), where in seen.items():
        at = ", ".join(where) if len(where) <= 4 else f"{len(where)} results ({where[0]}, ..., {where[-1]})"
        out.append(f"{text} [{at}]")
    return out


def print_warnings(items: list[tuple[str, list]]) -> None:
    for line in group(items):
        print(f"  warning: {line}")
