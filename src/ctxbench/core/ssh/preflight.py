"""What asyncssh will read here for a `--host` connection, checked before
it reads it: the ssh config parsed for the host as asyncssh parses it
(asyncssh.config; a file that is no UTF-8, an Include loop, a Port out of
range are one line naming the file), then each file it names that asyncssh
would open (IdentityFile and its .pub and -cert.pub, CertificateFile,
UserKnownHostsFile, GlobalKnownHostsFile, else the default ~/.ssh/id_* and
~/.ssh/known_hosts): a regular file, a key no larger than any key. A FIFO
would be waited on for ever, /dev/zero read until memory runs out; a
regular file is bounded by size before it is read (a sparse file of GiBs
costs no disk: keys KEY_MAX, known hosts KNOWN_MAX, each config file
and each it Includes CONFIG_MAX). A ProxyJump host's files are checked
the same way (asyncssh connects to it with the same config). A Match exec
runs bounded (EXEC_S) in a process group of its own, ended with it. Each
key is read here once: one that is no key is one line naming it, and a
passphrase-protected one (asyncssh skips it: ctxbench asks for no
passphrase) is remembered, so that a refusal can say why."""
from __future__ import annotations

import getpass
import os
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from ctxbench.core.errors import UserError, escaped
from ctxbench.core.children import child_setup, kill_group
from ctxbench.core.ssh.hosts import Host, regular, shown

KEY_MAX = 1 << 20  # bytes: no key or certificate comes near it
KNOWN_MAX = 64 << 20  # bytes: about 100,000 hosts' keys; asyncssh reads the file whole
CONFIG_MAX = 4 << 20  # bytes: an ssh config file (each Included one too); asyncssh reads it line by line, a
#                       file of zeros is one line
EXEC_S = 10  # seconds a Match exec may take (ssh itself waits for ever; a ProxyCommand has the connect's 20 s)
JUMPS_MAX = 8  # ProxyJump hosts followed from one host, each hop's own ProxyJump counted
DEFAULT_KEYS = ("id_ed25519_sk", "id_ecdsa_sk", "id_ed448", "id_ed25519", "id_ecdsa", "id_rsa", "id_dsa")


@dataclass
class Checked:
    """What the checks found: where known_hosts is looked up, and the
    keys asyncssh will skip for their passphrase."""
    host: str = ""                   # the name known_hosts is matched against (HostKeyAlias, HostName)
    port: int = 22
    known_hosts: list[str] = field(default_factory=list)
    encrypted: list[str] = field(default_factory=list)

    def key_known(self) -> str:
        """The known_hosts file that holds a key for this host ('' : none
        does): a key that is not verified then is a key that changed."""
        import asyncssh
        for path in self.known_hosts:
            try:
                found = asyncssh.read_known_hosts(path).match(self.host, "", self.port if self.port != 22 else None)
            except (OSError, ValueError, asyncssh.KeyImportError):
                continue
            if found[0] or found[1]:  # host keys, CA keys
                return path
        return ""


def _config_class():
    from asyncssh.config import SSHClientConfig

    class Config(SSHClientConfig):
        """asyncssh's parser, with a Port out of range said where it is
        (asyncssh takes any int, and the socket then raises OverflowError)."""

        def _set_port(self, option, args):
            text = args[0]
            SSHClientConfig._set_int(self, option, args)  # not a whole number: its own error
            if not 1 <= int(text) <= 65535:
                self._error(f"Port {text} is out of range (1 to 65535)")

        _handlers = {**SSHClientConfig._handlers, "port": ("Port", _set_port)}

        def parse(self, path):
            # every file, the given ones and each an Include pulls in, is bounded before it is read
            _bounded(str(path), "ssh config", CONFIG_MAX, "larger than any ssh config")
            SSHClientConfig.parse(self, path)

    # asyncssh runs a Match exec with no bound, here and again in asyncssh.connect (both parse the config)
    import asyncssh.config
    asyncssh.config._exec = _exec
    return Config


def _exec(cmd: str) -> bool:
    """A Match exec (asyncssh.config's, with the same answer: exit status
    0), bounded by EXEC_S and in a process group of its own that is killed
    when it is not done: at the bound, on Ctrl-C/SIGTERM, or (a parent-death
    signal) when the front end dies. A command that hangs is one line."""
    p = subprocess.Popen(cmd, shell=True, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL, start_new_session=True,
                         preexec_fn=child_setup(tuple(os.sched_getaffinity(0)), os.getpid()))
    try:
        return p.wait(EXEC_S) == 0
    except subprocess.TimeoutExpired:
        raise UserError(f"ssh config: Match exec {shown(cmd)} did not finish in {EXEC_S} s") from None
    finally:
        if p.returncode is None:  # not reaped: its pid is still its group's number
            kill_group(p.pid)
            p.wait()


