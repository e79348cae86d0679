"""The results format, `ctxbench/2`, as one typed model: frozen records
for the document, the tool and environment, a result, its summary and
parts, its warnings and each command's section (one module per family:
base, warnings, environment, result, sections, document), one upgrade()
from every shape `ctxbench/1` had (upgrade.py), and the JSON Schema
generated from the records (docs/results-file.schema.json).

Why msgspec (not pydantic 2): its frozen Structs validate and decode in
one C pass, which matters for the sample arrays of a long sweep (a real
file is 200 MB); its validation errors carry the JSON path ("at
`$.results[3].parts.I_pct`"), which the reader's one-line error needs;
msgspec.json.schema() generates the published schema; and it is one
small dependency with no others. pydantic 2 would also do, at several
times the decoding cost and a larger install, for features (coercion,
computed fields) the format does not want: ctxbench/2 is strict (an int
is not accepted for a string, a bool not for an int).

Unknown members: a record the front end or engine owns in full
(`base.Closed`: the document, a result, a warning, a check) forbids
them, so a writer that adds a member without declaring it fails its
first test, not a reader later. A record that grows with the analyses or
differs by host (`base.Open`: statistics records, the environment's
sections, the verification, the command sections) keeps them in `extra`,
and they are written back where they were: a round trip loses nothing.

A temporary bridge (issue 34): the readers (core/model's views) and the
analyses still read and build dicts. The reader validates a file through
these records and hands the views `to_builtins(record)`; the writer
validates the dict a command built and writes the record. Once the views
read records, the bridge goes."""
from __future__ import annotations

from typing import Any

import msgspec

from ctxbench.core.results import codec, upgrade as _upgrade
from ctxbench.core.results.document import SCHEMA, Document
from ctxbench.core.results.warnings import SEVERITY

__all__ = ["SCHEMA", "Document", "ValidationError", "read", "to_builtins", "encode", "problem", "json_schema"]

ValidationError = msgspec.ValidationError


def problem(e: ValidationError, doc: Any) -> str:
    """What read() or encode() found wrong with `doc`, in one line with its JSON path."""
    return codec.problem(e, doc, Document)


def read(doc: Any) -> Document:
    """A document as read (builtins) as a ctxbench/2 record: ctxbench/2
    validated, ctxbench/1 upgraded. ValidationError (with the JSON path)
    for anything else."""
    return _upgrade.upgrade(doc, SEVERITY)


def to_builtins(rec: Document) -> dict:
    """The record as dicts and lists, as the views read them (the bridge)."""
    return codec.builtins(rec)


def encode(rec: Document) -> bytes:
    """The record as the file's bytes (indented JSON; nan is null)."""
    return msgspec.json.format(msgspec.json.encode(to_builtins(rec)), indent=1) + b"\n"


def json_schema() -> dict:
    """The JSON Schema of a ctxbench/2 file, from the records: open
    records allow other members (kept in `extra`, which is not a member
    of the file), closed ones do not."""
    out = msgspec.json.schema(Document)
    for d in out.get("$defs", {}).values():
        props = d.get("properties", {})
        if codec.EXTRA in props:
            del props[codec.EXTRA]
            d.pop("additionalProperties", None)
            d["additionalProperties"] = True
        else:
            d["additionalProperties"] = False
    out["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    out["title"] = f"ctxbench results file ({SCHEMA})"
    return out
