"""Whether a host's measuring command brought back a document, judged from
what Ansible's command module says of it (its exit status, standard
error, how long it ran) as `ctxbench fleet` judges a host's: the limit's
`timeout` (124, or 137 at the limit), a signal, a failure with its last
line, or a document (exit 1 with one: some ids failed, the others'
results are in it)."""
from __future__ import annotations

import signal


def seconds(delta) -> float:
    """The command module's `delta` (H:MM:SS.ffffff) in seconds; 0 if absent."""
    try:
        h, m, s = str(delta).split(":")
        return int(h) * 3600 + int(m) * 60 + float(s)
    except ValueError:
        return 0.0


def _signal_name(sig: int) -> str:
    return signal.Signals(sig).name if sig in signal.valid_signals() else str(sig)


def why_not(way: str, ran: dict, limit: int, written: bool) -> str | None:
    """None where the command brought back a document (`written`: the
    fetched file is there and not empty), else why not, in one line."""
    what = "the engine" if way == "engine" else "ctxbench"
    rc, took = ran.get("rc"), seconds(ran.get("delta"))
    if not isinstance(rc, int):
        return f"{what} did not run: {ran.get('msg') or 'no exit status'}"
    if rc == 124 or (rc == 137 and took >= limit):
        return f"{what} ran past the {limit} s limit"
    if rc < 0 or rc > 128:
        return f"{what} was killed ({_signal_name(-rc if rc < 0 else rc - 128)}) after {took:.1f} s"
    if rc == 0 or (rc == 1 and written):
        return None if written else f"{what} wrote no document"
    return f"{what} failed: {last_line(ran)}"


def last_line(ran: dict) -> str:
    """Why a command failed, as it said it: its standard error's last line
    (without ctxbench's own prefix), else Ansible's message, else its exit
    status."""
    said = [line for line in str(ran.get("stderr") or "").splitlines() if line.strip()]
    last = said[-1] if said else str(ran.get("msg") or f"exit status {ran.get('rc')}")
    return last[len("ctxbench: "):] if last.startswith("ctxbench: ") else last


def step_failed(ran: dict, host: str, what: str) -> str:
    """A step on the host that failed (its command module's result), in one
    line naming the host, the step and why: `ctxbench: HOST: WHAT failed
    (exit status N): LAST LINE`."""
    from ctxbench.core.errors import escaped
    rc = ran.get("rc")
    status = f" (exit status {rc})" if isinstance(rc, int) else ""
    return escaped(f"ctxbench: {host}: {what} failed{status}: {last_line(ran)}")
