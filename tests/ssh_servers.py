"""Real OpenSSH servers for the fleet's tests (Debian's openssh-server,
which `make test` installs): each its own sshd on a free loopback port,
with its own host key, a key it authorises, and a private TMPDIR (sshd's
SetEnv) where a fleet run makes its temporary directory, so a test can see
what was left behind. Stopped and removed by the fixture that made them.
As root, since sshd's privilege separation needs it."""
from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

SSHD = "/usr/sbin/sshd"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _listens(pid: int, port: int) -> bool:
    """Whether process `pid` holds the socket listening on 127.0.0.1:`port`
    (a port free when chosen can be another's by the time sshd binds it:
    then a connection reaches the other server, and sshd exits)."""
    want = f"0100007F:{port:04X}"
    rows = [line.split() for line in Path("/proc/net/tcp").read_text().splitlines()[1:]]
    sockets = {f"socket:[{r[9]}]" for r in rows if r[1] == want and r[3] == "0A"}
    try:
        fds = os.listdir(f"/proc/{pid}/fd")
    except OSError:
        return False
    for fd in fds:
        try:
            if os.readlink(f"/proc/{pid}/fd/{fd}") in sockets:
                return True
        except OSError:
            pass
    return False


def keygen(path: Path) -> str:
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(path)], check=True)
    return (path.with_suffix(".pub") if path.suffix else Path(str(path) + ".pub")).read_text().strip()


# A private binfmt_misc (user namespaces have their own since Linux 6.7) where
# aarch64 ELF files run under qemu-user: an "aarch64 host" on this machine.
AARCH64_BINFMT = (r":qemu-aarch64:M::\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x02\x00\xb7\x00:"
                  r"\xff\xff\xff\xff\xff\xff\xff\x00\xff\xff\xff\xff\xff\xff\xff\xff\xfe\xff\xff\xff:"
                  "{qemu}:F")


EMULATED = {"aarch64"}  # architectures whose binaries the namespace runs under qemu-user


class Server:
    def __init__(self, root: Path, name: str, authorised: str, arch: str | None = None, hostname: str | None = None,
                 chatter: bool = False):
        self.name, self.dir = name, root / name
        self.tmp = self.dir / "tmp"
        self.tmp.mkdir(parents=True)
        self.port = _free_port()
        self.host_key = self.dir / "host_key"
        self.host_pub = keygen(self.host_key)
        (self.dir / "authorized_keys").write_text(authorised + "\n")
        self.config = self.dir / "sshd_config"
        self.config.write_text(
            f"Port {self.port}\nListenAddress 127.0.0.1\nHostKey {self.host_key}\nPidFile {self.dir}/pid\n"
            f"AuthorizedKeysFile {self.dir}/authorized_keys\nPasswordAuthentication no\n"
            "KbdInteractiveAuthentication no\nUsePAM no\nStrictModes no\nPermitRootLogin prohibit-password\n"
            f"SetEnv TMPDIR={self.tmp}\nSubsystem sftp internal-sftp\nLogLevel ERROR\nMaxStartups 64\n")
        self.proc: subprocess.Popen | None = None
        self.mounted = False
        self.arch = arch
        self.hostname = hostname  # its sessions' hostname (a UTS namespace of its own): not this machine's
        if chatter:  # the account's shell prints before every command (bash reads $BASH_ENV when it runs one)
            rc = self.dir / "rc"
            rc.write_text("echo 'Welcome to the lab.'\necho 'ctxbench is a fine tool'\n")
            self.config.write_text(self.config.read_text().replace("SetEnv TMPDIR=", f"SetEnv BASH_ENV={rc} TMPDIR="))
        if arch:
            # `uname -m` says `arch` in its sessions, and its user namespace runs
            # that architecture's binaries under qemu-user
            shim = self.dir / "bin"
            shim.mkdir()
            (shim / "uname").write_text(f"#!/bin/sh\n[ \"$1\" = -m ] && echo {arch} && exit 0\nexec /bin/uname \"$@\"\n")
            (shim / "uname").chmod(0o755)
            self.config.write_text(self.config.read_text().replace(
                "SetEnv TMPDIR=", f"SetEnv PATH={shim}:/usr/bin:/bin TMPDIR="))

    def _argv(self) -> list[str]:
        sshd = [SSHD, "-D", "-e", "-f", str(self.config)]
        if self.hostname:
            sshd = ["unshare", "--uts", "sh", "-c", f"hostname {self.hostname} && exec \"$@\"", "sh", *sshd]
        if self.arch not in EMULATED:
            return sshd  # no host or an architecture only `uname -m` claims (no engine is built for it)
        qemu = shutil.which(f"qemu-{self.arch}")
        if not qemu or not shutil.which("unshare"):
            pytest.skip(f"no qemu-{self.arch} or unshare (make test installs qemu-user)")
        register = AARCH64_BINFMT.format(qemu=qemu)
        # the namespace waits until this side has written its id maps (all of
        # root's first 65536 ids: sshd switches to its own user)
        script = ("until grep -q . /proc/self/uid_map; do sleep 0.01; done; "
                  "mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc && "
                  f"printf '%s' '{register}' > /proc/sys/fs/binfmt_misc/register && exec \"$@\"")
        return ["unshare", "--user", "--mount", "sh", "-c", script, "sh", *sshd]

    def start(self) -> "Server":
        for _ in range(5):  # another port when another process took this one first
            self.proc = subprocess.Popen(self._argv(), stdout=subprocess.DEVNULL, stderr=open(self.dir / "log", "w"))
            if self.arch in EMULATED:
                time.sleep(0.05)  # unshare has made the namespace and exec'd the waiting shell
                for f in ("uid_map", "gid_map"):
                    Path(f"/proc/{self.proc.pid}/{f}").write_text("0 0 65536\n")
            deadline = time.monotonic() + 20
            while time.monotonic() < deadline and self.proc.poll() is None:
                if _listens(self.proc.pid, self.port):
                    return self
                time.sleep(0.05)
            log = (self.dir / "log").read_text()
            if self.proc.poll() is None or "bind" not in log.lower():
                break
            old, self.port = self.port, _free_port()
            self.config.write_text(self.config.read_text().replace(f"Port {old}\n", f"Port {self.port}\n"))
        raise RuntimeError(f"sshd {self.name} did not listen in 20 s: {(self.dir / 'log').read_text()[-500:]}")

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if self.mounted:
            subprocess.run(["umount", "-l", str(self.tmp)], check=False)
            self.mounted = False

    def fill_disk(self) -> None:
        """TMPDIR on a tiny tmpfs, filled: the engine cannot be copied there."""
        subprocess.run(["mount", "-t", "tmpfs", "-o", "size=512k", "tmpfs", str(self.tmp)], check=True)
        self.mounted = True
        subprocess.run(["dd", "if=/dev/zero", f"of={self.tmp}/fill", "bs=4k"], capture_output=True)

    def left(self) -> list[str]:
        """What a fleet run left in this server's TMPDIR."""
        return sorted(p.name for p in self.tmp.iterdir() if p.name != "fill") if self.tmp.exists() else []


