"""The one kind of error a user sees: a single line and a non-zero exit."""
from __future__ import annotations

import re

# C0 controls, DEL, C1 controls, and the lone surrogates that stand for
# undecodable bytes in a file name (os.fsdecode's surrogateescape).
_UNPRINTABLE = re.compile(r"[\x00-\x1f\x7f-\x9f\udc80-\udcff]")


def _escape(m: re.Match) -> str:
    c = ord(m.group())
    return f"\\x{c - 0xdc00 if c >= 0xdc00 else c:02x}"


def escaped(text: str) -> str:
    """`text` with control characters (ESC starts terminal escapes) and
    undecodable bytes written as \\xNN escapes, never raw."""
    return _UNPRINTABLE.sub(_escape, str(text))


def shown(name: str) -> str:
    """A file name or id as a message shows it: quoted and escaped."""
    return f"'{escaped(name)}'"


class UserError(Exception):
    """A problem with the user's input or environment, printed as one line.
    `why`: the reason alone, without the file name (for a caller that
    names the file itself)."""

    def __init__(self, message: str, code: int = 2, why: str | None = None):
        super().__init__(message)
        self.code = code
        self.why = why or message
