"""The hosts of a fleet run: given on the command line (`[user@]host[:port]`)
or read from an Ansible inventory (INI or YAML, with groups and per-host
variables) by ansible-core's own inventory parser, so that what Ansible
reads from a file is what ctxbench reads. Per-host variables used:
ansible_host, ansible_port, ansible_user, ansible_ssh_private_key_file and
ctxbench_cpu (the CPU to measure).

Everything read is checked and made plain here, at the edge: the values
are plain str and int (ansible-core 2.19 gives tagged strings, which no
encoder downstream takes); an address is a host name or an IP address and
a user a user name, never shell syntax (an ssh config's ProxyCommand may
put %h and %r into `sh -c`); a port is 1..65535; only ansible-core's INI
and YAML parsers read an inventory (its script plugin would run an
executable file); an ssh config is a regular file (a FIFO would be waited
on for ever)."""
from __future__ import annotations

import contextlib
import io
import ipaddress
import os
import re
import stat
import unicodedata
import warnings
from dataclasses import dataclass
from types import MappingProxyType

from ctxbench.core.errors import UserError, escaped, file_kind

_SPEC = re.compile(r"^(?:(?P<user>[^@]*)@)?(?P<host>\[[^\]]*\]|[^:@]*)(?::(?P<port>\d{1,5}))?$")
_ZONE = re.compile(r"[A-Za-z0-9._-]{1,64}")  # an IPv6 scope (fe80::1%eth0)


def _word_char(c: str) -> bool:
    """A character of a host name, an ssh config alias, an IPv4 address or
    a user name: a letter, digit or mark of any script (büro), '.', '-',
    '_'. Never punctuation or a symbol the shell reads, a space, a control
    or a format character (bidi)."""
    return c in "._-" or unicodedata.category(c)[0] in "LNM"


def _word_problem(text: str, what: str, longest: int) -> str | None:
    """Why `text` is no host name (`what`) or user name, None if it is one.
    Never starting with '-' (an option to a ProxyCommand) or '.'."""
    if not text:
        return "empty"
    bad = next((c for c in text if not _word_char(c)), None)
    if bad is not None:
        return f"{'a space' if bad == ' ' else shown(bad)} is not a character of a {what}"
    if text[0] in "-.":
        return f"it starts with {shown(text[0])}"
    if len(text) > longest:
        return f"longer than {longest} characters"
    return None


def escaped_name(text: str) -> str:
    """A name as the terminal may show it: escaped (core/errors), and its
    invisible format characters too (a right-to-left override, U+202E,
    reorders what follows it; zero-width ones hide), as \\uXXXX."""
    return escaped("".join((f"\\u{ord(c):04x}" if ord(c) <= 0xffff else f"\\U{ord(c):08x}")
                           if unicodedata.category(c) in ("Cf", "Zl", "Zp") else c for c in str(text)))


def shown(text: str) -> str:
    """A name quoted and escaped, for a message."""
    return f"'{escaped_name(text)}'"


@dataclass(frozen=True)
class Host:
    name: str                   # as the user calls it (inventory name or the spec)
    address: str                # what SSH connects to (ssh config's HostName may still map it)
    port: int | None = None     # None: ssh config's, else 22
    user: str | None = None     # None: ssh config's, else the local user
    key: str | None = None      # an identity file; None: agent and ssh config's
    cpu: int | None = None      # the CPU to measure; None: the engine's default (highest allowed)
    groups: tuple[str, ...] = ()
    refused: str = ""           # why this inventory host is not contacted ('' : it is): its row says it


def address_problem(address: str) -> str | None:
    """Why `address` is no host name or IP address (None: it is one)."""
    if ":" in address:
        ip, _, zone = address.partition("%")
        try:
            ipaddress.IPv6Address(ip)
            if not zone or _ZONE.fullmatch(zone):
                return None
        except ValueError:
            pass
        return "not an IPv6 address"
    why = _word_problem(address, "host name", 253)
    if why is None:
        try:  # the resolver's encoding: else a Python UnicodeError when connecting
            address.encode("idna")
        except UnicodeError:
            why = "a label (between dots) is empty or longer than 63 characters once encoded (IDNA)"
    return why


def user_problem(user: str) -> str | None:
    """Why `user` is no user name (None: it is one)."""
    return _word_problem(user, "user name", 256)


