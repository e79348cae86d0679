"""What counts as a number in a record: an int or float that is finite, and
not a bool (JSON's true is no measurement). One definition for every reader
(issue 47 found it written seven times)."""
from __future__ import annotations

import math


def is_finite(x: object) -> bool:
    """Whether `x` is a finite int or float (a bool is not one)."""
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


def finite_or_nan(x: object) -> float:
    """`x` as a float where it is a finite number, else nan (null, a string,
    a bool, an absent member)."""
    return float(x) if is_finite(x) else math.nan


def finite_or_none(x: object) -> float | None:
    """`x` as a float where it is a finite number, else None (a column, or
    JSON's null)."""
    return float(x) if is_finite(x) else None
