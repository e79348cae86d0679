"""The report as Markdown: figures as PNG files in a directory beside it,
linked relatively; every string escaped for Markdown and inline HTML."""
from __future__ import annotations

import html
import os
import re

from ctxbench.report.model import Report

_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]#!|~])")


def _e(s) -> str:
    """Escape so that text stays text: HTML entities first, then Markdown."""
    # quote=False: quotes are text in Markdown (no attribute takes this text), and
    # "&#x27;" would reach the page as "&\#x27;" once "#" is escaped below
    t = html.escape(str(s), quote=False).replace("\n", " ")
    return _MD_SPECIAL.sub(r"\\\1", t)


def render(rep: Report, fig_dir: str, fig_link: str) -> tuple[str, list[tuple[str, bytes]]]:
    """(markdown text, [(file path, png bytes)]) -- the caller writes both."""
    out = [f"# {_e(rep.title)}", "", _e(rep.subtitle), ""]
    files: list[tuple[str, bytes]] = []
    for i, s in enumerate(rep.sections):
        out += [f"## {_e(s.title)}", ""]
        for p in s.paragraphs:
            out += [_e(p), ""]
        for level, text in s.items:
            out.append(f"- {'**' + _e(level) + ':** ' if level != 'fact' else ''}{_e(text)}")
        if s.items:
            out.append("")
        for j, f in enumerate(s.figures):
            name = f"figure-{i}-{j}.png"
            files.append((os.path.join(fig_dir, name), f.png))
            out += [f"![{_e(f.title)}]({fig_link}/{name})", "", f"*{_e(f.title)}: {_e(f.caption)}*", ""]
        for t in s.tables:
            if t.caption:
                out += [f"**{_e(t.caption)}**", ""]
            out.append("| " + " | ".join(_e(h) for h in t.headers) + " |")
            out.append("|" + "---|" * len(t.headers))
            out += ["| " + " | ".join(_e(c) for c in row) + " |" for row in t.rows]
            out.append("")
        if s.notes:
            out += ["### Warnings", ""]
            out += [f"- **{_e(level)}:** {_e(text)}" for level, text in s.notes]
            out.append("")
    return "\n".join(out) + "\n", files
