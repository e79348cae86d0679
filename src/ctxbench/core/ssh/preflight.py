"""What asyncssh will read here for a `--host` connection, checked before
it reads it: the ssh config parsed for the host as asyncssh parses it
(asyncssh.config; a file that is no UTF-8, an Include loop, a Port out of
range are one line naming the file), then each file it names that asyncssh
would open (IdentityFile and its .pub and -cert.pub, CertificateFile,
UserKnownHostsFile, GlobalKnownHostsFile, else the default ~/.ssh/id_* and
~/.ssh/known_hosts): a regular file, a key no larger than any key. A FIFO
would be waited on for ever, /dev/zero read until memory runs out. Each
key is read here once: one that is no key is one line naming it, and a
passphrase-protected one (asyncssh skips it: ctxbench asks for no
passphrase) is remembered, so that a refusal can say why."""
from __future__ import annotations

import getpass
import os
from dataclasses import dataclass, field
from pathlib import Path

from ctxbench.core.errors import UserError, escaped
from ctxbench.core.ssh.hosts import Host, regular, shown

KEY_MAX = 1 << 20  # bytes: no key or certificate comes near it
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

    return Config


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


def _small(path: str, what: str) -> bool:
    """`path` is a regular file no larger than a key (False: there is
    none, which the caller may allow); else one line."""
    if not os.path.lexists(path):
        return False
    if regular(path, what).st_size > KEY_MAX:
        raise UserError(f"{what} {shown(path)}: larger than any key ({os.path.getsize(path)} bytes)")
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


def check(host: Host, paths: tuple[str, ...]) -> Checked:
    """Every file asyncssh will read for `host` checked, before it reads
    any (core/ssh/session.py calls this before connecting)."""
    cfg = config(host, paths)
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
            regular(path, what)
            checked.known_hosts.append(path)
    return checked
