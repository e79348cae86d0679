"""The report as one self-contained HTML page: inline CSS, figures as
data: URIs, no script, nothing fetched. Every string is escaped here."""
from __future__ import annotations

import base64
import html

from ctxbench.report.model import Report

CSS = """body{font:14px/1.45 system-ui,sans-serif;max-width:72rem;margin:2rem auto;padding:0 1rem;color:#222}
table{border-collapse:collapse;margin:.5rem 0 1.2rem;font-size:12.5px}
th,td{border:1px solid #ccc;padding:2px 7px;text-align:left}th{background:#f2f2f2}
td.num{text-align:right;font-variant-numeric:tabular-nums}
li.warning{color:#a40}li.note{color:#555}figure{margin:1rem 0}img{max-width:100%}
figcaption,caption{font-size:12px;color:#555;text-align:left}h2{border-bottom:1px solid #ddd}"""


def _e(s) -> str:
    return html.escape(str(s), quote=True)


def render(rep: Report) -> str:
    out = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
           '<meta name="viewport" content="width=device-width,initial-scale=1">',
           f"<title>{_e(rep.title)}</title><style>{CSS}</style></head><body>",
           f"<h1>{_e(rep.title)}</h1>", f'<p class="subtitle">{_e(rep.subtitle)}</p>']
    for i, s in enumerate(rep.sections):
        out.append(f'<section id="s{i}"><h2>{_e(s.title)}</h2>')
        out += [f"<p>{_e(p)}</p>" for p in s.paragraphs]
        if s.items:
            out.append("<ul>")
            out += [f'<li class="{_e(level)}">{_e(level)}: {_e(text)}</li>' if level != "fact"
                    else f'<li class="fact">{_e(text)}</li>' for level, text in s.items]
            out.append("</ul>")
        for f in s.figures:
            uri = "data:image/png;base64," + base64.b64encode(f.png).decode("ascii")
            out.append(f'<figure><img class="figure" alt="{_e(f.title)}" src="{uri}">'
                       f"<figcaption>{_e(f.title)}: {_e(f.caption)}</figcaption></figure>")
        for t in s.tables:
            out.append("<table>" + (f"<caption>{_e(t.caption)}</caption>" if t.caption else ""))
            out.append("<tr>" + "".join(f"<th>{_e(h)}</th>" for h in t.headers) + "</tr>")
            for row in t.rows:
                out.append("<tr>" + "".join(f"<td>{_e(c)}</td>" for c in row) + "</tr>")
            out.append("</table>")
        if s.notes:
            out.append("<h3>Warnings</h3><ul>")
            out += [f'<li class="{_e(level)}">{_e(level)}: {_e(text)}</li>' for level, text in s.notes]
            out.append("</ul>")
        out.append("</section>")
    out.append("</body></html>")
    return "\n".join(out) + "\n"