class Fleet:
    """n servers, a client key they authorise, an ssh config naming each
    (Host <name>), and known_hosts holding their host keys."""

    def __init__(self, n: int, arch: dict[int, str] | None = None, hostnames: dict[int, str] | None = None,
                 chatter: bool = False):
        if os.geteuid() != 0:
            pytest.skip("sshd's privilege separation needs root")
        if not os.path.exists(SSHD):
            pytest.skip("no OpenSSH server (/usr/sbin/sshd); `make test` installs openssh-server")
        os.makedirs("/run/sshd", mode=0o755, exist_ok=True)
        self.root = Path(tempfile.mkdtemp(prefix="ctxbench-sshd-"))
        self.key = self.root / "client_key"
        self.other_key = self.root / "other_key"
        pub = keygen(self.key)
        keygen(self.other_key)
        self.servers = [Server(self.root, f"h{i}", pub, (arch or {}).get(i), (hostnames or {}).get(i), chatter)
                        for i in range(n)]
        try:  # first: a server may move to another port as it starts
            for s in self.servers:
                s.start()
        except BaseException:
            self.stop()
            raise
        self.known_hosts = self.root / "known_hosts"
        self.known_hosts.write_text("".join(f"[127.0.0.1]:{s.port} {s.host_pub}\n" for s in self.servers))
        self.ssh_config = self.root / "ssh_config"
        self.ssh_config.write_text("".join(
            f"Host {s.name}\n  HostName 127.0.0.1\n  Port {s.port}\n  User root\n  IdentityFile {self.key}\n"
            f"  IdentitiesOnly yes\n  UserKnownHostsFile {self.known_hosts}\n" for s in self.servers)
            + f"Host 127.0.0.1\n  UserKnownHostsFile {self.known_hosts}\n  IdentitiesOnly yes\n")

    def refuse_key(self, s: Server) -> None:
        """This server authorises another key than the client's."""
        (s.dir / "authorized_keys").write_text(Path(str(self.other_key) + ".pub").read_text())

    def stop(self) -> None:
        for s in self.servers:
            s.stop()
        shutil.rmtree(self.root, ignore_errors=True)
