"""The docs say what is true (issue 23): every command line they show runs,
and every relative link points to a file that exists.

Command lines are the lines of README.md and docs/*.md inside fenced code
blocks tagged `sh` (```sh) that start with `ctxbench ` or
`ctxbench-engine ` (a line ending in a backslash goes on with the next).
A trailing `# comment` is prose, except these markers:

    # long...      not run here: it takes minutes (say how long in the comment)
    # skip: why    not run here: it needs what a test cannot give (a board's file)
    # exit N       the documented exit status is N (default 0)
    # exit N or M  either: a status that is the measurement's verdict (irq's
                   self-check), which depends on the host that minute

The lines of one file run in order in one temporary directory, which is
their working directory: every output lands there, and a later line
(report, compare) reads what an earlier one wrote. `--quick` is added to a
`ctxbench` command whose options have it; a line with `--full` must be
marked long. A path that would leave the directory (absolute, or with
`..`) is refused. Keep the lines that run short: together they should take
under two minutes on a 2-CPU machine.

Nothing here compares a measured number with anything: a line passes on its
exit status alone. So most docs' lines replay what the real engine answered
them (recorded by `make record-engine`, with the clock of the commands that
plan by time); the lines of the engine's own page, of runtimes and of fleet
run against the real engine and harnesses (ON_ENGINE below)."""
from __future__ import annotations

import glob
import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from conftest import ENGINE, ROOT, ctxbench_cmd

DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
TIMEOUT_S = 180  # per line: the longest documented quick line is a 40 s sweep budget


@dataclass(frozen=True)
class Line:
    doc: Path
    lineno: int
    argv: tuple[str, ...]
    skip: str  # why it is not run ('' = it runs)
    status: tuple[int, ...]  # the exit statuses the docs allow

    @property
    def where(self) -> str:
        return f"{self.doc.relative_to(ROOT)}:{self.lineno}"


def _fences(text: str):
    """(line number, tag, line) of every line inside a fenced code block."""
    tag = None
    for i, line in enumerate(text.splitlines(), 1):
        s = line.strip()
        if s.startswith("```"):
            tag = s[3:].strip() if tag is None else None
            continue
        if tag is not None:
            yield i, tag, line


def command_lines(doc: Path) -> list[Line]:
    out, pending, start = [], "", 0
    for i, tag, line in _fences(doc.read_text()):
        if tag != "sh":
            continue
        s = line.strip()
        if pending:
            s, start = pending + " " + s, start
        elif s.startswith(("ctxbench ", "ctxbench-engine ")):
            start = i
        else:
            continue
        code, _, comment = s.partition(" #")
        if code.rstrip().endswith("\\"):
            pending = code.rstrip()[:-1].rstrip()
            continue
        pending = ""
        comment = comment.strip()
        m = re.match(r"exit (\d+)(?: or (\d+))?\b", comment)
        skip = f"marked long in the docs ({comment})" if comment.startswith("long") else \
               comment if comment.startswith("skip:") else ""
        status = tuple(int(g) for g in m.groups() if g is not None) if m else (0,)
        out.append(Line(doc, start, tuple(shlex.split(code)), skip, status))
    return out


LINES = [line for doc in DOCS for line in command_lines(doc)]


def _has_option(command: str, option: str) -> bool:
    from ctxbench import cli
    sub = next(a for a in cli.build_parser()._actions if a.dest == "command")
    return option in sub.choices[command]._option_string_actions


