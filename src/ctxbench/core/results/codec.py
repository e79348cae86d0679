"""From builtins (what json.loads gives) to records and back, validated.

Open records keep undeclared members in `extra`: `record()` moves them
there before msgspec validates (so msgspec's forbid_unknown_fields only
refuses what a Closed record does not declare), `builtins()` puts them
back where they were. A validation error carries its JSON path
("at `$.results[3].parts.I`"); `problem()` makes it one line that also
names the result it is in."""
from __future__ import annotations

import functools
import math
import re
from typing import Any, Callable

import msgspec
import msgspec.inspect as mi

from ctxbench.core.results.base import EXTRA


def _walker(t: mi.Type) -> Callable[[Any], Any] | None:
    """A function that moves the undeclared members of every open record
    within a value of type `t` into its `extra`; None where `t` holds no
    open record (sample arrays are not walked)."""
    if isinstance(t, mi.StructType):
        return _struct_walker(t.cls)
    if isinstance(t, (mi.ListType, mi.VarTupleType)):
        w = _walker(t.item_type)
        return None if w is None else (lambda o: [w(x) for x in o] if isinstance(o, list) else o)
    if isinstance(t, mi.DictType):
        w = _walker(t.value_type)
        return None if w is None else (lambda o: {k: w(v) for k, v in o.items()} if isinstance(o, dict) else o)
    if isinstance(t, mi.UnionType):
        # msgspec allows one object-like and one array-like member per union
        by = {(list if isinstance(x, (mi.ListType, mi.VarTupleType)) else dict): _walker(x) for x in t.types
              if isinstance(x, (mi.StructType, mi.DictType, mi.ListType, mi.VarTupleType))}
        by = {k: w for k, w in by.items() if w is not None}
        return None if not by else (lambda o: by[type(o)](o) if type(o) in by else o)
    return None


@functools.cache  # a record type's walker is made once (inspecting a type costs more than converting a result)
def _struct_walker(cls: type) -> Callable[[Any], Any]:
    fields = {f.encode_name: _walker(f.type) for f in mi.type_info(cls).fields}
    is_open = EXTRA in fields

    def walk(o):
        if not isinstance(o, dict):
            return o
        out, extra = {}, {}
        for k, v in o.items():
            if k in fields and k != EXTRA:
                w = fields[k]
                out[k] = w(v) if w is not None else v
            elif is_open:
                extra[k] = v
            else:
                out[k] = v  # msgspec refuses it, with its path
        if extra:
            out[EXTRA] = extra
        return out
    return walk


@functools.cache  # one per type: a record's, or a member's (results.replace)
def _walker_of(cls: Any) -> Callable[[Any], Any] | None:
    return _walker(mi.type_info(cls))


def record(obj: Any, cls: Any):
    """`obj` (builtins) as a `cls` record (or a value of a member's type);
    msgspec.ValidationError if it is not one."""
    w = _walker_of(cls)
    return msgspec.convert(w(obj) if w else obj, cls)


def _unsplit(o):
    if isinstance(o, dict):
        extra = o.pop(EXTRA, None)
        for v in o.values():
            _unsplit(v)
        if extra:
            o.update(extra)
    elif isinstance(o, list) and o and isinstance(o[0], (dict, list)):
        for v in o:
            _unsplit(v)
    return o


def builtins(rec) -> Any:
    """A record as builtins, every open record's `extra` back in its place."""
    return _unsplit(msgspec.to_builtins(rec))


_EXPECTED = re.compile(r"^Expected `(.+)`, got `(.+)`$")
_BOUND = re.compile(r"^Expected `(?:int|float)` ([<>]=?) (\S+)$")
_ENUM = re.compile(r"^Invalid enum value (.+)$")
_RESULT = re.compile(r"^\$\.results\[(\d+)\]")


_STEP = re.compile(r"\.([A-Za-z_][A-Za-z_0-9]*)|\[(\d+)\]|\[\.\.\.\]")


