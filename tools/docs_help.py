"""The option blocks of docs/<command>.md are the commands' own --help,
and docs/presets.md's table is ui/presets.py's.

Each "From `ctxbench X --help`:" in docs/*.md is followed by a text block:
the usage lines, a blank line and the options (without -h and without the
description, which the page says in its own words). Between the PRESETS
markers is every command's presets table (`ctxbench run`'s counts read
from the engine, `ctxbench-engine presets`). `python tools/docs_help.py`
rewrites every block from the code; tests/test_docs_help.py fails when
one is out of date, so the docs cannot keep an option, a default, a preset
or a file name the code no longer has."""
from __future__ import annotations

import contextlib
import io
import os
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BLOCK = re.compile(r"(From `ctxbench (\w+) --help`:\n\n```text\n)(.*?)(```)", re.S)
PRESETS = re.compile(r"(<!-- presets: written by tools/docs_help.py -->\n)(.*?)(<!-- end of presets -->)", re.S)


def _help_text(command: str) -> str:
    """What `ctxbench <command> --help` prints at 80 columns, asked in this
    process (a process per command cost the docs test 5 s)."""
    sys.path.insert(0, str(ROOT / "src"))
    from ctxbench import cli
    out, columns = io.StringIO(), os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = "80"  # argparse wraps at shutil.get_terminal_size()
    try:
        with contextlib.redirect_stdout(out):
            cli.main([command, "--help"])
    except SystemExit as e:
        if e.code not in (0, None):
            raise
    finally:
        if columns is None:
            del os.environ["COLUMNS"]
        else:
            os.environ["COLUMNS"] = columns
    return out.getvalue()


def help_block(command: str) -> str:
    """`ctxbench <command> --help` at 80 columns, as the docs show it."""
    text = _help_text(command)
    usage, rest = text.split("\n\n", 1)
    start = min(i for i in (rest.find("positional arguments:\n"), rest.find("options:\n")) if i >= 0)
    opts = rest[start:].replace("options:\n", "", 1)
    opts = re.sub(r"^  -h, --help +show this help message and exit\n", "", opts, flags=re.M)
    return usage + "\n\n" + opts.rstrip("\n") + "\n"


def presets_table() -> str:
    """ui/presets.py's table, with the engine's counts for run."""
    sys.path.insert(0, str(ROOT / "src"))
    from ctxbench.core import engine
    from ctxbench.ui import presets
    return "\n" + presets.table_markdown(engine.Engine().presets()) + "\n"


def stale(path: Path) -> tuple[str, list[str]]:
    """(the page with its blocks from the code, commands whose block differed)."""
    text = path.read_text()
    changed = []

    def fresh(m: re.Match) -> str:
        new = help_block(m.group(2))
        if new != m.group(3):
            changed.append(m.group(2))
        return m.group(1) + new + m.group(4)
    def fresh_presets(m: re.Match) -> str:
        new = presets_table()
        if new != m.group(2):
            changed.append("presets")
        return m.group(1) + new + m.group(3)
    return PRESETS.sub(fresh_presets, BLOCK.sub(fresh, text)), changed


def main() -> int:
    for path in sorted((ROOT / "docs").glob("*.md")):
        new, changed = stale(path)
        if changed:
            path.write_text(new)
            print(f"{path.relative_to(ROOT)}: {', '.join(changed)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
