"""Issue 32's done-when, as a benchmark of this host (bench/run_to_run.py):
three default `ctxbench run`s five minutes apart, every same-CPU kernel id
and user-level id within 2% in core cycles, and each run's cycles interval
holding the other runs' medians in at least 90% of pairs. About 17
minutes. On a host whose clock holds and whose neighbours move the
switches (docs/cycles.md: this AMD guest on 2026-11-26), the 2% can fail
for what cycles do not take out; the report says which ids."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import run_to_run  # noqa: E402


def test_three_default_runs_hold_in_cycles(tmp_path):
    paths = run_to_run.measure(3, 300, tmp_path, [])
    import json
    res = run_to_run.spreads([json.loads(p.read_text()) for p in paths], [p.name for p in paths])
    text, ok = run_to_run.report(res)
    print("\n" + text)
    assert ok, text
