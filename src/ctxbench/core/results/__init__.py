"""The results format, `ctxbench/2`, as one typed model: frozen records
for the document, the tool and environment, a result, its summary and
parts, its warnings (one module per family: base, warnings, environment,
result, document), one upgrade() from every shape `ctxbench/1` had
(upgrade.py), and the registration API (registry.py): each feature
declares its command's section and the members it adds to a result or
the document in its own package, and the one registry outside core/
(ctxbench/records.py: RECORDS) composes the types a file is decoded into
and the JSON Schema (docs/results-file.schema.json) is generated from.

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

Who makes records: the reader (core/reader.py) and the store's read hand
out the registry's Document record (Records.read); core/model.analyse
makes an engine result (the engine's JSON) a Result record, the one
place engine output becomes one. core/model's views read records
(`member`: an UNSET member is the view's default, an open record's
undeclared one comes from `extra`). Records are never changed: an
analysis makes a new one (`replace`, through model.with_members). What a
command is still building (a derived point, its section) may be
builtins that hold records; Records.document makes the whole the
Document record (core/model.document, lifecycle.document), and the
writer encodes that record (`encode`)."""
from __future__ import annotations

import functools
from typing import Any

import msgspec
from msgspec import UNSET

from ctxbench.core.results import codec
from ctxbench.core.results.base import Closed, Open, Stats
from ctxbench.core.results.document import SCHEMA, Document, Section
from ctxbench.core.results.registry import Feature, Records
from ctxbench.core.results.result import Result

__all__ = ["SCHEMA", "Closed", "Document", "Feature", "Open", "Records", "Result", "Section", "Stats",
           "ValidationError", "replace", "member", "plain", "encode", "problem"]

ValidationError = msgspec.ValidationError


def problem(e: ValidationError, doc: Any, cls: type = Document) -> str:
    """What decoding `doc` into `cls` found wrong, in one line with its JSON path."""
    return codec.problem(e, doc, cls)


def replace(rec: msgspec.Struct, **members) -> msgspec.Struct:
    """A new record: `rec` with `members` (builtins or records) made the
    types it declares for them; `rec` is not changed."""
    types = _field_types(type(rec))
    return msgspec.structs.replace(rec, **{k: codec.record(v, types[k]) for k, v in members.items()})


def member(rec: Any, name: str, default: Any = None) -> Any:
    """A member of a record (an Open record's undeclared ones from its
    `extra`) or of its builtins; `default` where it is absent (UNSET)."""
    if isinstance(rec, dict):
        return rec.get(name, default)
    if isinstance(rec, msgspec.Struct):
        v = getattr(rec, name, UNSET) if name in _field_types(type(rec)) else \
            rec.extra.get(name, UNSET) if isinstance(rec, Open) else UNSET
        return default if v is UNSET else v
    return default


def plain(x: Any) -> Any:
    """A record as builtins (an Open record's extras back in place), and
    builtins that hold records (a document a command is building) with
    those made builtins; lists of numbers (samples) are taken as they are."""
    if isinstance(x, msgspec.Struct):
        return codec.builtins(x)
    if isinstance(x, dict):
        return {k: plain(v) for k, v in x.items()}
    if isinstance(x, list) and x and isinstance(x[0], (dict, list, msgspec.Struct)):
        return [plain(v) for v in x]
    return x


@functools.cache
def _field_types(cls: type) -> dict[str, Any]:
    return {f.name: f.type for f in msgspec.structs.fields(cls) if f.name != "extra"}


def encode(rec: Document) -> bytes:
    """The record as the file's bytes (indented JSON; nan is null)."""
    return msgspec.json.format(msgspec.json.encode(plain(rec)), indent=1) + b"\n"