def from_spec(spec: str) -> Host:
    """A host as ssh takes it, `[user@]host[:port]` (an IPv6 address in
    brackets): shell metacharacters, spaces, control and bidi characters
    are refused in one line, the spec escaped."""
    def bad(why: str) -> UserError:
        return UserError(f"fleet: {shown(spec)} is not a host ([user@]host[:port]): {why}")
    m = _SPEC.match(spec)
    if not m:
        raise bad("not of that form")
    host = m["host"]
    if host.startswith("[") and host.endswith("]"):
        why = address_problem(host[1:-1]) if ":" in host else "brackets are for an IPv6 address"
    else:
        why = address_problem(host)
    if why:
        raise bad(f"its host: {why}")
    if m["user"] is not None and (why := user_problem(m["user"])):
        raise bad(f"its user: {why}")
    port = int(m["port"]) if m["port"] else None
    if port is not None and not 0 < port < 65536:
        raise UserError(f"fleet: {shown(spec)}: port {port} is out of range (1 to 65535)")
    return Host(spec, host.strip("[]"), port, m["user"])


def regular(path: str, what: str = "--ssh-config") -> os.stat_result:
    """`path` is a regular file (or /dev/null, as ssh -F takes it), seen
    without opening it: a FIFO would be waited on for ever, a device read
    for ever. `what` names it in the line (--ssh-config, IdentityFile)."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise UserError(f"{what} {shown(path)}: no such file")
    except OSError as e:
        raise UserError(f"{what} {shown(path)}: {e.strerror or e}")
    if stat.S_ISREG(st.st_mode):
        return st
    with contextlib.suppress(OSError):
        if os.path.samestat(st, os.stat(os.devnull)):
            return st
    raise UserError(f"{what} {shown(path)}: not a regular file ({file_kind(st.st_mode)})")


def config_files(given: list[str] | None) -> tuple[str, ...]:
    """The ssh config files asyncssh reads: those given (each a regular
    file, else one line), else ~/.ssh/config when there is one."""
    if given:
        for path in given:
            regular(path)
        return tuple(given)
    home = os.path.expanduser("~/.ssh/config")
    return (home,) if os.path.isfile(home) else ()


def _plain(value):
    """A value read from an inventory as plain Python (ansible-core 2.19's
    tagged str, int, list and dict subclasses made their base types)."""
    if value is None or type(value) in (str, int, float):
        return value
    if isinstance(value, bool):
        return bool(value)
    if isinstance(value, str):
        return str.__str__(value)
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        return float(value)
    if isinstance(value, dict):
        return {_plain(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [_plain(v) for v in value]
    return str.__str__(str(value))


def _int(value, what: str, host: str) -> int | None:
    """A whole number from an inventory (an int, or a string of digits);
    anything else is one line naming the host."""
    if value is None or value == "":
        return None
    text = str(value).strip() if isinstance(value, (int, str)) and not isinstance(value, bool) else ""
    if not re.fullmatch(r"[+-]?[0-9]{1,18}", text):
        raise UserError(f"fleet: inventory host {shown(host)}: {what} {shown(str(value))} is not a whole number")
    return int(text)


# The parser whose words say what is wrong with a file: ansible tries each
# inventory plugin in turn, and a YAML file's error is in the yaml plugin's
# words, not in those of the INI parser that tried it after.
PLUGIN_BY_EXT = MappingProxyType({".yml": "yaml", ".yaml": "yaml", ".json": "yaml"})
# The only parsers an inventory meets: ansible-core's file formats ctxbench
# documents (its default list also holds `script`, which runs an executable
# inventory, and `auto`, which loads the plugin a YAML file names).
PLUGINS = ("yaml", "ini")


def _reason(said: str, e: Exception, path: str) -> str:
    """The line of ansible's words that says what is wrong with the file."""
    plugin = PLUGIN_BY_EXT.get(os.path.splitext(path)[1].lower(), "ini")
    lines = [line.strip() for line in said.splitlines() + str(e).splitlines()]
    mark = f"with '{plugin}' plugin:"
    for i, line in enumerate(lines):
        if mark in line:
            text = line.split(mark, 1)[1].strip()
            where = next((m.group(1) for later in lines[i + 1:i + 12]
                          if (m := re.search(r"^Origin: .*:(\d+):\d+$", later))), None)
            return escaped(text + (f" (line {where})" if where else ""))
    for line in lines:
        if line.startswith("Failed to parse inventory:") or line.startswith("Invalid"):
            return escaped(line)
    return escaped(str(e).splitlines()[0] if str(e) else type(e).__name__)


def _check_limit(limit: str) -> None:
    """A --limit Ansible would read as something else than was written is
    refused: empty, or with characters its parser drops ('[' alone gives
    no pattern, which Ansible reads as every host)."""
    from ansible.inventory.manager import split_host_pattern
    if not limit.strip():
        raise UserError("fleet: --limit '': an empty pattern (leave --limit out for every host)")
    patterns = split_host_pattern(limit)
    kept = re.sub(r"[\s,:]", "", "".join(patterns))
    if not patterns or kept != re.sub(r"[\s,:]", "", limit) or any(p.strip() in ("~", "!", "&", "!~", "&~")
                                                                   for p in patterns):
        raise UserError(f"fleet: --limit {escaped(limit)}: not a host pattern Ansible reads as written "
                        "(a group, a host, a glob like web-*, a:b, a:!b, ~regex)")


