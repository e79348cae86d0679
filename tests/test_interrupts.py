"""Ctrl-C is one line and exit 130 from the first instruction to the last
(issue 33): while the command line imports its commands, inside a C
extension's call (E-divisive's, where ctypes turns the KeyboardInterrupt
into an ArgumentError), and while a store is being filled (whose
transaction is then rolled back: nothing half-added). None measures."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import time

import pytest

import ctxbench

from conftest import ctxbench_cmd

pytest.importorskip("sqlalchemy")
from ctxbench.cli import main  # noqa: E402
from ctxbench.core.store import record  # noqa: E402
from ctxbench.core.store.db import Store  # noqa: E402
from test_store import synthetic  # noqa: E402


def _interrupted_after(argv: list[str], delay: float, **kw) -> tuple[int, str, str]:
    """`argv` started with SIGINT at its default, as a terminal starts it,
    and sent SIGINT (to its group) `delay` s later."""
    p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL), **kw)
    time.sleep(delay)
    try:
        os.killpg(p.pid, signal.SIGINT)
    except ProcessLookupError:
        pass
    out, err = p.communicate(timeout=60)
    return p.returncode, out, err


def _said_interrupted(rc: int, err: str) -> bool:
    """Exit 130 with the one line; or, when the signal came before any code
    of ours ran, Python's own death by SIGINT: nothing printed (Python had
    not started) or its KeyboardInterrupt traceback with no frame in the
    ctxbench package (the signal came during the interpreter's start-up or
    the console script's import lines, which pip writes; a loaded host
    stretches that window past 30 ms, a run here failed so)."""
    if rc == 130 and err.strip() == "ctxbench: interrupted":
        return True
    ours = os.path.dirname(ctxbench.__file__) + os.sep  # the package's own files
    frames = [ln for ln in err.splitlines() if ln.lstrip().startswith('File "')]
    before_ours = err.rstrip().endswith("KeyboardInterrupt") and not any(ours in f for f in frames)
    # during the interpreter's `site` import (the virtualenv's .pth files, the editable install's
    # finder among them) Python itself dies with a fatal error and exit 1: a hog-loaded run met it
    in_site = rc == 1 and err.startswith("Fatal Python error: init_import_site") and before_ours
    return in_site or (rc == -signal.SIGINT and (not err.strip() or before_ours))


@pytest.mark.slow  # signal timing: eight interpreters interrupted while they start
@pytest.mark.parametrize("delay", [0.03, 0.06, 0.09, 0.12, 0.15, 0.2, 0.25, 0.3])
def test_ctrl_c_while_the_command_line_starts(tmp_path, delay):
    """The first quarter second is the imports (numpy, the commands): the
    audit's Ctrl-C there gave a KeyboardInterrupt traceback."""
    argv = ctxbench_cmd() + ["history", "kernel/*", "--store", str(tmp_path / "none.sqlite")]
    rc, out, err = _interrupted_after(argv, delay)
    if rc == 2 and "no store there" in err:
        return  # the command had finished before the signal came
    assert _said_interrupted(rc, err), (delay, rc, err[-2000:])


def test_ctrl_c_inside_e_divisive_s_c_call_is_an_interruption(tmp_path, capsys, monkeypatch):
    """A KeyboardInterrupt raised while ctypes converts the arguments of
    E-divisive's C function (numpy's ndpointer.from_param, Python code)
    reaches the caller as ctypes.ArgumentError: it is still Ctrl-C."""
    cext = pytest.importorskip("signal_processing_algorithms.energy_statistics.cext_calculator")
    url = str(tmp_path / "s.sqlite")
    s = Store(url)
    with s.begin() as conn:
        for k in range(0, 40, 4):  # one host: a series of 10 runs, long enough to be tested
            record.add(conn, synthetic(k))
    fn = cext.LIB_E_DIVISIVE.calculate_distance_matrix
    kind = fn.argtypes[0]

    class Interrupting(kind):
        @classmethod
        def from_param(cls, obj):
            raise KeyboardInterrupt

    monkeypatch.setattr(fn, "argtypes", [Interrupting, *fn.argtypes[1:]])
    rc = main(["history", "kernel/thread/pipe/same-cpu", "--store", url])
    err = capsys.readouterr().err
    assert rc == 130 and err.strip() == "ctxbench: interrupted", err


