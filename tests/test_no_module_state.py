"""No module-level mutable state in core/ (issue 47): what a command needs
is made once per command and passed down (the engine context,
core/engine.Engine), so that nothing one command did is seen by the next
(the tests run many in one process). Each module under src/ctxbench/core
is parsed: a module-level assignment of a mutable value (a dict, list or
set display or comprehension, a call of dict(), list(), set(),
defaultdict(), ..., or a name a `global` statement rebinds) fails, unless
it is one a signal handler needs (ALLOWED below, each with why). Tables
of constants are immutable (MappingProxyType, tuples, frozensets);
caches are functools.cache'd functions."""
from __future__ import annotations

import ast
from pathlib import Path

CORE = Path(__file__).resolve().parents[1] / "src" / "ctxbench" / "core"

# (module, name): the state a signal handler needs, and why it cannot be passed
ALLOWED = {
    # SIGINT's handler remembers a Ctrl-C whose KeyboardInterrupt Python lost; a handler
    # takes no arguments of ours, so what it sets is the module's
    ("interrupts", "_seen"),
}

MUTABLE_CALLS = {"dict", "list", "set", "bytearray", "defaultdict", "OrderedDict", "Counter", "deque",
                 "WeakValueDictionary", "WeakKeyDictionary", "WeakSet", "SimpleNamespace"}


def _mutable(value: ast.expr | None) -> bool:
    if isinstance(value, (ast.Dict, ast.List, ast.Set, ast.DictComp, ast.ListComp, ast.SetComp)):
        return True
    if isinstance(value, ast.BinOp):  # {..} | {..}, [..] + [..]
        return _mutable(value.left) or _mutable(value.right)
    if isinstance(value, ast.Call):
        f = value.func
        name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else None
        return name in MUTABLE_CALLS
    return False


def _targets(node: ast.stmt) -> list[tuple[str, ast.expr | None]]:
    if isinstance(node, ast.Assign):
        return [(t.id, node.value) for t in node.targets if isinstance(t, ast.Name)]
    if isinstance(node, (ast.AnnAssign, ast.AugAssign)) and isinstance(node.target, ast.Name):
        return [(node.target.id, node.value)]
    return []


def module_state(path: Path) -> list[str]:
    """The module-level mutable state of one module, as 'name (line): why'."""
    tree = ast.parse(path.read_text(), str(path))
    found = []
    for node in tree.body:  # module level only (a class's or a function's own names are theirs)
        for name, value in _targets(node):
            if _mutable(value) and not (name.startswith("__") and name.endswith("__")):  # __all__: the import system's
                found.append(f"{name} (line {node.lineno}): a mutable value")
    rebound = {n for node in ast.walk(tree) if isinstance(node, ast.Global) for n in node.names}
    found += [f"{n}: rebound by `global`" for n in sorted(rebound)]
    return found


def _name(path: Path) -> str:
    return ".".join(path.relative_to(CORE).with_suffix("").parts)


def test_core_holds_no_module_level_mutable_state():
    found = [f"core/{path.relative_to(CORE)}: {what}" for path in sorted(CORE.rglob("*.py"))
             for what in module_state(path) if (_name(path), what.split(" ")[0].rstrip(":")) not in ALLOWED]
    assert not found, "module-level mutable state in core/ (pass it down, or make it immutable):\n" + \
        "\n".join(found)


def test_the_check_finds_what_it_should(tmp_path):
    p = tmp_path / "m.py"
    p.write_text("A = {}\nB: list = []\nC = dict(x=1)\nD = frozenset({1})\nE = (1, 2)\nF = None\n"
                 "def f():\n    global F\n    F = 1\n    g = {}\n")
    assert [w.split(" ")[0].rstrip(":") for w in module_state(p)] == ["A", "B", "C", "F"]
