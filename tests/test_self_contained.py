"""Everything a reader needs is in the repository (issue 34): no tracked
file points at a document outside it (the first specification and the
source papers lived beside the checkout once; docs/method.md and its
references replace them), and every docs/method.md#section that code,
comments or docs name is a heading of docs/method.md. The docs' and the
README's own links are test_docs_commands.test_relative_links_resolve's."""
import re
import subprocess
from pathlib import Path

import pytest

from test_docs_commands import _anchors

ROOT = Path(__file__).resolve().parents[1]
THIS = Path(__file__).resolve().relative_to(ROOT).as_posix()
METHOD = ROOT / "docs" / "method.md"

# What pointed outside: the spec by its name (the method in the repository is
# docs/method.md, lower case), the folder beside the checkout, its papers by
# their numbers there.
OUTSIDE = [re.compile(p) for p in (r"METHOD\.md", r"\.\./shared", r"/work/shared", r"seeds/",
                                   r"(?i)\bseed 00\d\b")]
# Results files recorded by earlier versions keep their warnings' words as written.
RECORDED = "tests/fixtures/"
# docs/method.md#a-section, and more sections of it named after one: "#b", "and #c"
SECTIONS = re.compile(r"method\.md#([\w-]+)((?:,?\s+(?:and\s+)?#[\w-]+)*)")


def tracked_texts():
    """(path, text) of every tracked text file but this one and the recorded results."""
    try:
        out = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout")
    for rel in out.decode().split("\0"):
        path = ROOT / rel
        if not rel or rel == THIS or rel.startswith(RECORDED) or not path.is_file():
            continue  # a file deleted in the work tree, a submodule
        data = path.read_bytes()
        if b"\0" not in data:  # figures are binary
            yield rel, data.decode("utf-8", errors="replace")


def test_no_tracked_file_refers_to_a_document_outside_the_repository():
    found = [f"{rel}:{no}: {line.strip()[:100]}"
             for rel, text in tracked_texts()
             for no, line in enumerate(text.splitlines(), 1)
             if any(p.search(line) for p in OUTSIDE)]
    assert not found, "references to documents outside the repository (point at docs/method.md):\n" + \
        "\n".join(found)


def test_every_section_of_the_method_named_exists():
    have = _anchors(METHOD)
    named = {}
    for rel, text in tracked_texts():
        for m in SECTIONS.finditer(text):
            for a in [m.group(1), *re.findall(r"#([\w-]+)", m.group(2))]:
                named.setdefault(a, rel)
    assert named, "nothing names a section of docs/method.md: the pattern is wrong"
    missing = [f"{rel}: docs/method.md#{a}" for a, rel in sorted(named.items()) if a not in have]
    assert not missing, "docs/method.md has no such heading:\n" + "\n".join(missing)


def test_the_checks_can_fail():
    """The patterns catch what they are for, and only that."""
    bad = ["see ../shared/METHOD.md", "papers in /work/shared/seeds/", "(seed 001 Figures 4)"]
    good = ["docs/method.md#core-cycles", "a fixed seed (20071)", "[method](method.md#rings)"]
    assert all(any(p.search(s) for p in OUTSIDE) for s in bad)
    assert not any(p.search(s) for p in OUTSIDE for s in good)
    m = SECTIONS.search("(docs/method.md#drift-within-a-run,\n#another-runs-median and #between-runs: x)")
    assert [m.group(1), *re.findall(r"#([\w-]+)", m.group(2))] == \
        ["drift-within-a-run", "another-runs-median", "between-runs"]