def _named(path: str, doc: Any, cls: type) -> str:
    """`path` with each `[...]` (msgspec's step into a map's value) made
    the key whose value is the one at fault: `$.results[1].parts.I`, not
    `$.results[1].parts[...]`."""
    t, o, out = mi.type_info(cls), doc, "$"
    for m in _STEP.finditer(path[1:]):
        while isinstance(t, mi.UnionType):  # the member the value is
            t = next((x for x in t.types if isinstance(o, dict) and isinstance(x, (mi.StructType, mi.DictType))
                      or isinstance(o, list) and isinstance(x, (mi.ListType, mi.VarTupleType))), None)
        name, index = m.group(1), m.group(2)
        if name is not None and isinstance(t, mi.StructType) and isinstance(o, dict):
            f = next((f for f in t.fields if f.encode_name == name), None)
            t, o, out = (f.type if f else None), o.get(name), out + "." + name
        elif index is not None and isinstance(o, list) and isinstance(t, (mi.ListType, mi.VarTupleType)):
            t, o, out = t.item_type, o[int(index)], out + f"[{index}]"
        elif isinstance(t, mi.DictType) and isinstance(o, dict):
            cls_v, w = t.value_type, _walker(t.value_type)
            bad = None
            for k, v in o.items():
                try:
                    msgspec.convert(w(v) if w else v, _python_type(cls_v))
                except (msgspec.ValidationError, TypeError):
                    bad = k
                    break
            if bad is None:
                return path
            t, o, out = cls_v, o[bad], out + (f".{bad}" if re.fullmatch(r"[A-Za-z_][A-Za-z_0-9]*", bad)
                                               else f"[{bad!r}]")
        else:
            return path
    return out


def _python_type(t: mi.Type):
    """The annotation an inspect type came from (for msgspec.convert)."""
    if isinstance(t, mi.StructType):
        return t.cls
    if isinstance(t, mi.UnionType):
        import typing
        return typing.Union[tuple(_python_type(x) for x in t.types)]
    if isinstance(t, (mi.IntType, mi.FloatType)):  # with its bounds (a measured number's)
        import typing
        bounds = {k: getattr(t, k) for k in ("gt", "ge", "lt", "le") if getattr(t, k) is not None}
        base = int if isinstance(t, mi.IntType) else float
        return typing.Annotated[base, msgspec.Meta(**bounds)] if bounds else base
    simple = {mi.StrType: str, mi.BoolType: bool, mi.NoneType: type(None), mi.AnyType: Any}
    for k, v in simple.items():
        if isinstance(t, k):
            return v
    if isinstance(t, (mi.ListType, mi.VarTupleType)):
        return list[_python_type(t.item_type)]
    if isinstance(t, mi.DictType):
        return dict[str, _python_type(t.value_type)]
    return Any


def _at(doc: Any, path: str) -> Any:
    """The value at a JSON path as problem() names it (None if not there)."""
    o = doc
    for m in _STEP.finditer(path[1:]):
        name, index = m.group(1), m.group(2)
        if name is not None and isinstance(o, dict):
            o = o.get(name)
        elif index is not None and isinstance(o, list) and int(index) < len(o):
            o = o[int(index)]
        else:
            return None
    return o


def _out_of_range(v: Any, op: str, bound: str, path: str) -> str:
    """A bound msgspec found broken, in ctxbench's words: NaN and the
    infinities (Python's json reads them, JSON has none) said as such."""
    if isinstance(v, float) and v != v:
        return "NaN (not a number) where a measured number belongs"
    if isinstance(v, float) and v in (math.inf, -math.inf):
        return f"{'-' if v < 0 else ''}Infinity where a measured number belongs"
    if re.search(r"\.group\[\d+\]$", path):
        return f"a group id out of range (it must be {op} {bound}: the engine's group ids are C ints)"
    return "a number out of range (a measured number is a signed 64-bit reading, -2^63 <= x < 2^63: " \
           "no clock or counter measures more)"


def problem(e: msgspec.ValidationError, doc: Any = None, cls: type | None = None) -> str:
    """msgspec's error as one line: what is wrong, at which JSON path (map
    keys named), and in which result (by id) when the path is inside one."""
    text = str(e)
    what, _, path = text.rpartition(" - at ")
    if not what:
        what, path = text, "$"
    path = path.strip("`")
    if "[...]" in path and cls is not None:
        path = _named(path, doc, cls)
    m = _EXPECTED.match(what)
    if m:
        what = f"expected {m.group(1)}, got {m.group(2)}"
    c = _ENUM.match(what)
    if c and path.endswith(".code"):
        what = f"warning code {c.group(1)} is none of this ctxbench's (docs/results-file.md, Warnings)"
    b = _BOUND.match(what)
    if b:
        what = _out_of_range(_at(doc, path), b.group(1), b.group(2), path)
    line = f"{what} - at `{path}`"
    r = _RESULT.match(path)
    if r and isinstance(doc, dict) and isinstance(doc.get("results"), list):
        i = int(r.group(1))
        rid = doc["results"][i].get("id") if i < len(doc["results"]) and isinstance(doc["results"][i], dict) else None
        if isinstance(rid, str) and f"'{rid}'" not in what:
            line += f" (result '{rid}')"
    return line
