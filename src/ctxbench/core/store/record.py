"""A results document as store rows: one run (its environment's indexed
facts and the whole document, compressed) and one row per result (its id,
point, median, interval, MDE and verdict). The document's digest makes
adding the same file twice add it once."""
from __future__ import annotations

import datetime
import hashlib
import json
import math
import zlib

import msgspec
from sqlalchemy import String, Text, insert, select
from sqlalchemy.exc import IntegrityError

from ctxbench.core import host_state
from ctxbench.core.model import Document, Result
from ctxbench.core.results import Document as DocumentRecord, Records, ValidationError, member, plain
from ctxbench.core.writer import jsonable
from ctxbench.core.store.between import doc_ghz
from ctxbench.core.store.tables import PARAM_KINDS, results, runs
from ctxbench.stats.numbers import finite_or_none


# A result's members that the engine (or a runtime's harness) measured;
# every other member is derived by the front end's analysis, which a newer
# ctxbench may do differently.
MEASURED = ("id", "params", "samples", "group", "raw")


def digest(doc) -> str:
    """What makes a run the same run (adding twice is once): a digest of
    what the document measured, not of what was derived from it. A file
    added by one ctxbench and again by a newer one that analyses it
    differently (other summaries, warnings, format) is one run. It covers
    the tool and environment, the command, when it started and what it was
    asked (preset, engine arguments), and each measured result's MEASURED
    members; results derived from others (tasks' and irq's points,
    `parts`) follow from those. Of a record or its builtins."""
    v = Document(doc)
    section = v.section()
    measured = [{k: r[k] for k in MEASURED if k in r} for r in map(plain, v.records)
                if isinstance(r, dict) and "parts" not in r]
    payload = {"tool": v.tool, "environment": v.environment.as_dict(), "command": v.command,
               "asked": {k: plain(member(section, k)) for k in ("started", "preset", "engine_args")},
               "results": measured}
    # nan as the file has it (null), whether the run was recorded before or after it was written
    return hashlib.sha256(json.dumps(jsonable(payload), sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def _started(doc: Document) -> datetime.datetime | None:
    """When the run started, in local time without a zone (as the
    lifecycle writes it): a time with a zone is converted, so SQLite and
    PostgreSQL keep the same instant."""
    when = member(doc.section(), "started")
    try:
        t = datetime.datetime.fromisoformat(when) if isinstance(when, str) else None
    except ValueError:
        return None
    if t is not None and t.tzinfo is not None:
        try:
            t = t.astimezone().replace(tzinfo=None)
        except (OverflowError, ValueError):
            return None
    return t


def run_facts(doc, git_commit: str | None = None, whole: bool = False) -> dict:
    """A run's columns but the document and when it was added: what the
    store keeps of its environment, and what `ctxbench export` reads of a
    file, the same (its digest is the run's id in both); `whole`: its text
    as the file has it, not fitted to the store's columns (fitted())."""
    d = Document(doc)
    env = d.environment
    mitigations = ", ".join(f"{k}: {v}" for k, v in sorted(env.mitigations.items()))
    row = {"digest": digest(doc), "command": d.command, "host": env.hostname, "cpu_model": env.cpu_model,
           "microcode": env.microcode, "kernel": env.kernel_release, "mitigations": mitigations or None,
           "ctxbench_version": d.tool.get("version"), "git_commit": git_commit, "started": _started(d),
           "governor": ", ".join(sorted({str(v) for v in env.governors.values()})), "vm": env.vm,
           "hypervisor": env.hypervisor if isinstance(env.hypervisor, str) else None,
           "core_ghz": doc_ghz(doc), **host_columns(d.records)}
    return fitted(runs, row, whole)


def run_row(doc: dict, git_commit: str | None = None) -> dict:
    # msgspec writes a NaN (an unknown) as null, as a results file has it: strict JSON
    return {**run_facts(doc, git_commit), "added": datetime.datetime.now(),
            "document": zlib.compress(msgspec.json.encode(plain(doc)), 6)}


def host_columns(res: list) -> dict:
    """The run's host state (core/host_state.py) as the runs table keeps it;
    nulls where its results carry no sensors."""
    state = host_state.of_results(res)
    rec = state.record() if state else {}
    return {f"{k}_ns": rec.get(f"{k}_ns") for k in host_state.NAMES} | \
        {k: rec.get(k) for k in ("steal_share", "others_busy_share")}


def _text(x, most: int | None, whole: bool = False) -> str | None:
    """A value as a text column holds it on both backends: no NUL (which
    PostgreSQL refuses) or lone surrogate (which neither encodes), at most
    the column's length (which PostgreSQL enforces and SQLite does not:
    cut on both, so the two keep the same rows; the document keeps it
    whole), '' kept as null. `whole`: as an export of a file gives it, not
    cut and '' kept as ''."""
    if x is None or (x == "" and not whole):
        return None
    t = str(x).replace("\0", "\ufffd").encode("utf-8", "replace").decode("utf-8")
    return t[:most] if most and not whole else t


def fitted(table, row: dict, whole: bool = False) -> dict:
    """`row` with every text value fitted to its column of `table` (`whole`:
    cleaned of what no encoding holds, but neither cut nor '' made null)."""
    out = dict(row)
    for k, v in row.items():
        col = table.c[k]
        if isinstance(col.type, (String, Text)) and v is not None:
            out[k] = _text(v, getattr(col.type, "length", None), whole)
    return out


def _cycles(r: Result) -> dict:
    c = r.cycles
    s = c.summary if c.applies else None
    lo, hi = s.ci95 if s else (math.nan, math.nan)
    return {"cycles_median": finite_or_none(s.median) if s else None, "cycles_ci_lo": finite_or_none(lo), "cycles_ci_hi": finite_or_none(hi),
            "cycles_mde": finite_or_none(s.mde) if s else None, "cycles_method": (c.method or None) if s else None}


def _mde(r: Result) -> float | None:
    """A runtimes row's resolution, else the summary's MDE."""
    mde = finite_or_none(r.resolution.get("mde_ns"))  # runtimes rows
    return mde if mde is not None else finite_or_none(r.summary.mde)


def result_rows(doc, run_id: int, whole: bool = False) -> list[dict]:
    """A run's result rows (`whole`: its text not fitted to the columns, fitted())."""
    out = []
    for r in Document(doc).results:
        s = r.summary
        lo, hi = s.ci95
        ok = r.verification.get("ok")
        version = r.params.get("version")
        out.append(fitted(results, {
            "run_id": run_id, "result_id": r.id, "point_key": r.point_key, "unit": r.unit or None,
            "median": finite_or_none(s.median), "ci_lo": finite_or_none(lo), "ci_hi": finite_or_none(hi),
            "mde": _mde(r), **_cycles(r),
            "ok": ok if isinstance(ok, bool) else None, "runtime_version": version, **export_columns(r)}, whole))
    return out


def export_columns(r: Result) -> dict:
    """A result's columns of revision 0006, what `ctxbench export` reads
    without the documents: its quantity, the summary's n and CV, the
    verification's verdict (None where nothing was checked), its warnings'
    codes joined by ';' (a code holds none), its core clock and its params."""
    n = r.summary.n if r.summary else None  # a result without a summary has no n (not 0)
    v = r.verification
    verdict = (v.get("verdict") or ("ok" if v.get("ok") else "failed")) if v.get("checked") else None
    return {"quantity": r.quantity or None, "n": n,
            "cv": finite_or_none(r.summary.cv), "verdict": verdict if isinstance(verdict, str) else None,
            "warning_codes": ";".join(w.code for w in r.warnings) or None,
            "clock_ghz": finite_or_none(r.cycles.ghz), **param_columns(dict(r.params.items()))}


def param_columns(params: dict) -> dict:
    """Each declared param in its column (param_<name>, of its kind:
    tables.PARAM_KINDS), None where a result has none; every other param,
    and a declared one whose value its column cannot hold, in params_other
    as JSON (keys sorted), None where there is none."""
    out, other = {}, dict(params)
    for name, kind in PARAM_KINDS:
        v = params.get(name)
        out[f"param_{name}"] = flat = _param(v, kind)
        if flat is not None or v is None:
            other.pop(name, None)
    out["params_other"] = json.dumps(jsonable(other), sort_keys=True, separators=(",", ":"),
                                     ensure_ascii=False) if other else None
    return out


def _param(v, kind: str):
    """`v` as a column of `kind` holds it, None where it cannot."""
    if kind == "text":
        return v if isinstance(v, str) else None if v is None else json.dumps(jsonable(v), sort_keys=True)
    if isinstance(v, bool):
        return v if kind == "bool" else None
    if kind == "int":
        return v if isinstance(v, int) and -(1 << 63) <= v < 1 << 63 else None
    if kind == "float":
        return float(v) if isinstance(v, (int, float)) and math.isfinite(v) else None
    return v if kind == "str" and isinstance(v, str) else None


def effect_rows(doc: dict, run_id: int, whole: bool = False) -> list[dict]:
    """Effects a command derives over its runs and keeps in its section,
    not as results, as rows of their own: the tasks experiment's cost per
    switch and per task, per pair (point `tasks/<pair>/per_switch`,
    `tasks/<pair>/per_task/<task>`), so that history and pooling see them."""
    pairs = member(Document(doc).section("tasks"), "per_pair")
    out = []
    for pair, s in (pairs or {}).items():
        if not isinstance(s, dict):
            continue
        effects = [("per_switch", s.get("per_switch"))]
        effects += [(f"per_task/{t}", e) for t, e in (s.get("per_task") or {}).items()]
        for name, e in effects:
            if not isinstance(e, dict) or finite_or_none(e.get("estimate_ns")) is None:
                continue
            ci = _pair(e.get("ci95"))
            key = f"tasks/{pair}/{name}"
            task = {"task": name.split("/", 1)[1]} if name.startswith("per_task/") else {}
            out.append(fitted(results, {"run_id": run_id, "result_id": key, "point_key": key, "unit": "ns",
                                        "median": finite_or_none(e["estimate_ns"]), "ci_lo": finite_or_none(ci[0]),
                                        "ci_hi": finite_or_none(ci[1]), "mde": finite_or_none(e.get("mde_ns")),
                                        **_effect_cycles(e.get("cycles")), "ok": None,
                                        "runtime_version": None, **_effect_columns(str(pair), task)}, whole))
    return out


# the quantity of an effect's row: a cost derived over rounds, not a result's median
EFFECT = "effect"


def _effect_columns(pair: str, task: dict) -> dict:
    """An effect's columns of revision 0006: its pair (and task) as params;
    no n, CV, verdict, warnings or clock of its own."""
    return {"quantity": EFFECT, "n": None, "cv": None, "verdict": None, "warning_codes": None, "clock_ghz": None,
            **param_columns({"pair": pair, **task})}


def _pair(ci) -> list:
    return ci if isinstance(ci, list) and len(ci) == 2 else [None, None]


def _effect_cycles(c) -> dict:
    """An effect's estimate in core cycles (issue 32), in the columns a
    result's cycles fill: every row of one add has the same columns (one
    INSERT of many rows), and history reads an effect in cycles too."""
    c = c if isinstance(c, dict) else {}
    ci = _pair(c.get("ci95"))
    return {"cycles_median": finite_or_none(c.get("estimate_cycles")), "cycles_ci_lo": finite_or_none(ci[0]),
            "cycles_ci_hi": finite_or_none(ci[1]), "cycles_mde": finite_or_none(c.get("mde_cycles")), "cycles_method": None}


def add(conn, doc: dict, git_commit: str | None = None) -> tuple[int, bool]:
    """(run id, whether it was new) for one document, in the caller's
    transaction."""
    row = run_row(doc, git_commit)
    have = conn.execute(select(runs.c.id).where(runs.c.digest == row["digest"])).scalar()
    if have is not None:
        return int(have), False
    try:
        with conn.begin_nested():  # another writer may add the same document at this moment
            run_id = int(conn.execute(insert(runs).values(**row)).inserted_primary_key[0])
    except IntegrityError:
        return int(conn.execute(select(runs.c.id).where(runs.c.digest == row["digest"])).scalar_one()), False
    rows = result_rows(doc, run_id) + effect_rows(doc, run_id)
    if rows:
        conn.execute(insert(results), rows)
    return run_id, True


def kept_as_given(conn, run_id: int, doc) -> bool:
    """Whether run `run_id` keeps `doc` as it is, analysis and all: a file
    that `add` found already kept may be the same measurement analysed
    anew (ctxbench reanalyse), which the store does not keep twice."""
    blob = conn.execute(select(runs.c.document).where(runs.c.id == run_id)).scalar_one()
    try:
        return zlib.decompress(blob) == msgspec.json.encode(plain(doc))
    except zlib.error:
        return False


def document(conn, run_id: int, records: Records) -> DocumentRecord:
    """A kept run's document, its strings cleaned as a file's are
    (core/reader: control characters replaced): a store is shared, and
    what another client put there is input like any file. Its results were
    analysed when it was recorded, and are not again; a ctxbench/1
    document is upgraded to ctxbench/2 as a file is (`records`: the types
    it is decoded into, ctxbench.records.RECORDS). One line for a
    document that cannot be read back."""
    blob = conn.execute(select(runs.c.document).where(runs.c.id == run_id)).scalar_one()
    return document_of(blob, run_id, records)


def document_of(blob, run_id: int, records: Records) -> DocumentRecord:
    """A kept document (its compressed bytes) read back as document() does
    (core.errors.UserError, one line, where it cannot be)."""
    from ctxbench.core import reader
    from ctxbench.core.errors import UserError
    try:
        data = zlib.decompress(blob)
    except (zlib.error, TypeError) as e:
        raise UserError(f"run {run_id} in the store: its kept document is damaged ({e})")
    doc = reader.decode(data, f"run {run_id} in the store", strict=False)
    if not isinstance(doc, dict) or not Document(doc).has_results:
        raise UserError(f"run {run_id} in the store: its kept document is not a results document")
    try:  # a ctxbench/1 document recorded before issue 34 is upgraded (core/results/upgrade.py)
        return records.read(doc)
    except ValidationError as e:
        raise UserError(f"run {run_id} in the store: its kept document is malformed: {records.problem(e, doc)}")
