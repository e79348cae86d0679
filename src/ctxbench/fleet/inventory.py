"""An inventory file looked at before ansible-core reads it
(core/ssh/hosts.py reads it), so that what would cost ansible unbounded
memory or time, or end in its own exception, is one line first:

- it is a regular file of at most MAX_BYTES, seen without opening it (a
  FIFO would be waited on, /dev/zero read for ever, a 4 GiB file read
  whole);
- an INI file does not begin with a byte order mark (ansible's INI
  parser reads it as part of the first line: '\\ufeff[lab]' is a host);
- its host patterns, ranges expanded as ansible expands them
  (`h[0:9999999]`), give at most MAX_HOSTS hosts, counted without
  expanding them; a '[' that begins no range is said, the name escaped;
- its YAML (and that of the group_vars/ and host_vars/ beside it, which
  ansible reads too) expands through aliases to at most MAX_ALIASED more
  values (a "billion laughs" file of a few hundred bytes would take
  minutes and gigabytes in ansible's variable handling), and holds no
  !vault value (ctxbench opens no vault).

Only the structure is read here (yaml's composer, which neither builds
values nor follows aliases); a file these checks cannot read is left to
ansible, whose words say what is wrong with it."""
from __future__ import annotations

import itertools
import json
import os
import re
import shlex
import stat
import string

from ctxbench.core.errors import UserError, escaped, file_kind
from ctxbench.core.ssh import hosts as hostlist

MAX_BYTES = 4 << 20        # 10,000 hosts with their variables take 1-2 MiB; ansible reads YAML at ~5 s a MiB
MAX_HOSTS = 10_000         # hosts an inventory may give, ranges expanded
MAX_ALIASED = 1_000_000    # values YAML aliases may add (ansible: about a second and 70 MB a million)
MAX_VARS_FILES = 10_000    # files under group_vars/ and host_vars/ looked at
MAX_DEPTH = 100            # groups nested in groups (children:); ansible recurses without a bound
VAULT_TAGS = ("!vault", "!vault-encrypted")
YAML_EXT = (".yml", ".yaml", ".json")  # a file named so is meant as YAML: its YAML error is said as such


def read(path: str, limit: str | None = None) -> list:
    """The inventory's hosts (hostlist.from_inventory), after the checks
    above; whatever ansible still raises is one line, never a traceback."""
    what = f"fleet: inventory {escaped(path)}"
    text = _text(path, what)
    # Whatever the file's name: ansible's yaml plugin reads a file with no
    # extension, and ANSIBLE_YAML_FILENAME_EXT or ansible.cfg may give it
    # any; where it fails (or does not take the file) the INI parser reads it.
    read_as_yaml = _yaml(text, what)
    if not read_as_yaml and path.lower().endswith(YAML_EXT) and (why := _yaml_error(text)):
        raise UserError(f"{what}: the YAML parser cannot read it: {escaped(why)}")  # named YAML: meant as YAML
    _ini(text, what, read_as_yaml)
    _vars_dirs(os.path.dirname(os.path.abspath(path)), what)
    try:
        return hostlist.from_inventory(path, limit)
    except UserError:
        raise
    except ReferenceError:  # ansible 2.19 decrypting a !vault value with no vault secret loaded
        raise UserError(f"{what}: a vault-encrypted value (!vault) needs ansible's vault, which ctxbench does not "
                        "open: give the value in plain text")
    except (Exception, RecursionError) as e:  # noqa: BLE001 (ansible's own failures, whatever their class)
        first = str(e).splitlines()[0] if str(e) else type(e).__name__
        raise UserError(f"{what}: ansible could not read it: {escaped(first)}")


