"""The option blocks in docs/<command>.md are the commands' --help today
(tools/docs_help.py writes them; run it after changing an option)."""
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
import docs_help  # noqa: E402


def test_every_documented_help_block_is_current():
    pages = sorted((ROOT / "docs").glob("*.md"))
    found = [m.group(2) for p in pages for m in docs_help.BLOCK.finditer(p.read_text())]
    assert len(found) >= 10, found  # every command's page has its block
    stale = {p.name: c for p in pages for c in [docs_help.stale(p)[1]] if c}
    assert not stale, f"out of date (run: python tools/docs_help.py): {stale}"


def test_a_stale_block_is_found(tmp_path):
    page = tmp_path / "x.md"
    page.write_text("From `ctxbench noise --help`:\n\n```text\nusage: ctxbench noise [--old]\n```\n")
    new, changed = docs_help.stale(page)
    assert changed == ["noise"] and "--seconds S" in new
