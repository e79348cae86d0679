"""The front end's code stays in small, named steps (issue 47): no function
over MAX_LINES lines, and no nested function that changes state it shares
with the function around it (a closure that writes into an enclosing dict
or list, or rebinds an enclosing name with `nonlocal`): such state is
passed, returned, or held by an object that says what it is.

Read from the source with `ast`: nothing is imported or run."""
from __future__ import annotations

import ast
from pathlib import Path

import ctxbench

SRC = Path(ctxbench.__file__).resolve().parent
MAX_LINES = 80
# methods that change the object they are called on
MUTATORS = {"append", "extend", "update", "add", "pop", "popitem", "clear", "setdefault", "insert", "remove",
            "discard", "sort", "reverse", "__setitem__"}


def _functions():
    for path in sorted(SRC.rglob("*.py")):
        tree = ast.parse(path.read_text(), str(path))
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                yield path.relative_to(SRC.parent), node


def _bound_names(fn: ast.AST) -> set[str]:
    """Names a function binds itself: its parameters and its assignments."""
    a = fn.args
    out = {x.arg for x in [*a.posonlyargs, *a.args, *a.kwonlyargs]}
    out |= {x.arg for x in (a.vararg, a.kwarg) if x}
    for node in ast.walk(fn):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            out.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node is not fn:
            out.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            out |= {(x.asname or x.name).split(".")[0] for x in node.names}
    return out


def _root(node: ast.AST) -> str | None:
    """The name at the root of `x[..].y[..]`."""
    while isinstance(node, (ast.Subscript, ast.Attribute)):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def _shared_writes(inner: ast.AST, outer_names: set[str]) -> list[str]:
    """What `inner` (a nested function) changes of the names of the
    function around it."""
    own = _bound_names(inner)
    free = outer_names - own
    found = []
    for node in ast.walk(inner):
        if isinstance(node, ast.Nonlocal):
            found += [f"nonlocal {n}" for n in node.names]
        elif isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Delete)):
            targets = node.targets if isinstance(node, (ast.Assign, ast.Delete)) else [node.target]
            found += [f"writes {_root(t)}" for t in targets
                      if isinstance(t, (ast.Subscript, ast.Attribute)) and _root(t) in free]
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in MUTATORS:
            if isinstance(node.func.value, ast.Name) and node.func.value.id in free:
                found.append(f"{node.func.value.id}.{node.func.attr}()")
    return found


def test_no_function_is_over_80_lines():
    long = [f"{p}:{fn.lineno} {fn.name}: {fn.end_lineno - fn.lineno + 1} lines" for p, fn in _functions()
            if fn.end_lineno - fn.lineno + 1 > MAX_LINES]
    assert not long, "functions over {} lines:\n  {}".format(MAX_LINES, "\n  ".join(long))


def test_no_nested_function_changes_what_it_shares():
    bad = []
    for p, fn in _functions():
        names = _bound_names(fn)
        for inner in ast.walk(fn):
            if inner is fn or not isinstance(inner, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue  # a lambda is an expression: what it calls is judged as the enclosing function's
            writes = _shared_writes(inner, names)
            if writes:
                bad.append(f"{p}:{inner.lineno} {fn.name}.{inner.name}: {', '.join(sorted(set(writes)))}")
    assert not bad, "nested functions that change their enclosing function's state:\n  " + "\n  ".join(bad)


def test_the_checks_find_what_they_look_for():
    """Known answers: a closure that appends to its enclosing list, one
    that rebinds with nonlocal, and one that only reads."""
    src = ("def f():\n    xs = []\n    n = 0\n    def add(v):\n        xs.append(v)\n"
           "    def bump():\n        nonlocal n\n        n += 1\n    def read():\n        return len(xs)\n")
    fn = ast.parse(src).body[0]
    inner = {x.name: x for x in ast.walk(fn) if isinstance(x, ast.FunctionDef) and x is not fn}
    names = _bound_names(fn)
    assert _shared_writes(inner["add"], names) == ["xs.append()"]
    assert "nonlocal n" in _shared_writes(inner["bump"], names)
    assert _shared_writes(inner["read"], names) == []
