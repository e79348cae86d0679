"""Warnings, each distinct one once with where it applies (a line per
result for the same warning is a wall nobody reads): for the terminal and
for the report."""
from __future__ import annotations


def group(items: list[tuple[str, list]]) -> list[str]:
    """[(where, [warning, ...]), ...] -> one line per distinct warning,
    naming the places it concerns (the first and last if there are many)."""
    seen: dict[str, list[str]] = {}
    for where, warns in items:
        for w in warns:
            seen.setdefault(str(w).replace("ctxbench: ", "", 1), []).append(where)
    out = []
    for w, where in seen.items():
        at = ", ".join(where) if len(where) <= 4 else f"{len(where)} results ({where[0]}, ..., {where[-1]})"
        out.append(f"{w} [{at}]")
    return out


def print_warnings(items: list[tuple[str, list]]) -> None:
    for line in group(items):
        print(f"  warning: {line}")
