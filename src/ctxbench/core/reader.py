"""Reading a results file: one clear UserError for anything unreadable
(not UTF-8, not JSON, the wrong shape, absurd sizes), control characters
stripped from every string, and every result re-analysed by the model."""
from __future__ import annotations

import json
import os
import re
import stat

from ctxbench.core import model, schema
from ctxbench.core.errors import UserError, shown

# C0 controls (tab and newline kept), DEL and C1 controls: ESC starts
# terminal escape sequences (colour, window title, clear screen), BEL rings.
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
# Bounds for what a results file may hold: five times a real 200 MB file
# (a long sweep with its raw arrays), yet a size whose JSON still fits in
# the memory of a machine that runs the benchmark.
MAX_FILE_BYTES = 1 << 30
MAX_DEPTH = 64


def safe_text(s: str) -> str:
    """A string from a results file, fit for a terminal, HTML or Markdown."""
    return _CONTROL.sub("\ufffd", s)


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


def _is_number(x) -> bool:
    return x is None or (isinstance(x, (int, float)) and not isinstance(x, bool))


def _number_lists(obj, where: str) -> str | None:
    """First member of `obj` (a dict of arrays, like raw or verify) that is
    not a list of numbers or nulls."""
    if obj is None:
        return None
    if not isinstance(obj, dict):
        return f"{where} is not an object"
    for k, v in obj.items():
        if isinstance(v, list) and not all(_is_number(x) for x in v):
            return f"{where}.{k} holds something other than numbers"
    return None


def _check_result(r) -> str | None:
    """What is wrong with one result object (None: nothing)."""
    if not isinstance(r, dict) or not isinstance(r.get("id"), str):
        return "'results' must be a list of objects with a string 'id'"
    rid = r["id"]
    samples = r.get("samples", [])
    if not isinstance(samples, list) or not all(_is_number(x) for x in samples):
        return f"samples of '{rid}' are not a list of numbers"
    for key in ("params", "summary", "verification", "parts"):
        if key in r and not isinstance(r[key], dict):
            return f"'{key}' of '{rid}' is not an object"
    for name, v in (r.get("params") or {}).items():
        types = schema.PARAM_TYPES.get(name)
        if types and not schema.fits(v, types):
            return f"params.{name} of '{rid}' is {schema.type_of(v)}, not {schema.type_name(types)}"
    for name, part in (r.get("parts") or {}).items():
        bad = schema.part_problem(name, part)
        if bad:
            return f"{bad} in '{rid}'"
    if "group" in r and not (isinstance(r["group"], list) and all(_is_number(x) for x in r["group"])):
        return f"'group' of '{rid}' is not a list of numbers"
    if "warnings" in r and not isinstance(r["warnings"], list):
        return f"'warnings' of '{rid}' is not a list"
    for w in r.get("warnings") or []:
        if not isinstance(w, str) and not (isinstance(w, dict) and isinstance(w.get("text"), str)):
            return f"a warning of '{rid}' is neither text nor {{code, text}}"
    for key in ("raw", "verify"):
        bad = _number_lists(r.get(key), f"{key} of '{rid}'")
        if bad:
            return bad
    return None


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
            kind = "a FIFO" if stat.S_ISFIFO(mode) else "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) \
                else "not a regular file"
            raise UserError(f"cannot read {name}: it is {kind}, not a results file (give a regular file)")
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


def load(path: str) -> dict:
    """Read and check a results file; one clear UserError otherwise."""
    name = shown(path)
    return parse(decode(read_bytes(path), name), name)


def decode(data: bytes, name: str):
    """The JSON value of a document's bytes, cleaned (core/reader._clean);
    one clear UserError for bytes that are not one."""
    if not data.strip():
        raise UserError(f"{name} is empty")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise UserError(f"{name} is not a ctxbench results file (not UTF-8 text: byte {e.start})")
    try:
        doc = _clean(json.loads(text))
    except json.JSONDecodeError as e:
        raise UserError(f"{name} is not valid JSON (truncated or corrupt?): {e.msg} at line {e.lineno}")
    except RecursionError:
        raise UserError(f"{name} is malformed: nested too deeply")
    except ValueError as e:  # an integer of thousands of digits, a depth or size bound
        raise UserError(f"{name} is malformed: {e}")
    return doc


def parse(doc, name: str) -> dict:
    """Check a document already read (a file's, or an engine's output
    brought from another host) and analyse its samples; one clear
    UserError otherwise. `name` says where it came from."""
    if not isinstance(doc, dict):
        raise UserError(f"{name} is not a ctxbench results file (top level is not an object)")
    schema = doc.get("schema")
    if schema not in model.SUPPORTED_SCHEMAS:
        raise UserError(f"{name} has schema {safe_text(repr(schema))[:80]}; "
                        f"this ctxbench reads {', '.join(model.SUPPORTED_SCHEMAS)}")
    res = doc.get("results")
    if not isinstance(res, list):
        raise UserError(f"{name} is malformed: 'results' must be a list of objects with an 'id'")
    for r in res:
        bad = _check_result(r)
        if bad:
            raise UserError(f"{name} is malformed: {bad}")
    for key in ("environment", "tool"):
        if not isinstance(doc.get(key, {}), dict):
            raise UserError(f"{name} is malformed: '{key}' is not an object")
    fails = doc.get("failures", [])  # ids a run could not measure (run/command.py)
    if not (isinstance(fails, list) and all(isinstance(f, dict) and isinstance(f.get("id"), str)
                                            and isinstance(f.get("error"), str) for f in fails)):
        raise UserError(f"{name} is malformed: 'failures' is not a list of {{id, error}}")
    # Results derived by a command's own analysis (tasks, irq: "parts") keep
    # their summaries; everything else is re-analysed from its samples.
    try:
        doc["results"] = [model.analyse(r) if "samples" in r and "parts" not in r else model.with_coded_warnings(r)
                          for r in res]
        run = doc.get("run")
        if isinstance(run, dict) and run.get("order") == "interleaved by group":
            run["drift"] = model.apply_drift(doc["results"])  # re-derived with the samples
        ring = doc.get("ring")
        if isinstance(ring, dict) and ring.get("order") == "interleaved by group":
            ring["drift"] = model.apply_next_run(doc["results"])  # the ring's intervals, re-derived the same way
    except (TypeError, ValueError, OverflowError, AttributeError) as e:
        # a shape the checks above did not foresee: still one line, not a traceback
        raise UserError(f"{name} is malformed: {type(e).__name__}: {e}")
    return doc
