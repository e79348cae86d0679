"""Warnings on the terminal: each distinct one once, with where it applies
(a point-by-point list of the same line is a wall nobody reads)."""
from __future__ import annotations


def print_warnings(items: list[tuple[str, list[str]]]) -> None:
    """Each distinct warning once, with the points it concerns."""
    seen: dict[str, list[str]] = {}
    for where, warns in items:
        for w in warns:
            seen.setdefault(str(w).replace("ctxbench: ", "", 1), []).append(where)
    for w, where in seen.items():
        at = ", ".join(where) if len(where) <= 4 else f"{len(where)} points ({where[0]}, ..., {where[-1]})"
        print(f"  warning: {w} [{at}]")
