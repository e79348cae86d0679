"""Reading a results file: one clear UserError for anything unreadable
(not UTF-8, not JSON, absurd sizes or depth, a shape the results model
refuses: the line names the JSON path), control characters stripped from
every string, ctxbench/1 upgraded (core/results/upgrade.py). It does not
re-analyse: a result is read as written, so `report`, `compare`,
`history` and the store show what the command printed when it measured;
only a document with no analysis to read (ctxbench/1, or results without
a summary) is analysed once, as part of its upgrade (analysed_once).
Re-analysing a file on purpose is `ctxbench reanalyse`."""
from __future__ import annotations

import json
import math
import os
import re
import stat

import msgspec

from ctxbench.core import model, results
from ctxbench.core.results import upgrade
from ctxbench.core.errors import UserError, escaped, file_kind, shown

# Replaced by U+FFFD: C0 controls (tab and newline kept), DEL and C1
# controls (ESC starts terminal escape sequences: colour, window title,
# clear screen; BEL rings), and lone surrogates (JSON's "\ud800": no UTF-8
# holds one, so an HTML or Markdown report could not be written).
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff]")
# Bounds for what a results file may hold: five times a real 200 MB file
# (a long sweep with its raw arrays), yet a size whose JSON still fits in
# the memory of a machine that runs the benchmark.
MAX_FILE_BYTES = 1 << 30
MAX_DEPTH = 64


def safe_text(s: str) -> str:
    """A string from a results file, fit for a terminal, HTML or Markdown:
    controls and lone surrogates replaced; the invisible characters that
    change what is shown (format characters such as U+202E, which reverses
    the text after it in a table) written as escapes (`\u202e`), as the
    terminal shows them (core/errors.escaped), so every output says the same."""
    return escaped(_CONTROL.sub("\ufffd", s))


def _clean(o, depth: int = 0):
    """Strip control characters from every string (keys too); bound the depth."""
    if depth > MAX_DEPTH:
        raise ValueError(f"nested deeper than {MAX_DEPTH} levels")
    if isinstance(o, str):
        return safe_text(o)
    if isinstance(o, dict):
        return {safe_text(str(k)): _clean(v, depth + 1) for k, v in o.items()}
    if isinstance(o, list):
        return [_clean(v, depth + 1) for v in o]
    if isinstance(o, int) and not isinstance(o, bool) and abs(o) > 1 << 1023:
        raise ValueError("a number too large for a measurement")
    return o


def read_bytes(path: str, limit: int | None = None) -> bytes:
    """The bytes of a regular file, at most `limit`; one UserError for
    anything else. Opened without blocking (a FIFO nobody writes would wait
    forever) and judged by what was opened, not by the name (which may
    change in between); read up to limit + 1 bytes, so a file that grows
    while it is read (or /proc's, whose size says 0) stays bounded."""
    name = shown(path)
    limit = MAX_FILE_BYTES if limit is None else limit
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC)
    except OSError as e:
        raise UserError(f"cannot read {name}: {e.strerror or e}")
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise UserError(f"cannot read {name}: it is a directory")
        if not stat.S_ISREG(mode):
            raise UserError(f"cannot read {name}: it is {file_kind(mode)}, not a results file (give a regular file)")
        chunks, got = [], 0
        while got <= limit:
            b = os.read(fd, min(limit + 1 - got, 1 << 24))
            if not b:
                break
            chunks.append(b)
            got += len(b)
    except OSError as e:
        raise UserError(f"cannot read {name}: {e.strerror or e}")
    finally:
        os.close(fd)
    if got > limit:
        raise UserError(f"{name} is larger than {limit / (1 << 30):g} GiB: not a results file")
    return b"".join(chunks)


def load(path: str, records: results.Records, analyse_old: bool = True) -> results.Document:
    """Read and check a results file; one clear UserError otherwise
    (`records`, `analyse_old`: parse's)."""
    name = shown(path)
    return parse(decode(read_bytes(path), name), name, records, analyse_old)


def _not_json(constant: str):
    """NaN, Infinity: Python's json reads them, no JSON parser does."""
    raise ValueError(f"{'NaN (not a number)' if constant == 'NaN' else constant} is not JSON")


def _finite(text: str) -> float:
    """A number past a float's range (1e999) is no measurement, not infinity."""
    v = float(text)
    if math.isinf(v):
        raise ValueError(f"the number {text[:24]} is past a float's range")
    return v


def _finite_or_none(text: str) -> float | None:
    v = float(text)
    return None if math.isinf(v) else v


