"""A real PostgreSQL server for a test session (Debian's postgresql
package, which `make test` installs): a new cluster in a temporary
directory, listening on a free loopback port and a socket in that
directory, trust authentication for one role, stopped and removed at the
end. Root may not run the server, so as root it runs as the `postgres`
user the package creates.

The server is the test process's own child (not pg_ctl's daemon), with
the parent-death signal set to SIGQUIT, postgres's immediate shutdown:
a test session killed outright (a CI timeout, SIGKILL) leaves no server
behind. Three did, started by killed sessions, before it."""
from __future__ import annotations

import ctypes
import glob
import os
import pwd
import shutil
import signal
import socket
import subprocess
import tempfile
import time

import pytest


def _bin() -> str | None:
    dirs = sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=lambda d: int(d.split("/")[-2]))
    return dirs[-1] if dirs and os.path.exists(os.path.join(dirs[-1], "pg_ctl")) else None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    def __init__(self):
        bindir = _bin()
        if not bindir:
            pytest.skip("no PostgreSQL server (/usr/lib/postgresql/*/bin); `make test` installs postgresql")
        self.user = None
        if os.geteuid() == 0:
            try:
                self.user = pwd.getpwnam("postgres")
            except KeyError:
                pytest.skip("running as root and there is no postgres user to run the server as")
        self.dir = tempfile.mkdtemp(prefix="ctxbench-pg-")
        if self.user:
            os.chown(self.dir, self.user.pw_uid, self.user.pw_gid)
        self.data = os.path.join(self.dir, "data")
        self.port = _free_port()
        self.pg_ctl = os.path.join(bindir, "pg_ctl")
        self._as_server([os.path.join(bindir, "initdb"), "-D", self.data, "-A", "trust", "-U", "ctxbench",
                         "--no-sync", "-E", "UTF8"])
        self.url = f"postgresql://ctxbench@127.0.0.1:{self.port}/postgres"
        with open(os.path.join(self.dir, "log"), "wb") as log:
            self.proc = subprocess.Popen([os.path.join(bindir, "postgres"), "-D", self.data, "-h", "127.0.0.1",
                                         "-p", str(self.port), "-k", self.dir, "-c", "fsync=off"],
                                        stdin=subprocess.DEVNULL, stdout=log, stderr=log, cwd=self.dir,
                                        preexec_fn=self._as_child)
        self._wait_ready(60)

    def _as_child(self) -> None:
        """In the server's process before exec: drop to the postgres user,
        then ask for SIGQUIT when this test process dies (a credential
        change clears that request, so it comes after)."""
        if self.user:
            os.setgid(self.user.pw_gid)
            os.setuid(self.user.pw_uid)
        ctypes.CDLL(None, use_errno=True).prctl(1, int(signal.SIGQUIT), 0, 0, 0)  # PR_SET_PDEATHSIG

    def _wait_ready(self, seconds: float) -> None:
        import psycopg
        end = time.monotonic() + seconds
        while True:
            try:
                psycopg.connect(self.url, connect_timeout=2).close()
                return
            except psycopg.OperationalError:
                if self.proc.poll() is not None or time.monotonic() > end:
                    log = open(os.path.join(self.dir, "log")).read()[-1500:]
                    self.stop()
                    raise RuntimeError(f"postgres did not start: {log}")
                time.sleep(0.1)

    def _as_server(self, argv: list[str]) -> None:
        def drop():
            if self.user:
                os.setgid(self.user.pw_gid)
                os.setuid(self.user.pw_uid)
        p = subprocess.run(argv, capture_output=True, text=True, timeout=120, preexec_fn=drop, cwd=self.dir)
        if p.returncode != 0:
            log = os.path.join(self.dir, "log")
            tail = open(log).read()[-1500:] if os.path.exists(log) else ""
            raise RuntimeError(f"{argv[0]} failed: {p.stderr[-1500:]} {tail}")

    def database(self, name: str) -> str:
        """A new empty database on this server; its URL."""
        import psycopg
        with psycopg.connect(self.url, autocommit=True) as c:
            c.execute(f'CREATE DATABASE "{name}"')
        return self.url.rsplit("/", 1)[0] + f"/{name}"

    def stop(self) -> None:
        try:
            if self.proc.poll() is None:
                self.proc.send_signal(signal.SIGQUIT)  # immediate shutdown: nothing here to keep
                try:
                    self.proc.wait(30)
                except subprocess.TimeoutExpired:
                    self.proc.kill()
                    self.proc.wait()
        finally:
            shutil.rmtree(self.dir, ignore_errors=True)