def _manager(loader, path: str):
    """ansible-core's InventoryManager, with only the INI and YAML parsers
    (whatever ansible.cfg or ANSIBLE_INVENTORY_ENABLED enable)."""
    from ansible.inventory.manager import InventoryManager
    from ansible.plugins.loader import inventory_loader

    class Files(InventoryManager):
        def _fetch_inventory_plugins(self):
            return [p for p in (inventory_loader.get(name) for name in PLUGINS) if p]

    return Files(loader=loader, sources=[path])


def _host(h, v: dict) -> Host:
    """One inventory host, its variables `v` (plain): a port outside
    1..65535, a CPU or a key that is no number or file name is one line;
    an address or user that is no host name or user name costs the host
    its row (it is never contacted)."""
    name = _plain(h.name)
    port = _int(v.get("ansible_port"), "ansible_port", name)
    if port is not None and not 1 <= port <= 65535:
        raise UserError(f"fleet: inventory host {shown(name)}: ansible_port {port} is out of range (1 to 65535)")
    cpu = _int(v.get("ctxbench_cpu"), "ctxbench_cpu", name)
    if cpu is not None and cpu < 0:
        raise UserError(f"fleet: inventory host {shown(name)}: ctxbench_cpu {cpu} is not a CPU number")
    key = v.get("ansible_ssh_private_key_file")
    if key not in (None, "") and not isinstance(key, str):
        raise UserError(f"fleet: inventory host {shown(name)}: ansible_ssh_private_key_file "
                        f"{shown(str(key))} is not a file name")
    address = v.get("ansible_host")
    address = name if address in (None, "") else str(address)
    user = v.get("ansible_user")
    user = None if user in (None, "") else str(user)
    refused = ""
    if why := address_problem(address):
        refused = f"its address {shown(address)} is not a host name or IP address: {why} (ansible_host)"
    elif user is not None and (why := user_problem(user)):
        refused = f"its user {shown(user)} is not a user name: {why} (ansible_user)"
    return Host(name, address, port, user, os.path.expanduser(key) if key else None, cpu,
                tuple(_plain(g.name) for g in h.get_groups() if g.name != "all"), refused)


def from_inventory(path: str, limit: str | None = None) -> list[Host]:
    """Every host of the inventory (or of the group or host `limit`
    names), with its variables merged as Ansible merges them (group vars,
    then host vars), as plain Python values."""
    if not os.path.isfile(path):
        raise UserError(f"fleet: inventory {escaped(path)}: no such file")
    # ansible-core reads its settings from the environment: a source it cannot
    # parse is an error (not a warning and an empty inventory), and it says
    # nothing on the terminal; its words are kept for the one line below
    os.environ["ANSIBLE_INVENTORY_UNPARSED_FAILED"] = "True"
    os.environ["ANSIBLE_LOCALHOST_WARNING"] = "False"
    os.environ["ANSIBLE_HOST_PATTERN_MISMATCH"] = "ignore"  # a --limit that matches nothing: said here, once
    said = io.StringIO()
    with contextlib.redirect_stderr(said), contextlib.redirect_stdout(said), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from ansible.parsing.dataloader import DataLoader
        from ansible.vars.manager import VariableManager
        if limit is not None:
            _check_limit(limit)
        loader = DataLoader()
        try:
            inv = _manager(loader, path)
        except Exception as e:  # ansible's own AnsibleError family, for a file it cannot read
            run = " (an executable inventory is not run: ctxbench reads INI and YAML files)" \
                if os.access(path, os.X_OK) else ""
            raise UserError(f"fleet: inventory {escaped(path)}: {_reason(said.getvalue(), e, path)}{run}")
        try:
            chosen = inv.get_hosts(limit) if limit is not None else inv.get_hosts()
        except Exception as e:  # noqa: BLE001 (ansible's AnsibleError: an invalid regular expression)
            raise UserError(f"fleet: --limit {escaped(limit or '')}: {escaped(str(e).splitlines()[0])}")
        if not chosen:
            raise UserError(f"fleet: inventory {escaped(path)}: no host" + (
                f" matches {escaped(limit)}" if limit is not None else " (not an inventory Ansible reads?)"))
        vm = VariableManager(loader=loader, inventory=inv)
        used = ("ansible_host", "ansible_port", "ansible_user", "ansible_ssh_private_key_file", "ctxbench_cpu")
        return [_host(h, {k: _plain(v[k]) for k in used if k in v}) for h in chosen for v in [vm.get_vars(host=h)]]
