"""Quantities derived from measured costs that need no resampling: the ratio
of two costs (user vs kernel switch, Boost vs the assembly switch).
Differences of costs, with their intervals and minimum detectable effects,
are stats.power's."""
from __future__ import annotations


def ratio(num: float | None, den: float | None) -> float | None:
    """num / den of two measured costs; None where it means nothing."""
    if num is None or den is None or den <= 0 or num < 0:
        return None  # a ratio of a negative or zero cost means nothing
    return num / den