def _text(path: str, what: str) -> str:
    """The file's text: a regular file (stat before open: a FIFO is never
    opened) of at most MAX_BYTES (read no further, whatever stat said)."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise UserError(f"{what}: no such file")
    except OSError as e:
        raise UserError(f"{what}: {e.strerror or e}")
    if not stat.S_ISREG(st.st_mode):
        raise UserError(f"{what}: not a regular file ({file_kind(st.st_mode)})")
    too_big = UserError(f"{what}: larger than {MAX_BYTES >> 20} MiB: not an inventory ctxbench reads")
    if st.st_size > MAX_BYTES:
        raise too_big
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_BYTES + 1)
    except OSError as e:
        raise UserError(f"{what}: {e.strerror or e}")
    if len(data) > MAX_BYTES:  # it grew since stat
        raise too_big
    return data.decode("utf-8", "replace")


def _hosts_of(pattern: str) -> int:
    """How many hosts ansible makes of one host pattern (its ranges
    `[begin:end:step]`, numeric or alphabetic, expanded as ansible's
    expand_hostname_range does), counted without making them; ValueError
    where ansible's expansion would fail."""
    from ansible.parsing.utils.addresses import parse_address
    try:
        pattern = parse_address(pattern, allow_ranges=True)[0] or pattern
    except Exception:  # noqa: BLE001 (ansible takes the pattern as it is then)
        pass
    count = 1
    while "[" in pattern and count:
        parts = pattern.replace("[", "|", 1).replace("]", "|", 1).split("|")
        if len(parts) != 3:
            raise ValueError("a '[' that begins no [begin:end] range")
        _, nrange, pattern = parts  # the rest after the range is expanded the same way for each value
        bounds = nrange.split(":")
        if len(bounds) not in (2, 3) or not bounds[1]:
            raise ValueError(f"[{nrange}] is not a range [begin:end] or [begin:end:step]")
        beg, end, step = bounds[0] or "0", bounds[1], bounds[2] if len(bounds) == 3 else "1"
        if beg[0] == "0" and len(beg) > 1 and len(beg) != len(end):
            raise ValueError(f"[{nrange}]: its begin and end differ in length")
        try:
            i, j = string.ascii_letters.index(beg), string.ascii_letters.index(end)
            n = len(string.ascii_letters[i:j + 1:int(step)])
        except ValueError:  # not a range of letters (ansible's own test)
            try:
                n = len(range(int(beg), int(end) + 1, int(step)))
            except OverflowError:  # more than sys.maxsize hosts: past any bound
                n = MAX_HOSTS + 1
        count *= n
    return count


def _count(patterns, what: str) -> None:
    """At most MAX_HOSTS hosts from these host patterns; a pattern that is
    no host name or range is said, escaped."""
    total = 0
    for p in patterns:
        try:
            total += _hosts_of(p)
        except ValueError as e:
            raise UserError(f"{what}: host {hostlist.shown(p)} is not a host name or range: {escaped(str(e))}")
        if total > MAX_HOSTS:
            raise UserError(f"{what}: more than {MAX_HOSTS} hosts (ranges such as h[0:99] counted as their "
                            "hosts): not an inventory ctxbench reads")


_SECTION = re.compile(r"^\[([^:\]\s]+)(?::(\w+))?\]\s*(?:#.*)?$")  # ansible's INI parser's own


def _ini(text: str, what: str, yaml_read: bool = False) -> None:
    """The host lines of an INI inventory, as ansible's INI parser finds
    them: those before any section and in [group] or [group:hosts]
    sections, the first word of each its host pattern. `yaml_read`: the
    yaml plugin reads it (a mapping); the INI parser reads it only where
    that fails, and stops at its first line that is no host pattern (a
    YAML key, `all:`): counted up to there, nothing refused."""
    if text.startswith("\ufeff") and not yaml_read:
        raise UserError(f"{what}: it begins with a byte order mark (U+FEFF), which ansible's INI parser reads as "
                        "part of its first line: save it as UTF-8 without one")

    def patterns():
        hosts = True
        for line in text.splitlines():
            line = line.strip()
            if not line or line[0] in "#;":
                continue
            if m := _SECTION.match(line):  # a section: what its lines are
                hosts = m[2] in (None, "hosts")
                continue
            if hosts:
                try:
                    words = shlex.split(line, comments=True)
                except ValueError:
                    words = line.split()  # ansible says what is wrong with the line
                if words:
                    if yaml_read and words[0].endswith(":"):  # ansible's INI parser raises there
                        return
                    yield words[0]
    found = patterns()
    if yaml_read:  # where ansible's expansion of a pattern fails, its INI parser stops: so does the count
        found = itertools.takewhile(_expands, found)
    _count(found, what)


def _expands(pattern: str) -> bool:
    try:
        _hosts_of(pattern)
    except ValueError:
        return False
    return True