def _argv(line: Line, cwd: Path) -> list[str]:
    args = list(line.argv[1:])
    for a in args:
        if a.startswith("/") or ".." in Path(a).parts:
            pytest.fail(f"{line.where}: '{a}' would leave the test's directory: use a relative path")
    expanded = []
    for a in args:  # a glob is the shell's: expand it in the working directory
        hits = sorted(os.path.relpath(h, cwd) for h in glob.glob(os.path.join(cwd, a))) \
            if any(c in a for c in "*?[") else []
        expanded += hits or [a]
    if line.argv[0] == "ctxbench-engine":
        return [str(ENGINE), *expanded]
    if "--full" in expanded:
        pytest.fail(f"{line.where}: a --full line runs for minutes: mark it '# long'")
    if expanded and _has_option(expanded[0], "--quick") and "--quick" not in expanded:
        expanded.append("--quick")
    return [*ctxbench_cmd(), *expanded]


class _DocRun:
    """The lines of one doc, run once each, in order, in one directory."""

    def __init__(self, cwd: Path, lines: list[Line]):
        self.cwd, self.lines, self.done = cwd, lines, {}

    def result(self, line: Line) -> subprocess.CompletedProcess:
        for earlier in self.lines[: self.lines.index(line) + 1]:
            if not earlier.skip and earlier not in self.done:
                # this test's engine: the real one, or the recorded one (tests/conftest.py's engine_seam)
                self.done[earlier] = subprocess.run(_argv(earlier, self.cwd), cwd=self.cwd, env=dict(os.environ),
                                                    capture_output=True, text=True, timeout=TIMEOUT_S)
        return self.done[line]


_RUNS: dict[Path, _DocRun] = {}
# Docs whose lines need the real engine or harnesses: the engine's own
# command line, the runtimes' toolchains, the peers' programs, the engines a fleet copies. The
# other docs' lines replay what the real engine answered them, with the
# clock of the commands that plan by elapsed time (tests/conftest.py;
# recorded by `make record-engine`): what they check is the front end's
# (the line runs, its files, its exit status), as the flow tests'.
ON_ENGINE = {x.doc.name for x in LINES if x.argv[0] == "ctxbench-engine"} | {"fleet.md", "runtimes.md", "peers.md"}
# runtimes waits for quiet CPUs and launches again beside other load: its
# lines run alone, with the measuring tests (the others beside other tests)
ALONE = ("runtimes.md",)


def _marks(line: Line) -> tuple:
    if line.doc.name not in ON_ENGINE:
        return (pytest.mark.slow,)  # replayed: seconds, beside make check's
    return (pytest.mark.machine,) if line.doc.name in ALONE else (pytest.mark.machine, pytest.mark.flow)


@pytest.mark.parametrize("line", [pytest.param(x, marks=_marks(x)) for x in LINES],
                         ids=[f"{x.where} {' '.join(x.argv[:2])}" for x in LINES])
def test_documented_command_runs(line, engine_bin, tmp_path_factory):
    if line.skip:
        pytest.skip(f"{line.where}: {line.skip}")
    if line.doc not in _RUNS:
        _RUNS[line.doc] = _DocRun(tmp_path_factory.mktemp(line.doc.stem),
                                  [x for x in LINES if x.doc == line.doc])
    p = _RUNS[line.doc].result(line)
    assert p.returncode in line.status, (f"{line.where}: {shlex.join(line.argv)} exited {p.returncode}, "
                                         f"the docs say {' or '.join(map(str, line.status))}\n{p.stderr[-2000:]}")


def test_docs_show_commands():
    """The extraction finds the commands (a change of fence tag would
    otherwise make the test above pass on nothing): every command of the
    CLI has a doc with at least one line that runs."""
    from ctxbench import cli
    runs = {x.argv[1] for x in LINES if x.argv[0] == "ctxbench" and not x.skip and len(x.argv) > 1}
    assert set(cli.COMMANDS) <= runs, set(cli.COMMANDS) - runs
    for cmd in cli.COMMANDS:
        assert (ROOT / "docs" / f"{cmd}.md").is_file(), cmd


def test_every_irq_line_allows_its_verdict():
    """irq exits 1 when its known-zero control or a self-check refuses the
    run's noise (a verdict on the host that minute, irq.md), so every irq
    line that runs must allow it: a line that does not fails on a noisy host."""
    bare = [x.where for x in LINES if x.argv[:2] == ("ctxbench", "irq") and not x.skip and 1 not in x.status]
    assert not bare, f"irq lines without 'exit 0 or 1': {bare}"


