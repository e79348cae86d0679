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


def _int(value, what: str, host: str) -> int | None:
    if value is None:
        return None
    try:
        return int(value)
    except (TypeError, ValueError):
        raise UserError(f"fleet: inventory host {escaped(host)}: {what} {escaped(str(value))} is not a number")


def _reason(said: str, e: Exception) -> str:
    """The line of ansible's words that says what is wrong with the file."""
    for line in said.splitlines() + str(e).splitlines():
        line = line.strip()
        if line.startswith("Failed to parse inventory:") or line.startswith("Invalid"):
            return escaped(line)
    return escaped(str(e).splitlines()[0] if str(e) else type(e).__name__)


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
    said = io.StringIO()
    with contextlib.redirect_stderr(said), contextlib.redirect_stdout(said), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from ansible.inventory.manager import InventoryManager
        from ansible.parsing.dataloader import DataLoader
        from ansible.vars.manager import VariableManager
        loader = DataLoader()
        try:
            inv = InventoryManager(loader=loader, sources=[path])
        except Exception as e:  # ansible's own AnsibleError family, for a file it cannot read
            raise UserError(f"fleet: inventory {escaped(path)}: {_reason(said.getvalue(), e)}")
    chosen = inv.get_hosts(limit) if limit else inv.get_hosts()
    if not chosen:
        raise UserError(f"fleet: inventory {escaped(path)}: no host" + (f" matches {escaped(limit)}" if limit
                                                                          else " (not an inventory Ansible reads?)"))
    vm = VariableManager(loader=loader, inventory=inv)
    out = []
    for h in chosen:
        v = vm.get_vars(host=h)
        out.append(Host(h.name, str(v.get("ansible_host") or h.name), _int(v.get("ansible_port"), "port", h.name),
                        v.get("ansible_user"), v.get("ansible_ssh_private_key_file"),
                        _int(v.get("ctxbench_cpu"), "ctxbench_cpu", h.name),
                        tuple(g.name for g in h.get_groups() if g.name != "all")))
    return out
