"""Every shape a `ctxbench/1` document ever had, read into a `ctxbench/2`
record: the one place that knows the history of the format.

`ctxbench/1` named every file from the first commit to issue 34, while
its members changed. What differs from ctxbench/2, and what is done:

- warnings: plain text (before warnings had codes; the engine still
  writes text), then `{code, text}` (before severities), now `{code,
  severity, text, data}`. Text of a message ctxbench itself wrote gets
  that message's code (_LEGACY); any other text is the engine's. An
  unknown code is the engine's.
- sweep points without `sample_n` (before n was calibrated per round):
  every round's n is the point's params.n.
- a sweep section without `plan.strides_by_size` (before issue 22): its
  grid is `sizes` x `strides`, and it says it was not fitted.
- `group` written as whole floats: integers.
- a top-level `kind` (ring and anatomy files, by mistake: a keyword the
  command meant for nothing): dropped, no reader used it.
- an engine's own document (`ctxbench-engine run -o`, fleet's hosts) is
  ctxbench/1 with raw results: upgraded the same way, analysed by the reader.

Members a shape lacks stay absent, and readers say so: results without
`clock_probe` (before issue 32: no core cycles), effects without
`method` (before issue 23), verifications without `verdict`, irq points
without `I_pct` or with it as a number, runtimes results without
`launches`. Members only older files have (tasks' and irq's `repeat`)
stay in their section's `extra`.

upgrade() of a ctxbench/2 document validates it and changes nothing, so
upgrade is idempotent."""
from __future__ import annotations

import copy
import re
from types import MappingProxyType
from typing import Any

from ctxbench.core.results import codec
from ctxbench.core.results.document import SCHEMA, Document

V1 = "ctxbench/1"

# the codes and severities (core/model.CODES, SEVERITY) an old warning gets
_SEVERITY = MappingProxyType({"dropped": "info", "verification": "warning", "outliers": "info", "negative": "warning",
                              "disturbed_runs": "info", "negative_indirect": "warning", "ci_includes_zero": "info",
                              "overruns": "info", "engine": "warning"})
# plain-text warnings ctxbench wrote before warnings had codes
_LEGACY = (
    (re.compile(r"(ctxbench: )?\d+ of \d+ samples disturbed and dropped"), "dropped"),
    (re.compile(r"(ctxbench: )?verification failed"), "verification"),
    (re.compile(r"(ctxbench: )?\d+ statistical outliers"), "outliers"),
    (re.compile(r"(ctxbench: )?negative derived cost"), "negative"),
    (re.compile(r"\d+ of \d+ runs disturbed"), "disturbed_runs"),
    (re.compile(r"(ctxbench: )?negative indirect cost"), "negative_indirect"),
    (re.compile(r"I's 95% interval includes 0"), "ci_includes_zero"),
    (re.compile(r"timer expirations merged"), "overruns"),
)


def warning(w: Any, codes: dict[str, str]) -> Any:
    """One warning of any ctxbench/1 form in the stored form; `codes`:
    code -> severity (core/model.SEVERITY). Anything else is left for
    the model to refuse, with its path."""
    if isinstance(w, str):
        for pattern, code in _LEGACY:
            if pattern.match(w):
                return {"code": code, "severity": _SEVERITY[code], "text": w.replace("ctxbench: ", "", 1), "data": {}}
        return {"code": "engine", "severity": codes["engine"], "text": w, "data": {}}
    if isinstance(w, dict) and isinstance(w.get("text"), str):
        code = w.get("code") if w.get("code") in codes else "engine"
        data = w.get("data") if isinstance(w.get("data"), dict) else {}
        return {"code": code, "severity": codes[code], "text": w["text"], "data": data}
    return w


def _whole(x):
    return int(x) if isinstance(x, float) and x.is_integer() else x


def _result(r: Any, in_sweep: bool, codes: dict[str, str]) -> Any:
    if not isinstance(r, dict):
        return r
    if isinstance(r.get("warnings"), list):
        r["warnings"] = [warning(w, codes) for w in r["warnings"]]
    if isinstance(r.get("group"), list):
        r["group"] = [_whole(g) for g in r["group"]]
    if in_sweep and isinstance(r.get("round_cost_s"), list) and "sample_n" not in r:
        n = (r.get("params") or {}).get("n") if isinstance(r.get("params"), dict) else None
        r["sample_n"] = [n] * len(r.get("samples") or [])
    return r


def _sweep(sw: Any) -> Any:
    if not isinstance(sw, dict) or isinstance(sw.get("plan"), dict):
        return sw
    plan = {"fitted": "before issue 22: not fitted"}
    sizes, strides = sw.get("sizes"), sw.get("strides")
    if isinstance(sizes, list) and isinstance(strides, list) and sizes and strides:
        try:
            plan["strides_by_size"] = {str(int(s)): sorted(int(d) for d in strides) for s in sizes}
        except (TypeError, ValueError):
            pass  # left out: the sweep's resume says its plan is malformed
    return dict(sw, plan=plan)


def upgrade(doc: Any, codes: dict[str, str], cls: type = Document) -> Document:
    """A ctxbench/1 or ctxbench/2 document (builtins, as read) as a
    ctxbench/2 record of `cls` (the registry's Document: registry.py);
    msgspec.ValidationError (with the JSON path) for one that is neither.
    `doc` is not changed."""
    if isinstance(doc, dict) and doc.get("schema") == V1:
        doc = copy.copy(doc)
        doc["schema"] = SCHEMA
        doc.pop("kind", None)
        in_sweep = isinstance(doc.get("sweep"), dict)
        if isinstance(doc.get("results"), list):
            doc["results"] = [_result(copy.copy(r), in_sweep, codes) for r in doc["results"]]
        if in_sweep:
            doc["sweep"] = _sweep(doc["sweep"])
    return codec.record(doc, cls)