def _slug(heading: str) -> str:
    """GitHub's anchor for a heading."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower().replace("`", ""))
    return text.replace(" ", "-")


def _anchors(doc: Path) -> set[str]:
    seen: dict[str, int] = {}
    in_code = {i for i, _, _ in _fences(doc.read_text())}
    out = set()
    for i, line in enumerate(doc.read_text().splitlines(), 1):
        m = re.match(r"#{1,6} (.*)", line)
        if m and i not in in_code:
            s = _slug(m.group(1))
            out.add(s if s not in seen else f"{s}-{seen[s]}")
            seen[s] = seen.get(s, 0) + 1
    return out


def _links(doc: Path):
    in_code = {i for i, _, _ in _fences(doc.read_text())}
    for i, line in enumerate(doc.read_text().splitlines(), 1):
        if i in in_code:
            continue
        for target in re.findall(r"\]\(([^)\s]+)\)", re.sub(r"`[^`]*`", "", line)):
            if not re.match(r"[a-z]+:", target):  # http:, https:, mailto:
                yield i, target


def bad_links(doc: Path, root: Path = ROOT) -> list[str]:
    bad = []
    for i, target in _links(doc):
        path, _, anchor = target.partition("#")
        dest = (doc.parent / path).resolve() if path else doc
        if not dest.exists() or root.resolve() not in dest.parents:
            bad.append(f"{doc.name}:{i}: {target} (no such file in the repository)")
        elif anchor and dest.suffix == ".md" and anchor not in _anchors(dest):
            bad.append(f"{doc.name}:{i}: {target} (no heading '{anchor}' in {dest.name})")
    return bad


@pytest.mark.parametrize("doc", DOCS, ids=[str(d.relative_to(ROOT)) for d in DOCS])
def test_relative_links_resolve(doc):
    bad = bad_links(doc)
    assert not bad, "\n".join(bad)


def test_checks_can_fail(tmp_path):
    """The link check and the line extraction on a doc made to break them."""
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "b.md").write_text("# B\n\n## How to read it\n")
    doc = tmp_path / "docs" / "a.md"
    doc.write_text("[ok](b.md#how-to-read-it) [gone](c.md) [no anchor](b.md#nowhere) [web](https://x.org/y)\n"
                   "`[code](nope.md)`\n\n```sh\nctxbench run -o a.json   # prose, not a marker\n"
                   "ctxbench sweep --budget 40 \\\n    -o s.json   # long: 5 minutes\n"
                   "ctxbench report x.json   # skip: needs x\nctxbench irq --rounds 1   # exit 1\n"
                   "ctxbench irq --rounds 2   # exit 0 or 1: the verdict\n"
                   "make run\n```\n\n```text\nctxbench run\n```\n")
    assert [b.split(": ", 1)[1] for b in bad_links(doc, tmp_path)] == [
        "c.md (no such file in the repository)", "b.md#nowhere (no heading 'nowhere' in b.md)"]
    got = [(x.argv, bool(x.skip), x.status) for x in command_lines(doc)]
    assert got == [(("ctxbench", "run", "-o", "a.json"), False, (0,)),
                   (("ctxbench", "sweep", "--budget", "40", "-o", "s.json"), True, (0,)),
                   (("ctxbench", "report", "x.json"), True, (0,)),
                   (("ctxbench", "irq", "--rounds", "1"), False, (1,)),
                   (("ctxbench", "irq", "--rounds", "2"), False, (0, 1))]


if __name__ == "__main__":  # list what would run and what is skipped
    for x in LINES:
        print(f"{x.where:28} {'SKIP ' + x.skip if x.skip else 'run'}: {shlex.join(x.argv)}", file=sys.stdout)
