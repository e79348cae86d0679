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

Who makes records: the reader (core/reader.py: a file, validated or
upgraded, its samples analysed again) and the store's read hand out the
Document record; core/model.analyse makes an engine result (the engine's
JSON) a Result record, the one place engine output becomes one.
core/model's views read records (`member`: an UNSET member is the view's
default, an open record's undeclared one comes from `extra`). Records are
never changed: an analysis makes a new one (`replace`, through
model.with_members). What a command is still building (a derived point,
its section) may be builtins that hold records; `document()` makes the
whole the Document record (core/model.document, lifecycle.document), and
the writer encodes that record (`encode`). model.Document.section hands
out a command's section record."""
from __future__ import annotations

from typing import Any

import msgspec
from msgspec import UNSET

from ctxbench.core.results import codec, sections, upgrade as _upgrade
from ctxbench.core.results.base import Open, Stats
from ctxbench.core.results.document import SCHEMA, Document
from ctxbench.core.results.result import TEXT_MEMBER, Result
from ctxbench.core.results.warnings import SEVERITY

__all__ = ["SCHEMA", "Document", "Result", "Stats", "ValidationError", "read", "document", "section_of",
           "result_of", "replace", "member", "plain", "encode", "problem", "json_schema"]

ValidationError = msgspec.ValidationError


def problem(e: ValidationError, doc: Any, cls: type = Document) -> str:
    """What read() (or result_of(), with cls=Result) found wrong with `doc`, in one line with its JSON path."""
    return codec.problem(e, doc, cls)


def read(doc: Any) -> Document:
    """A document as read (builtins) as a ctxbench/2 record: ctxbench/2
    validated, ctxbench/1 upgraded. ValidationError (with the JSON path)
    for anything else."""
    return _upgrade.upgrade(doc, SEVERITY)


def document(members: dict[str, Any]) -> Document:
    """A document a command built (builtins that may hold records: its
    results, its section) as the Document record; ValidationError (with
    the JSON path) for one that does not fit, a writer's bug."""
    return codec.record(members, Document)


def section_of(command: str, sec: Any) -> sections.Section:
    """A command's section (builtins or the record) as its record."""
    return sec if isinstance(sec, sections.Section) else codec.record(sec, sections.BY_COMMAND[command])


def result_of(d: Any) -> Result:
    """A result as a record: builtins (an engine's result, what an analysis
    built) validated, a record as it is; ValidationError (with the JSON
    path) for one the model refuses."""
    return d if isinstance(d, Result) else codec.record(d, Result)


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


_types: dict[type, dict[str, Any]] = {}


def _field_types(cls: type) -> dict[str, Any]:
    if cls not in _types:
        _types[cls] = {f.name: f.type for f in msgspec.structs.fields(cls) if f.name != "extra"}
    return _types[cls]


def encode(rec: Document) -> bytes:
    """The record as the file's bytes (indented JSON; nan is null)."""
    return msgspec.json.format(msgspec.json.encode(plain(rec)), indent=1) + b"\n"


def json_schema() -> dict:
    """The JSON Schema of a ctxbench/2 file, from the records: open
    records allow other members (kept in `extra`, which is not a member
    of the file), closed ones do not; a result's params are typed by the
    table the Result record checks them with (core/schema.PARAM_TYPES)."""
    from ctxbench.core import schema  # the table the Result record checks params with (result.py)
    out = msgspec.json.schema(Document)
    props = out["$defs"]["Result"]["properties"]
    props["params"] = schema.params_json_schema()
    # what Result.__post_init__ checks, said in the schema too: in raw and
    # verify only `source` is text; a part is a statistics record, except
    # the few that may be a plain number (schema.NUMBER_PARTS)
    for name in ("raw", "verify"):
        kinds = props[name]["additionalProperties"]["anyOf"]
        text = [k for k in kinds if k.get("type") in ("string", "null")]
        props[name] = {"type": "object", "properties": {TEXT_MEMBER: {"anyOf": text}},
                       "additionalProperties": {"anyOf": [k for k in kinds if k.get("type") != "string"]}}
    part = props["parts"]["additionalProperties"]
    props["parts"] = {"type": "object", "properties": {name: part for name in schema.NUMBER_PARTS},
                      "additionalProperties": {"$ref": "#/$defs/Stats"}}
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
