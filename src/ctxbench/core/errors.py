"""The one kind of error a user sees: a single line and a non-zero exit."""
from __future__ import annotations

import re
import stat

# What a name or a text from outside may not carry raw onto a terminal:
# C0 controls, DEL and C1 controls (ESC and CSI start terminal escapes, BEL
# rings, CR and BS overwrite); every lone surrogate (those of
# os.fsdecode's surrogateescape stand for undecodable bytes of a file
# name); and the characters that are invisible yet change what is shown:
# Unicode's format characters (category Cf: the bidi controls U+061C,
# U+200E, U+200F, U+202A-U+202E and U+2066-U+2069, which reorder the text
# after them; zero-width spaces and joiners, the BOM, soft hyphen, the
# tag characters), the line and paragraph separators (Zl, Zp: a line
# break to splitlines) and the Hangul fillers (blank letters). The list
# is Unicode 14's (Python 3.11); tests/test_issue46_host.py checks it
# against the running Python's unicodedata.
_UNPRINTABLE = re.compile(
    "[\x00-\x1f\x7f-\x9f\xad\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u115f\u1160\u180e"
    "\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u206f\u3164\ufeff\uffa0\ufff9-\ufffb"
    "\U000110bd\U000110cd\U00013430-\U0001343f\U0001bca0-\U0001bca3\U0001d173-\U0001d17a"
    "\U000e0001\U000e0020-\U000e007f\ud800-\udfff]")


def _escape(m: re.Match) -> str:
    c = ord(m.group())
    if 0xdc80 <= c <= 0xdcff:  # an undecodable byte: the byte
        return f"\\x{c - 0xdc00:02x}"
    if c <= 0xff:
        return f"\\x{c:02x}"
    return f"\\u{c:04x}" if c <= 0xffff else f"\\U{c:08x}"


def escaped(text: str) -> str:
    """`text` with control characters (ESC starts terminal escapes),
    undecodable bytes (\\xNN) and invisible format characters such as a
    right-to-left override (\\u202e) written as escapes, never raw. What it
    returns is left as it is by escaped() again."""
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


def file_kind(mode: int) -> str:
    """What a file that is not a regular one is, for a line that refuses
    it ("a FIFO", "a directory", ...), from its stat's st_mode."""
    return ("a FIFO" if stat.S_ISFIFO(mode) else "a directory" if stat.S_ISDIR(mode) else
            "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) else
            "a socket" if stat.S_ISSOCK(mode) else "not a regular file")
