"""The hosts of a fleet run: given on the command line (`[user@]host[:port]`)
or read from an Ansible inventory (INI or YAML, with groups and per-host
variables) by ansible-core's own inventory parser, so that what Ansible
reads from a file is what ctxbench reads. Per-host variables used:
ansible_host, ansible_port, ansible_user, ansible_ssh_private_key_file and
ctxbench_cpu (the CPU to measure)."""
from __future__ import annotations

import contextlib
import io
import os
import re
import warnings
from dataclasses import dataclass

from ctxbench.core.errors import UserError, escaped

_SPEC = re.compile(r"^(?:(?P<user>[^@\s]+)@)?(?P<host>\[[0-9a-fA-F:.]+\]|[^:\s@]+)(?::(?P<port>\d{1,5}))?$")


@dataclass(frozen=True)
class Host:
    name: str                   # as the user calls it (inventory name or the spec)
    address: str                # what SSH connects to (ssh config's HostName may still map it)
    port: int | None = None     # None: ssh config's, else 22
    user: str | None = None     # None: ssh config's, else the local user
    key: str | None = None      # an identity file; None: agent and ssh config's
    cpu: int | None = None      # the CPU to measure; None: the engine's default (highest allowed)
    groups: tuple[str, ...] = ()


def from_spec(spec: str) -> Host:
    m = _SPEC.match(spec.strip())
    if not m:
        raise UserError(f"fleet: {escaped(spec)} is not a host ([user@]host[:port])")
    port = int(m["port"]) if m["port"] else None
    if port is not None and not 0 < port < 65536:
        raise UserError(f"fleet: {escaped(spec)}: port {port} is out of range")
    return Host(spec, m["host"].strip("[]"), port, m["user"])


def config_files(given: list[str] | None) -> tuple[str, ...]:
    """The ssh config files asyncssh reads: those given, else
    ~/.ssh/config when there is one."""
    if given:
        return tuple(given)
    home = os.path.expanduser("~/.ssh/config")
    return (home,) if os.path.isfile(home) else ()


def _int(value, what: str, host: str) -> int | None:
    if value is None:
        return None
    try:
        return int(value)
    except (TypeError, ValueError):
        raise UserError(f"fleet: inventory host {escaped(host)}: {what} {escaped(str(value))} is not a number")


# The parser whose words say what is wrong with a file: ansible tries each
# inventory plugin in turn, and a YAML file's error is in the yaml plugin's
# words, not in those of the INI parser that tried it after.
PLUGIN_BY_EXT = {".yml": "yaml", ".yaml": "yaml", ".json": "yaml", ".toml": "toml"}


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


def from_inventory(path: str, limit: str | None = None) -> list[Host]:
    """Every host of the inventory (or of the group or host `limit`
    names), with its variables merged as Ansible merges them (group vars,
    then host vars)."""
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
        from ansible.inventory.manager import InventoryManager
        from ansible.parsing.dataloader import DataLoader
        from ansible.vars.manager import VariableManager
        if limit is not None:
            _check_limit(limit)
        loader = DataLoader()
        try:
            inv = InventoryManager(loader=loader, sources=[path])
        except Exception as e:  # ansible's own AnsibleError family, for a file it cannot read
            raise UserError(f"fleet: inventory {escaped(path)}: {_reason(said.getvalue(), e, path)}")
        try:
            chosen = inv.get_hosts(limit) if limit is not None else inv.get_hosts()
        except Exception as e:  # noqa: BLE001 (ansible's AnsibleError: an invalid regular expression)
            raise UserError(f"fleet: --limit {escaped(limit or '')}: {escaped(str(e).splitlines()[0])}")
        if not chosen:
            raise UserError(f"fleet: inventory {escaped(path)}: no host" + (
                f" matches {escaped(limit)}" if limit is not None else " (not an inventory Ansible reads?)"))
        vm = VariableManager(loader=loader, inventory=inv)
        out = []
        for h in chosen:
            v = vm.get_vars(host=h)
            key = v.get("ansible_ssh_private_key_file")
            out.append(Host(h.name, str(v.get("ansible_host") or h.name), _int(v.get("ansible_port"), "port", h.name),
                            str(v["ansible_user"]) if v.get("ansible_user") not in (None, "") else None,
                            os.path.expanduser(str(key)) if key else None,
                            _int(v.get("ctxbench_cpu"), "ctxbench_cpu", h.name),
                            tuple(g.name for g in h.get_groups() if g.name != "all")))
    return out
