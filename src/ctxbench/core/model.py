"""The results file: schema, analysis of raw engine results, atomic write,
and reading with one clear error for anything unreadable."""
from __future__ import annotations

import json
import math
import re
import os
import tempfile

from ctxbench.stats import summary as stats
from ctxbench.core import verification
from ctxbench.core.errors import UserError

SCHEMA = "ctxbench/1"
SUPPORTED_SCHEMAS = (SCHEMA,)


# The warnings analyse() itself writes (re-derived on every analysis).
_OWN_WARNING = re.compile(r"ctxbench: (\d+ of \d+ samples disturbed and dropped|verification failed|"
                          r"\d+ statistical outliers|negative derived cost)")


def analyse(result: dict) -> dict:
    """Add summary, verification and judgement-based warnings to a raw
    engine result (idempotent: re-analysing recomputes from the samples)."""
    r = dict(result)
    rec, keep = verification.judge(r)
    samples = r.get("samples") or []
    groups = r.get("group")
    if not isinstance(groups, list) or len(groups) != len(samples):
        groups = None  # an old or foreign file: samples resampled one by one
    kept = [x for x, k in zip(samples, keep) if k and x is not None]
    kept_groups = [g for x, g, k in zip(samples, groups, keep) if k and x is not None] if groups else None
    r["summary"] = stats.summarize(kept, kept_groups)
    r["summary_all"] = stats.summarize(samples, groups) if rec["dropped"] else r["summary"]
    r["verification"] = rec
    warnings = [w for w in (r.get("warnings") or []) if not _OWN_WARNING.match(str(w))]
    s = r["summary"]
    if rec["checked"] and rec["dropped"]:
        why = ", ".join(f"{k}: {v}" for k, v in sorted(rec["reasons"].items()))
        warnings.append(f"ctxbench: {rec['dropped']} of {len(samples)} samples disturbed and dropped ({why})")
    if rec["checked"] and not rec["ok"]:
        warnings.append("ctxbench: verification failed: the switch counts do not match the method")
    if s.get("outliers"):
        warnings.append(f"ctxbench: {s['outliers']} statistical outliers (> {stats.OUTLIER_MADS:g} MADs from the "
                        "median; kept): an interruption the switch counts cannot see, e.g. the hypervisor")
    if s["n"] and math.isfinite(s["median"]) and s["median"] < 0:
        warnings.append("ctxbench: negative derived cost (printed as measured): the subtracted part varies "
                        "more than the quantity itself")
    r["warnings"] = warnings
    return r


def document(tool: dict, environment: dict, results: list[dict], extra: dict | None = None) -> dict:
    doc = {"schema": SCHEMA, "tool": tool, "environment": environment, "results": results}
    if extra:
        doc.update(extra)
    return doc


def _jsonable(o):
    if isinstance(o, float) and not math.isfinite(o):
        return None
    if isinstance(o, dict):
        return {k: _jsonable(v) for k, v in o.items()}
    if isinstance(o, (list, tuple)):
        return [_jsonable(v) for v in o]
    return o


def check_writable(path: str) -> None:
    """Fail early, before any measurement, if `path` cannot be written."""
    d = os.path.dirname(os.path.abspath(path)) or "."
    if not os.path.isdir(d):
        raise UserError(f"cannot write '{path}': directory '{d}' does not exist")
    if os.path.isdir(path):
        raise UserError(f"cannot write '{path}': it is a directory")
    if not os.access(d, os.W_OK) or (os.path.exists(path) and not os.access(path, os.W_OK)):
        raise UserError(f"cannot write '{path}': permission denied")


def write_text_atomic(path: str, text: str) -> None:
    """Temp file in the same directory, fsync, rename: all or nothing."""
    d = os.path.dirname(os.path.abspath(path)) or "."
    fd, tmp = tempfile.mkstemp(prefix=".ctxbench-", suffix=".tmp", dir=d)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def write_atomic(path: str, doc: dict) -> None:
    """A results document, written with write_text_atomic."""
    write_text_atomic(path, json.dumps(_jsonable(doc), indent=1, allow_nan=False) + "\n")


def load(path: str) -> dict:
    """Read and check a results file; one clear UserError otherwise."""
    try:
        with open(path) as f:
            text = f.read()
    except OSError as e:
        raise UserError(f"cannot read '{path}': {e.strerror}")
    if not text.strip():
        raise UserError(f"'{path}' is empty")
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as e:
        raise UserError(f"'{path}' is not valid JSON (truncated or corrupt?): {e.msg} at line {e.lineno}")
    if not isinstance(doc, dict):
        raise UserError(f"'{path}' is not a ctxbench results file (top level is not an object)")
    schema = doc.get("schema")
    if schema not in SUPPORTED_SCHEMAS:
        raise UserError(f"'{path}' has schema {schema!r}; this ctxbench reads {', '.join(SUPPORTED_SCHEMAS)}")
    res = doc.get("results")
    if not isinstance(res, list) or not all(isinstance(r, dict) and isinstance(r.get("id"), str) for r in res):
        raise UserError(f"'{path}' is malformed: 'results' must be a list of objects with an 'id'")
    for r in res:
        if not isinstance(r.get("samples", []), list):
            raise UserError(f"'{path}' is malformed: samples of '{r['id']}' are not a list")
    if not isinstance(doc.get("environment", {}), dict):
        raise UserError(f"'{path}' is malformed: 'environment' is not an object")
    # Results derived by a command's own analysis (tasks, irq: "parts") keep
    # their summaries; everything else is re-analysed from its samples.
    doc["results"] = [analyse(r) if "samples" in r and "parts" not in r else r for r in res]
    return doc
