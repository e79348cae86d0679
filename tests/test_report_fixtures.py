"""ctxbench report on committed fixtures (no measurement): HTML and
Markdown structure, escaping of hostile text, one-line errors."""
import re
from html.parser import HTMLParser

from conftest import FIXTURES, run_cli

ALL = ["ring_base.json", "ring_ring.json", "ring_unknown_kind.json"]


class _Collect(HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags, self.imgs, self.scripts, self.h2 = [], [], 0, []
        self._in_h2 = False

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        a = dict(attrs)
        if tag == "img":
            self.imgs.append(a.get("src", ""))
        if tag == "script":
            self.scripts += 1
        if tag == "h2":
            self._in_h2 = True
            self.h2.append("")

    def handle_endtag(self, tag):
        if tag == "h2":
            self._in_h2 = False

    def handle_data(self, data):
        if self._in_h2:
            self.h2[-1] += data


def _report(tmp_path, files, md=True):
    out = tmp_path / "r.html"
    args = ["report", *[str(FIXTURES / f) for f in files], "-o", str(out)]
    if md:
        args += ["--markdown", str(tmp_path / "r.md")]
    p = run_cli(*args)
    assert p.returncode == 0, p.stderr
    return out.read_text(), (tmp_path / "r.md").read_text() if md else ""


def test_html_structure(tmp_path):
    html, _ = _report(tmp_path, ALL, md=False)
    c = _Collect()
    c.feed(html)
    assert html.startswith("<!DOCTYPE html>")
    assert c.scripts == 0
    titles = " | ".join(c.h2)
    for want in ("Environment", "Direct cost", "ring of N parties", "working-set and stride sweep"):
        assert want in titles, titles
    # figures: run and ring, embedded, nothing fetched
    assert len(c.imgs) >= 2 and all(s.startswith("data:image/png;base64,") for s in c.imgs)
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", html)
    assert "Kernel-level switch: direct cost per switch" in html      # the direct-cost table
    assert "warning: running in a virtual machine" in html            # an environment warning
    assert "sweep/thread/pipe" in html                                 # unknown kind: generic table


def test_markdown_structure(tmp_path):
    _, md = _report(tmp_path, ALL)
    assert md.startswith("# ctxbench report")
    assert md.count("\n## ") >= 4
    figs = re.findall(r"!\[[^\]]*\]\(([^)]+)\)", md)
    assert len(figs) >= 2
    for f in figs:
        assert (tmp_path / f).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert [l for l in md.splitlines() if l.startswith("| ")], "no table rows"
    assert "|---|" in md


def test_hostile_text_is_escaped(tmp_path):
    html, md = _report(tmp_path, ["ring_hostile.json"])
    assert "<script>" not in html and "<img src=x" not in html and "<b>bold" not in html
    assert "&lt;script&gt;alert(&quot;host&quot;)&lt;/script&gt;&amp;evil" in html
    assert "kernel/&lt;img src=x onerror=alert(1)&gt;/&quot;q&quot;" in html
    c = _Collect()
    c.feed(html)
    assert c.scripts == 0 and all(s.startswith("data:") for s in c.imgs)
    assert "<script>" not in md and "<img src=x" not in md and "<b>" not in md


def test_bad_files_one_clear_line(tmp_path):
    for name, why in (("ring_corrupt.json", "not valid JSON"), ("ring_truncated.json", "truncated"),
                      ("ring_old_schema.json", "schema"), ("nope.json", "cannot read")):
        out = tmp_path / "r.html"
        p = run_cli("report", str(FIXTURES / "ring_base.json"), str(FIXTURES / name), "-o", str(out))
        assert p.returncode == 2, name
        assert p.stderr.count("\n") == 1 and why in p.stderr and "Traceback" not in p.stderr, p.stderr
        assert not out.exists(), "a bad input must not leave a half-rendered report"