def test_ctrl_c_while_a_store_is_filled_adds_nothing_half(tmp_path):
    """store add of 300 files interrupted while it adds: 130, one line,
    and the store holds the runs of before, or all of them: one
    transaction, rolled back."""
    url = str(tmp_path / "s.sqlite")
    s = Store(url)
    with s.begin() as conn:
        record.add(conn, synthetic(0))
    paths = []
    for k in range(1, 301):
        p = tmp_path / f"r{k}.json"
        p.write_text(json.dumps(synthetic(k)))
        paths.append(str(p))
    rc, out, err = _interrupted_after(ctxbench_cmd() + ["store", "add", *paths, "--store", url], 1.2)
    from sqlalchemy import text
    with Store(url).begin() as conn:
        n = conn.execute(text("SELECT count(*) FROM runs")).scalar_one()
    if rc == 0:
        assert n == 301
        return
    assert _said_interrupted(rc, err), (rc, err[-2000:])
    assert n in (1, 301), n  # rolled back, or Ctrl-C came after the commit


def _wait_for(done, seconds=5.0) -> None:
    """Run bytecode (where a pending signal's handler runs) until done() or the bound."""
    end = time.monotonic() + seconds
    while not done() and time.monotonic() < end:
        time.sleep(0.001)


def test_a_ctrl_c_python_cannot_raise_is_asked_for_again_not_printed(capsys):
    """A KeyboardInterrupt where Python cannot raise it (a weakref callback
    of the import system, while a command imports a library: make test met
    it once) is "unraisable": Python printed a traceback and dropped it.
    The command's hook raises SIGINT again instead, and passes anything
    else on. Here the unraisables come from __del__."""
    import gc
    import sys

    class Raises:
        def __init__(self, e):
            self.e = e

        def __del__(self):
            raise self.e

    got = []
    old = signal.signal(signal.SIGINT, lambda *_: got.append("SIGINT"))
    hook, sys.unraisablehook = sys.unraisablehook, ctxbench.unraisable
    try:
        Raises(KeyboardInterrupt())
        gc.collect()
        _wait_for(lambda: got)  # asked for from a helper thread, once the hook returned
        assert got == ["SIGINT"] and capsys.readouterr().err == ""
        Raises(ValueError("x"))
        gc.collect()
        assert "ValueError: x" in capsys.readouterr().err and got == ["SIGINT"]
    finally:
        sys.unraisablehook = hook
        signal.signal(signal.SIGINT, old)
    assert hook is not ctxbench.unraisable  # a test process imports the package: nothing installed


def test_a_lost_ctrl_c_is_raised_after_the_hook_not_inside_it(capsys):
    """Once main() runs, SIGINT's handler raises (core/interrupts). The hook
    asked for SIGINT with raise_signal, which ran that handler inside the
    hook: the KeyboardInterrupt was unraisable again and printed a
    traceback (CI, issue 33's audit I08). It must come out where the
    program runs next."""
    import gc
    import sys

    class Raises:
        def __del__(self):
            raise KeyboardInterrupt

    def raising(*_):
        raise KeyboardInterrupt

    old = signal.signal(signal.SIGINT, raising)
    hook, sys.unraisablehook = sys.unraisablehook, ctxbench.unraisable
    came = False
    try:
        try:
            Raises()
            gc.collect()
            _wait_for(lambda: False)
        except KeyboardInterrupt:
            came = True
    finally:
        sys.unraisablehook = hook
        signal.signal(signal.SIGINT, old)
    assert came and "Traceback" not in capsys.readouterr().err


def test_sigterm_between_engine_commands_is_an_interruption():
    """As the command, SIGTERM is KeyboardInterrupt (remembered) from
    main()'s start, not only while an engine runs: a command told to end
    in its analysis said nothing and exited 143 (issue 45's audit)."""
    from ctxbench.core import interrupts
    old_int, old_term = signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    try:
        interrupts.install()
        with pytest.raises(KeyboardInterrupt):
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(1)  # the handler runs at the next bytecode
        with pytest.raises(KeyboardInterrupt):
            interrupts.check()  # remembered, as a Ctrl-C is
    finally:
        interrupts.forget()
        signal.signal(signal.SIGINT, old_int)
        signal.signal(signal.SIGTERM, old_term)


@pytest.mark.machine
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP])
def test_sigterm_and_sighup_end_a_command_started_with_sigint_ignored(tmp_path, sig):
    """A command started in the background by a script (`ctxbench ... &`:
    SIGINT ignored) still says it was interrupted on SIGTERM or SIGHUP: the
    handlers hung on SIGINT's being Python's own, and such a fleet died
    silently (final audit V31-V37)."""
    p = subprocess.Popen([*ctxbench_cmd(), "run", "--quick", "--no-store", "--groups", "200", "-o",
                          str(tmp_path / "o.json")], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))
    time.sleep(0.5)
    p.send_signal(sig)
    _, err = p.communicate(timeout=120)
    assert (p.returncode, err.strip().splitlines()[-1:]) == (130, ["ctxbench: interrupted"]), (p.returncode, err)
