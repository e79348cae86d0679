"""The registration API: the record types of a results file, composed from
the core's closed records (result.py, document.py) and what each feature
declares in its own package (`<feature>/record.py`: a Feature), by the one
registry outside core/ (ctxbench/records.py: RECORDS).

Why composed types: msgspec decodes and validates a document in one C
pass (the sample arrays of a long sweep included) into one closed type,
so the registry makes that type once: the core's Result with every
feature's result members added (the core its base), the core's Document
with each command's section, each feature's document members and the
composed results. A member nobody declares is refused, as in any closed
record, and the file is as before: each member where it always was.

Why handed over, not looked up: core/ imports no feature
(tests/test_layers.py) and keeps no module state to be told them in, so
whoever decodes builtins into these records (the reader, the store, a
command's document, an analysis that adds a feature's member) is handed
the Records as an argument, or uses RECORDS itself above core/."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Union

import msgspec
from msgspec import UNSET, UnsetType

from ctxbench.core.results import codec, upgrade
from ctxbench.core.results.base import EXTRA
from ctxbench.core.results.document import SCHEMA, Document, Section
from ctxbench.core.results.result import TEXT_MEMBER, Result
from ctxbench.core.results.warnings import SEVERITY


@dataclass(frozen=True)
class Feature:
    """What one feature adds to a results file, each optional: its
    command's section (a Section record, the document's member named
    after the feature), a record whose fields are the members it adds to a
    result, and one whose fields are the members it adds to the document."""
    name: str
    section: type[Section] | None = None
    result: type[msgspec.Struct] | None = None
    document: type[msgspec.Struct] | None = None


def _fields(cls: type | None) -> list[tuple]:
    return [(f.name, f.type, f.default) for f in msgspec.structs.fields(cls)] if cls else []


def _compose(core: type, members: list[tuple], replaced: tuple = ()) -> type:
    """`core` with `members` added (and `replaced`'s types changed): one
    closed record type; a member declared twice is the registry's error."""
    names = [m[0] for m in members] + [f.name for f in msgspec.structs.fields(core)]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise ValueError(f"{core.__name__} members declared twice: {', '.join(twice)}")
    return msgspec.defstruct(core.__name__, list(replaced) + members, bases=(core,), frozen=True,
                             forbid_unknown_fields=True, kw_only=True, module=__name__)


class Records:
    """The record types of a ctxbench/2 file: `Result` and `Document`
    composed from the core's and the features' (in their order: the order
    of members in a written file), and what decodes and describes them."""

    def __init__(self, *features: Feature, derive: Callable[[str], Any] | None = None):
        """`derive(command)`: what that command derives from its analysed
        results (a function (document, name) -> (document, notes)), None
        where it derives nothing; the registry above core/ finds it
        (ctxbench/records.py), and whoever analyses a document again (the
        reader's upgrade, `ctxbench reanalyse`) calls it through derived()."""
        self.features = features
        self._derive = derive
        self.Result = _compose(Result, [m for f in features for m in _fields(f.result)])
        sections = [(f.name, Union[f.section, UnsetType], UNSET) for f in features if f.section]
        self.Document = _compose(Document, sections + [m for f in features for m in _fields(f.document)],
                                 replaced=(("results", list[self.Result]),))
        # the commands that write a document, by the section each adds (model.Document.command)
        self.commands = tuple(f.name for f in features if f.section)

    def derived(self, doc: Document, command: str | None, name: str) -> tuple[Document, list[str]]:
        """`doc` with what its `command` derives from its analysed results
        made again (a runtimes row's interval over its launches, a task
        pair's effects), and that step's notes; `doc` as it is where the
        command derives nothing. `name` says where it came from."""
        step = self._derive(command) if self._derive and command else None
        return step(doc, name) if step else (doc, [])

    def read(self, doc: Any) -> Document:
        """A document as read (builtins) as a ctxbench/2 record: ctxbench/2
        validated, ctxbench/1 upgraded (upgrade.py). ValidationError (with
        the JSON path) for anything else."""
        return upgrade.upgrade(doc, SEVERITY, self.Document)

    def document(self, members: dict[str, Any]) -> Document:
        """A document a command built (builtins that may hold records: its
        results, its section) as the Document record; ValidationError (with
        the JSON path) for one that does not fit, a writer's bug."""
        res = members.get("results")
        if isinstance(res, list):  # a result record of the core's type (analyse's) is made this one's
            members = dict(members, results=[r if isinstance(r, self.Result) else codec.builtins(r)
                                             if isinstance(r, msgspec.Struct) else r for r in res])
        return codec.record(members, self.Document)

    def result(self, d: Any) -> Result:
        """A result (builtins, or a record of the core's type) as this
        Result record; ValidationError (with the JSON path) for one the
        model refuses."""
        if isinstance(d, self.Result):
            return d
        return codec.record(codec.builtins(d) if isinstance(d, msgspec.Struct) else d, self.Result)

    def problem(self, e: msgspec.ValidationError, doc: Any) -> str:
        """What read() or document() found wrong with `doc`, in one line with its JSON path."""
        return codec.problem(e, doc, self.Document)

    def json_schema(self) -> dict:
        """The JSON Schema of a ctxbench/2 file, from the records: open
        records allow other members (kept in `extra`, which is not a member
        of the file), closed ones do not; a result's params are typed by the
        table the Result record checks them with (core/schema.PARAM_TYPES)."""
        from ctxbench.core import schema  # the table the Result record checks params with (result.py)
        out = msgspec.json.schema(self.Document)
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
            d.pop("additionalProperties", None)
            d["additionalProperties"] = EXTRA in props
            props.pop(EXTRA, None)
        out["$schema"] = "https://json-schema.org/draft/2020-12/schema"
        out["title"] = f"ctxbench results file ({SCHEMA})"
        return out
