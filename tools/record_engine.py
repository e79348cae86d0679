"""Record what the real engine says to every engine command the unmarked
tests make (`make record-engine`): the recordings that `make check`
replays instead of starting an engine (tests/fixtures/engine/recordings,
docs/testing.md).

It runs those tests once, one at a time, with the real engine and
CTXBENCH_TEST_RECORD=1 (tests/conftest.py then records instead of
replaying), so the recordings are exactly the calls the tests make; a
test whose commands plan by elapsed time also gets its clock's readings
recorded (clock-*.json.gz, core/clock.py). With
no test named, the old recordings go first (none is left that no test
uses); with test files or ids, only theirs are recorded again.

    python tools/record_engine.py [pytest args: test files or ids]

It measures: run it on a quiet machine, never beside another measurement."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RECORDINGS = ROOT / "tests" / "fixtures" / "engine" / "recordings"
CHECK = "not machine and not cross and not browser"  # every test `make check` or `make test` runs with no engine (slow ones too)


def main(argv: list[str]) -> int:
    if not (ROOT / "build" / "native" / "ctxbench-engine").exists():
        print("record_engine: the engine is not built: run 'make engine' first", file=sys.stderr)
        return 2
    if not argv:
        shutil.rmtree(RECORDINGS, ignore_errors=True)
    RECORDINGS.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ, CTXBENCH_TEST_RECORD="1")
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:xdist", "-p", "no:cacheprovider", "-m", CHECK,
           *(argv or ["tests"])]
    status = subprocess.run(cmd, cwd=ROOT, env=env).returncode
    files = sorted(RECORDINGS.glob("*.json.gz"))
    size = sum(f.stat().st_size for f in files)
    print(f"record_engine: {len(files)} recordings, {size / 1024:.0f} KiB, in {RECORDINGS.relative_to(ROOT)}")
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