def config(host: Host, paths: tuple[str, ...]):
    """The ssh config for `host`, as asyncssh.connect reads it; a file it
    cannot read is one line naming the file."""
    from asyncssh.config import ConfigParseError
    cfg = _config_class()(None, False, False, False, getpass.getuser(), host.user or (), host.address,
                          host.port or ())
    for p in paths:
        try:
            cfg.parse(Path(p))
        except ConfigParseError as e:  # its text names the file and the line
            raise UserError(f"ssh config: {escaped(str(e))}")
        except UnicodeDecodeError as e:
            raise UserError(f"ssh config {shown(str(cfg._path))}: not UTF-8 text (byte 0x{e.object[e.start]:02x} at "
                            f"offset {e.start})")
        except RecursionError:
            raise UserError(f"ssh config {shown(str(cfg._path))}: it Includes itself (an Include loop)")
        except OSError as e:
            raise UserError(f"ssh config {shown(str(cfg._path))}: {e.strerror or e}")
    return cfg


def _bounded(path: str, what: str, limit: int, than: str) -> None:
    """`path` is a regular file of at most `limit` bytes, seen by stat
    before anything reads it; else one line that says the bound."""
    size = regular(path, what).st_size
    if size > limit:
        raise UserError(f"{what} {shown(path)}: {than} ({size} bytes; ctxbench reads at most {limit >> 20} MiB)")


def _small(path: str, what: str) -> bool:
    """`path` is a regular file no larger than a key (False: there is
    none, which the caller may allow); else one line."""
    if not os.path.lexists(path):
        return False
    _bounded(path, what, KEY_MAX, "larger than any key")
    return True


def _key(path: str, checked: Checked, named: bool) -> None:
    """A private key asyncssh can read, or a public one (IdentitiesOnly
    picks the agent's key by it); a passphrase-protected key is noted. A
    default key (not `named`) that is neither is asyncssh's to judge (one
    of a type it skips, id_*_sk without a security key library)."""
    import asyncssh
    with open(path, "rb") as f:
        data = f.read(KEY_MAX + 1)
    try:
        asyncssh.import_private_key(data)
        return
    except asyncssh.KeyImportError as e:
        if str(e).startswith("Passphrase"):
            checked.encrypted.append(path)
            return
        why = str(e)
    try:
        asyncssh.import_public_key(data)
    except asyncssh.KeyImportError:
        if named:
            raise UserError(f"IdentityFile {shown(path)}: not a key ctxbench can read ({escaped(why)})")


def check(host: Host, paths: tuple[str, ...], _seen: list[str] | None = None) -> Checked:
    """Every file asyncssh will read for `host` checked, before it reads
    any (core/ssh/session.py calls this before connecting), and those of
    each ProxyJump host on the way, as asyncssh will connect to them
    (JUMPS_MAX of them in all: `_seen`, the hops checked so far)."""
    cfg = config(host, paths)
    seen = [] if _seen is None else _seen
    jumps = cfg.get("ProxyJump")
    if isinstance(jumps, str) and jumps.lower() != "none":
        for hop in jumps.split(","):  # as asyncssh's _open_tunnel splits it
            if hop in seen:  # a loop: asyncssh's connect fails on it, not on a file
                continue
            if len(seen) >= JUMPS_MAX:
                raise UserError(f"ssh config: ProxyJump from {shown(host.name)} goes through more than {JUMPS_MAX} "
                                "hosts")
            seen.append(hop)
            user, _, name = hop.rpartition("@")
            name, _, port = name.rpartition(":") if ":" in name else (name, "", "")
            try:
                check(Host(hop, name, int(port) if port.isdigit() else None, user or None), paths, seen)
            except UserError as e:
                if str(e).startswith(("ProxyJump", "ssh config")):  # a deeper hop's, or the config's: said
                    raise
                raise UserError(f"ProxyJump host {shown(hop)}: {e}", e.code) from None
    ssh = Path("~", ".ssh").expanduser()
    checked = Checked(str(cfg.get("HostKeyAlias") or cfg.get("Hostname") or host.address), cfg.get("Port") or 22)
    named = [host.key] if host.key else list(cfg.get("IdentityFile") or [])
    for path in [os.path.expanduser(k) for k in named] or [str(ssh / k) for k in DEFAULT_KEYS]:
        if not _small(path, "IdentityFile"):
            if named:  # asyncssh fails on a key file named that is not there
                raise UserError(f"IdentityFile {shown(path)}: no such file")
            continue
        _key(path, checked, bool(named))
        for other in (path + ".pub", path + "-cert.pub"):
            _small(other, "IdentityFile")
    for path in cfg.get("CertificateFile") or []:
        _small(os.path.expanduser(path), "CertificateFile")
    user = cfg.get("UserKnownHostsFile")
    known = [("UserKnownHostsFile", k) for k in (user if user is not None else [str(ssh / "known_hosts")])]
    for what, path in known + [("GlobalKnownHostsFile", k) for k in cfg.get("GlobalKnownHostsFile") or []]:
        path = os.path.expanduser(path)
        if os.path.lexists(path):
            _bounded(path, what, KNOWN_MAX, "larger than any known hosts file")
            checked.known_hosts.append(path)
    return checked