def decode(data: bytes, name: str, strict: bool = True):
    """The JSON value of a document's bytes, cleaned (core/reader._clean);
    one clear UserError for bytes that are not one. `strict` (a file's):
    NaN, Infinity and numbers past a float are refused; not strict (a
    document the store kept, written before its NaN were written null):
    they are read as null, as ctxbench's own writer writes them."""
    if not data.strip():
        raise UserError(f"{name} is empty")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise UserError(f"{name} is not a ctxbench results file (not UTF-8 text: byte {e.start})")
    try:
        doc = _clean(json.loads(text, parse_constant=_not_json, parse_float=_finite) if strict else
                     json.loads(text, parse_constant=lambda c: None, parse_float=_finite_or_none))
    except json.JSONDecodeError as e:
        raise UserError(f"{name} is not valid JSON (truncated or corrupt?): {e.msg} at line {e.lineno}")
    except RecursionError:
        raise UserError(f"{name} is malformed: nested too deeply")
    except ValueError as e:  # an integer of thousands of digits, a depth or size bound
        raise UserError(f"{name} is malformed: {e}")
    return doc


def parse(doc, name: str, records: results.Records, analyse_old: bool = True) -> results.Document:
    """Check a document already read (a file's, or an engine's output
    brought from another host) against the results model (core/results:
    ctxbench/2 validated, ctxbench/1 upgraded); one clear UserError
    otherwise, naming the JSON path of what is wrong. `name` says where
    it came from; `records` (ctxbench.records.RECORDS), the types it is
    decoded into. Returns the ctxbench/2 record, what the views
    (core/model) read: its results as written (intervals, widening,
    verdicts: what the command printed), analysed only where an old
    document has no analysis to read (analysed_once; not with
    `analyse_old` false: the results exactly as the file holds them).
    Re-analysing a file is `ctxbench reanalyse`."""
    if not isinstance(doc, dict):
        raise UserError(f"{name} is not a ctxbench results file (top level is not an object)")
    schema = doc.get("schema")
    if schema not in model.SUPPORTED_SCHEMAS:
        raise UserError(f"{name} has schema {safe_text(repr(schema))[:80]}; "
                        f"this ctxbench reads {', '.join(model.SUPPORTED_SCHEMAS)}")
    try:
        rec = records.read(doc)
    except results.ValidationError as e:
        raise UserError(f"{name} is malformed: {records.problem(e, doc)}")
    return analysed(rec, name, records, everything=schema == upgrade.V1)[0] if analyse_old else rec


def analysed(rec: results.Document, name: str, records: results.Records,
             everything: bool = False) -> tuple[results.Document, list[str]]:
    """analysed_once, then, where it analysed anything, what the document's
    command derives from its analysed results made again (`records`'
    derived: a runtimes row's interval over its launches, a task pair's
    effects), as the command did when it measured; and that step's notes.
    What the analysis could not take (`name`'s doing) is one UserError."""
    try:
        new = analysed_once(rec, everything)
        return (new, []) if new is rec else records.derived(new, model.Document(new).command, name)
    except results.ValidationError as e:  # an analysis made what the model refuses: the file's doing
        raise UserError(f"{name} is malformed: {e}")
    except (TypeError, ValueError, KeyError, IndexError, ZeroDivisionError, OverflowError, AttributeError) as e:
        # a shape the model does not rule out: still one line, not a traceback
        raise UserError(f"{name} is malformed: {type(e).__name__}: {e}")


def _measured(r) -> bool:
    """A result measured from samples, not derived from others (tasks'
    and irq's points have `parts`)."""
    return results.member(r, "samples") is not None and results.member(r, "parts") is None


def analysed_once(rec: results.Document, everything: bool = False) -> results.Document:
    """The upgrade step for documents written before the analysis was kept
    with the samples: a ctxbench/1 document (`everything`: its summaries
    are an older ctxbench's, or the engine's raw output has none) has
    every measured result analysed from its samples (model.analyse), and
    the drift of an interleaved run (run, anatomy, ring) derived again
    from them, as the command did when it measured; a ctxbench/2
    document, only the measured results that carry no summary (and the
    drift, where none of them had one). Any other document is returned as
    it is: a result is taken as written."""
    measured = [_measured(r) for r in rec.results]
    todo = [m and (everything or results.member(r, "summary") is None) for r, m in zip(rec.results, measured)]
    if not any(todo):
        return rec
    res = [model.analyse(r) if t else r for r, t in zip(rec.results, todo)]
    members = {}
    # the drift widens every interval of the run: derived again only where none was
    if all(t for t, m in zip(todo, measured) if m):
        for name, derive in (("run", model.apply_drift), ("anatomy", model.apply_drift),
                             ("ring", model.apply_next_run)):
            section = results.member(rec, name)
            if results.member(section, "order") == "interleaved by group":
                res, drift = derive(res)  # the ring's: the interval that holds another run's median
                members[name] = results.replace(section, drift=drift)
    return msgspec.structs.replace(rec, results=res, **members)
