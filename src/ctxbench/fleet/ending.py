"""How a fleet ends, whichever way its hosts were measured (over SSH,
fleet/command.py; or as Kubernetes Jobs whose files --collect reads,
fleet/k8s/collect.py): the outputs checked before anything is measured
or read, each host's (or file's) end written and recorded as one step
that a signal does not cut, and the table of hosts with the chosen ids,
the figure, and the rows that failed."""
from __future__ import annotations

import contextlib
import os
import signal
import sys

from ctxbench.core import model
from ctxbench.core.errors import UserError, escaped
from ctxbench.core.ssh.hosts import escaped_name as shown_name  # escaped, and its bidi and format characters
from ctxbench.fleet import job as jobs
from ctxbench.ui.format import fmt_value, fmt_vs_fastest

SHOWN = "kernel/thread/pipe/same-cpu,kernel/process/pipe/same-cpu,user/asm/same-thread"


def chosen_ids(args) -> list[str]:
    """--show's ids (else SHOWN), one line where it names none."""
    ids = [i.strip() for i in (args.show if args.show is not None else SHOWN).split(",") if i.strip()]
    if not ids:
        raise UserError("fleet: --show: empty list (leave the option out for the default)")
    return ids


def outputs_usable(args, make: bool = True) -> None:
    """The figure, the store and the -o directory: each one the fleet can
    use, said before any host measures or file is read, not after; -o is
    made last (`make`), once everything else passed (--collect makes it
    itself, after its files are found: make_output), so a refusal leaves
    nothing behind."""
    from ctxbench.core.store import choice
    if args.plot:  # the figure is no more written over the store than a host's file is
        choice.never_onto(args.store, [os.path.join(args.plot, f"fleet.{ext}") for ext in ("png", "svg")])
    place = choice.decide(args.store, writes=True, measuring=True)  # a store it cannot use: before anything is made
    if place is not None and not place.sqlite:  # a server not there
        from ctxbench.core.store import db
        try:
            db.Store(place).engine.dispose()
        except UserError as e:
            raise UserError(f"fleet: {e}")
    if args.output:
        _output_writable(args.output)
        if make:
            make_output(args)


def _output_writable(out: str) -> None:
    """-o names a directory files can be made in, or one that can be made:
    tried (core/writer's probe), not guessed, as for any output."""
    from ctxbench.core import writer
    if os.path.lexists(out) and not os.path.isdir(out):
        raise UserError(f"fleet: -o {escaped(out)}: not a directory (give a directory for the files)")
    here = os.path.abspath(out)
    while not os.path.isdir(here):  # the nearest directory there is: where the new ones would be made
        here = os.path.dirname(here)
    try:
        writer._probe_dir(out, here)
    except UserError as e:
        raise UserError(f"fleet: -o {escaped(out)}: {e.why}")


def make_output(args) -> None:
    if args.output:
        try:
            os.makedirs(args.output, exist_ok=True)
        except OSError as e:
            raise UserError(f"fleet: -o {escaped(args.output)}: cannot make the directory ({e.strerror or e})")


def summed_up(job, args, rows: list, shown_ids: list[str], overhead: str | None = None, what: str = "host") -> int:
    """The table of `rows` ((outcome, document) each), the overhead where
    there is one, the figure, and the rows that failed (status 1); also
    what --collect ends with (fleet/k8s/collect.py: a row per file)."""
    print(_table(rows, shown_ids if job.command != "env" else [], args.store))
    if overhead:
        print(overhead)
    if args.plot and job.command == "run":
        from ctxbench.fleet import figures
        from ctxbench.ui.figures import save
        fig = figures.figure([(o.host.name, d) for o, d in rows if d is not None], shown_ids[0])
        if fig is not None:
            for p in save(fig, args.plot, figures.NAME):
                print(f"figure: {escaped(p)}")
    failed = [o for o, _ in rows if not o.ok]
    if failed:
        print(f"\n{len(failed)} of {len(rows)} {what}(s) failed: "
              + ", ".join(f"{shown_name(o.host.name)} ({shown_name(o.reason)})" for o in failed), file=sys.stderr)
        return 1
    return 0


def _clock(doc: dict | None, fastest: dict) -> str:
    """A host's core clock this run, and how far below the fastest the
    store has recorded for it."""
    from ctxbench.core.store.between import doc_ghz
    ghz = doc_ghz(doc) if doc else None
    if ghz is None:
        return "-"
    top = fastest.get(model.Document(doc).environment.hostname)
    return f"{ghz:.3f} GHz" + (f" ({fmt_vs_fastest(ghz, top)})" if top else "")


def _table(rows: list, ids: list[str], store_flag: str | None = None) -> str:
    from ctxbench.core.store.between import fastest_recorded
    fastest = fastest_recorded(store_flag, {model.Document(d).environment.hostname for _, d in rows if d})
    head = ["host", "CPU", "kernel", "core clock"] + [escaped(i) for i in ids] + ["status"]
    body = []
    for o, doc in rows:
        env = model.Document(doc).environment if doc else model.Environment({})
        # every string from outside (the command line, an inventory, a host's engine) escaped, as in errors
        cells = [shown_name(o.host.name), escaped(str(env.cpu_model or "-")[:40]),
                 escaped(str(env.kernel_release or "-")), _clock(doc, fastest)]
        got = jobs.summary(doc) if doc else {}
        for i in ids:
            if i in got:
                m, lo, hi, unit, ns = got[i]
                cells.append(f"{fmt_value(m, unit)} [{fmt_value(lo, unit)}, {fmt_value(hi, unit)}]"
                             + (f" = {fmt_value(ns, 'ns')}" if unit == "cycles" else ""))
            else:
                cells.append("-")
        cells.append("ok" if o.ok else f"FAILED: {shown_name(o.reason)}")
        body.append(cells)
    widths = [max(len(r[i]) for r in [head] + body) for i in range(len(head) - 1)]
    fmt = lambda r: "  ".join(c.ljust(w) for c, w in zip(r, widths)) + "  " + r[-1]  # noqa: E731
    note = ("\nmedian [95% interval] of each id on each host, in core cycles where they apply (= the median in ns): "
            "the hosts' clocks differ and move between runs; same-cpu: the direct cost of a switch on one CPU; "
            "core clock: the probe's, and how far below the fastest the store has recorded for that host"
            if ids else "")
    return "\n" + "\n".join(fmt(r).rstrip() for r in [head] + body) + note


# A host's end (its document written, recorded, said) is one step: no await
# in it lets a cancellation cut it, and these signals (the command's handler
# raises KeyboardInterrupt at any instruction) wait until it is done, then
# are answered. Bounded: a store's connection times out in 10 s.
ENDING = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


class _Noted(list):
    """A signal handler that notes each signal it is given."""

    def __call__(self, signum: int, frame) -> None:
        self.append(signum)


@contextlib.contextmanager
def one_step():
    """ENDING's signals answered after the block, not inside it. Not by
    blocking them (pthread_sigmask holds them in this thread only: the
    kernel gives a process's signal to any thread that does not block it,
    asyncio's executor threads among them, and Python then runs the handler
    here all the same): the Python-level handlers are swapped for one that
    notes the signal, and the first noted is sent again after."""
    noted = _Noted()
    swapped = {s: signal.signal(s, noted)
               for s in ENDING if callable(signal.getsignal(s))}  # ignored or default: left as they are
    try:
        yield
    finally:
        for s, handler in swapped.items():
            signal.signal(s, handler)
        if noted:
            signal.raise_signal(noted[0])  # the command's own handler answers it now