def _yaml_error(text: str) -> str:
    """What the YAML parser says of a text it cannot read ('' : it reads it), in one line."""
    import yaml
    try:
        yaml.compose(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except yaml.YAMLError as e:
        return " ".join(str(e).split())[:200]
    except (ValueError, RecursionError) as e:
        return str(e)[:200]
    return ""


def _yaml_nodes(text: str):
    """The YAML document's node graph (aliases are the very nodes they
    name: nothing is copied), or None where it is no YAML."""
    import yaml
    try:
        return yaml.compose(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except (yaml.YAMLError, ValueError, RecursionError):
        return None


def _kids(node) -> list:
    v = node.value
    if isinstance(v, str):  # a scalar
        return []
    return [n for pair in v for n in pair] if node.id == "mapping" else v


def _check_values(root, what: str) -> None:
    """No !vault value; and the values ansible would make of the graph,
    each alias a copy of what it names, at most MAX_ALIASED more than the
    nodes written. Each node sized once (a memo), so the count costs what
    the file's size does, not what it expands to."""
    sizes: dict[int, int] = {}
    stack = [(root, None)]
    while stack:
        node, kids = stack.pop()
        if kids is not None:  # its children sized: its own size
            sizes[id(node)] = 1 + sum(sizes[id(k)] for k in kids)
            continue
        if id(node) in sizes:
            continue
        if node.tag in VAULT_TAGS:
            raise UserError(f"{what}: a vault-encrypted value ({node.tag}) needs ansible's vault, which ctxbench "
                            "does not open: give the value in plain text")
        kids = _kids(node)
        sizes[id(node)] = -1  # open: met again before it is sized, it is inside itself
        stack.append((node, kids))
        for k in kids:
            if sizes.get(id(k)) == -1:
                raise UserError(f"{what}: a YAML alias inside the value it names (a loop): not an inventory")
            if id(k) not in sizes:
                stack.append((k, None))
    if sizes[id(root)] - len(sizes) > MAX_ALIASED:
        raise UserError(f"{what}: its YAML aliases expand to {sizes[id(root)]:.2g} values "
                        f"(more than {MAX_ALIASED} beyond those written): not an inventory ctxbench reads")


MERGE = "tag:yaml.org,2002:merge"


def _pairs(node) -> list:
    """A mapping's (key, value) pairs as ansible's loader makes them: a
    JSON object's items; a YAML mapping's, with those its merge keys
    (`<<: *anchor`, or a list of them) bring in; [] for anything else.
    The merged mappings hold no loop (_check_values refused one)."""
    import yaml
    if isinstance(node, dict):
        return list(node.items())
    if not isinstance(node, yaml.MappingNode):
        return []
    pairs = []
    for k, v in node.value:
        if k.tag == MERGE:
            for m in (v.value if isinstance(v, yaml.SequenceNode) else [v]):
                pairs.extend(_pairs(m))
        else:
            pairs.append((k.value if isinstance(k, yaml.ScalarNode) else None, v))
    return pairs


def _names(node) -> list[str]:
    """The host names a `hosts:` value gives: a mapping's keys, or one
    name as a string (ansible takes that too)."""
    import yaml
    if isinstance(node, (str, yaml.ScalarNode)):
        return [node if isinstance(node, str) else node.value]
    return [str(k) for k, _ in _pairs(node) if k is not None]


def _yaml(text: str, what: str) -> bool:
    """A YAML (or JSON) inventory's checks, whatever the file's name: its
    aliases bounded and its hosts counted (merge keys followed, as
    ansible's loader follows them). True where the yaml plugin reads it as
    an inventory (a mapping); then the INI parser reads it only if that
    plugin fails."""
    try:  # ansible's loader tries JSON first (a key PyYAML would refuse, longer than 1024 characters, is JSON)
        root = json.loads(text)
    except (ValueError, RecursionError):
        root = _yaml_nodes(text)
        if root is None:
            return False
        _check_values(root, what)
    if not _pairs(root):
        return False
    found, seen = [], set()
    for _, g in _pairs(root):
        _group_hosts(g, what, found, seen)
    _count(found, what)
    return True


def _group_hosts(node, what: str, found: list[str], seen: set[int], depth: int = 0) -> None:
    """A group's hosts, and its children's, added to `found` (each node
    once, `seen` by id: aliases repeat none)."""
    if depth > MAX_DEPTH:
        raise UserError(f"{what}: groups nested more than {MAX_DEPTH} deep (children:): not an inventory "
                        "ctxbench reads")
    if id(node) in seen:
        return
    seen.add(id(node))
    for k, v in _pairs(node):
        if k == "hosts" and id(v) not in seen:
            seen.add(id(v))
            found.extend(_names(v))
        elif k == "children":
            for _, sub in _pairs(v):
                _group_hosts(sub, what, found, seen, depth + 1)


def _vars_dirs(folder: str, what: str) -> None:
    """The YAML files ansible reads beside the inventory (group_vars/,
    host_vars/): each checked as the inventory's values are."""
    looked = 0
    for sub in ("group_vars", "host_vars"):
        for top, dirs, files in os.walk(os.path.join(folder, sub)):
            dirs.sort()
            for name in sorted(files):
                looked += 1
                if looked > MAX_VARS_FILES:
                    return
                path = os.path.join(top, name)
                try:
                    text = _text(path, "")
                except UserError as e:
                    raise UserError(f"{what}: {escaped(path)}{e.why}")
                root = _yaml_nodes(text)
                if root is not None:
                    _check_values(root, f"{what}: {escaped(path)}")
