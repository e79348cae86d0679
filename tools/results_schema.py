"""docs/results-file.schema.json is the JSON Schema of a ctxbench/2 results
file, generated from the results model (core/results/registry.Records.json_schema
of ctxbench.records.RECORDS).
`python tools/results_schema.py` rewrites it after a record changes;
tests/test_results_model.py fails while the published copy is out of date."""
from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "docs" / "results-file.schema.json"


def text() -> str:
    sys.path.insert(0, str(ROOT / "src"))
    from ctxbench.records import RECORDS
    return json.dumps(RECORDS.json_schema(), indent=1, sort_keys=True) + "\n"


if __name__ == "__main__":
    OUT.write_text(text())
    print(f"wrote {OUT.relative_to(ROOT)}")
