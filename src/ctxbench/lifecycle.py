"""The lifecycle every measuring command shares (as rtla's tools share one):

    validate options  ->  every option checked as it is parsed (ui.options:
                          --cpu, sizes, lists, --plot DIR), one line, exit 2
                      ->  Lifecycle(...)   output checked, `started` taken
    measure           ->  the command's own work
    build document    ->  life.document(header, results, section)
    write             ->  life.write(doc)      atomic; kept on failure
    figures           ->  life.figures(dir, [(name, fig), ...])
    print, record     ->  life.finish()        where everything went; the run into the
                                               results store (core/store; --store, --no-store)
    failed ids        ->  life.failed(...)     exit 1 naming them (kept in the file)

Each step exists once, so a command cannot record `started` after
measuring, write figures before its results, or lose results to a failed
write. What is written is only what was asked for: the results file -o
names (without -o the run is kept in the user's data directory,
core/datadir, never in the working directory) and figures only with
--plot. The front end runs off the measured CPU while the engine measures
(core/engine.Engine.stream, the command's engine context, args.engine);
`housekeeping` records where it ran and the CPU measured.

Exit status, the same for every command: 0 measured and written; 1 an id
could not be measured or the results could not be written (they are kept
in a fallback file); 2 a bad option or file, refused before measuring;
130 interrupted (a sweep keeps what it measured and resumes from it)."""
from __future__ import annotations

import datetime
import sys

from ctxbench.core import datadir, model, writer
from ctxbench.core.store import choice
from ctxbench.core.errors import UserError, escaped, shown
from ctxbench.records import RECORDS


class Lifecycle:
    def __init__(self, kind: str, output: str | None, inputs: tuple[str, ...] = (),
                 resumable: bool = False, store: str | None = None, *, engine=None):
        """Where the results go is decided here, before measuring (writer's
        rule): -o's name, else a new file in the data directory. `engine`:
        the command's engine context (core/engine.Engine, args.engine), whose
        housekeeping goes into the document; None where no engine measures
        here (fleet: each host's own command records its own). The figure
        directory was checked before, when --plot was parsed
        (options.plot_dir), and its files are checked again in figures().
        `resumable`: the command rewrites its file as it goes and continues
        from it (sweep), so -o must name a file, not a stream."""
        self.kind = kind
        self.engine = engine
        self.asked = output is not None
        self.output = output if output is not None else datadir.run_path(kind)
        self.inputs = tuple(inputs)
        self.out = writer.check_writable(self.output, inputs)
        if resumable and self.out.is_stream:
            self.out.close()
            raise UserError(f"-o {shown(self.output)}: a {kind} saves as it goes and continues from its "
                            f"file: name a file")
        try:  # the store too is decided now (core/store/choice): one it cannot use is refused before measuring
            self.store = choice.decide(store, writes=True, outputs=[self.out.target], measuring=True)
        except UserError:
            self.out.close()
            raise
        # with its UTC offset: the instant, wherever the file is read (export, a store on another zone)
        self.started = datetime.datetime.now().astimezone().isoformat(timespec="seconds")
        self._last: dict | None = None
        self.written: list[str] = []
        self._said_shared = False
        self._opened = None  # the store, once opened (earlier() and _record() share it)

    def document(self, header: dict, results: list, section: dict | None = None,
                 **extra) -> model.results.Document:
        """The results document's record: the engine's tool and
        environment, the results, and this command's own section (with
        `started`). One that does not fit the model (a bug) is kept in a
        fallback file, and the command stops with one line (exit 1)."""
        sec = dict(section or {})
        sec.setdefault("started", self.started)
        sec.setdefault("housekeeping", self.engine.housekeeping() if self.engine is not None else {})
        if sec["housekeeping"].get("shares_measured_cpu") and not self._said_shared:
            self._said_shared = True  # once, also for a command that saves as it goes
            print(f"  warning: only CPU {sec['housekeeping'].get('measured_cpu')} is allowed: the front end (progress, "
                  "reading the engine) ran on the measured CPU", file=sys.stderr)
        h = model.Document(header)  # the engine's header: its tool and environment
        tool, env, extra = h.tool, h.environment.as_dict(), {self.kind: sec, **extra}
        try:
            return model.document(tool, env, results, extra=extra, records=RECORDS)
        except model.results.ValidationError as e:
            kept = {"schema": model.SCHEMA, "tool": tool, "environment": env, "results": results, **extra}
            writer.keep_unfit(self.out, model.results.plain(kept), e)
            raise  # not reached: keep_unfit stops the command

    def write(self, doc) -> None:
        writer.write_results(self.out, doc)
        self._last = doc

    def figures(self, directory: str | None, figs: list[tuple[str, object]]) -> list[str]:
        """Save named figures into `directory` (nothing if None); never
        over the command's inputs or its results file."""
        if not directory:
            return []
        from ctxbench.ui import figures
        protect = (self.inputs + ((self.out.target,) if self.out.target else ())
                   + tuple(self.store.files() if self.store else ()))
        try:
            paths = [p for name, fig in figs if fig is not None
                     for p in figures.save(fig, directory, name, protect=protect)]
        except (OSError, UserError) as e:
            why = e.why if isinstance(e, UserError) else e.strerror or str(e)
            raise UserError(f"results written to {shown(self.output)}, but the figures could not be written "
                            f"to {shown(directory)}: {why}", code=1)
        self.written += paths
        return paths

    def finish(self) -> None:
        if self.out.fd == 1:  # the document went to standard output: say so beside it
            print("results written to standard output", file=sys.stderr)
        elif self.asked:
            print(f"\nresults written to {escaped(self.output)}")
        else:
            print(f"\nresults kept in {escaped(self.output)} (no -o given)")
        for p in self.written:
            print(f"figure: {escaped(p)}")
        self._record()

    def _store(self):
        """The store, opened (and its schema brought up to date) once."""
        if self._opened is None:
            from ctxbench.core.store import db
            self._opened = db.Store(self.store)
        return self._opened

    def earlier(self, header: dict, results: list[dict]) -> dict:
        """What this host's earlier runs in the store say about another run
        here (core/store/between.py): per point, the spread of its medians
        in ns and cycles, the host's recorded core clocks and the best each
        of its sensors read (core/host_state.py); read before
        this run is recorded. {"why": ...} where there is nothing to say.
        Never costs the run: a store that cannot be read is a reason."""
        if self.store is None:
            return {"why": "no results store (--no-store)"}
        try:
            from ctxbench.core.store import between
            store = self._store()
            env = model.Document(header).environment
            with store.begin(write=False) as conn:
                spreads = between.spreads(conn, env.hostname, env.kernel_release, self.kind,
                                          [model.Result(r).point_key for r in results])
                speed = between.host_speed(conn, env.hostname)
                best = between.host_best(conn, env.hostname, {
                    "kernel": env.kernel_release, "cpu_model": env.cpu_model, "microcode": env.microcode,
                    "mitigations": ", ".join(f"{k}: {v}" for k, v in sorted(env.mitigations.items())) or None})
        except UserError as e:
            return {"why": f"the results store could not be read: {escaped(str(e))}"}
        except Exception as e:  # noqa: BLE001 (a shared store's rows are input: a measured run is never lost to them)
            return {"why": f"the results store could not be read ({type(e).__name__}: {escaped(str(e))[:200]})"}
        if not any(s.runs >= between.MIN_RUNS for s in spreads.values()):
            return {"why": "fewer than 2 earlier runs of this host, kernel and command in the results store "
                           f"{store.name}", "speed": speed, "host_best": best}
        return {"store": store.name, "spreads": spreads, "speed": speed, "host_best": best}

    def _record(self) -> None:
        """The run into the results store (core/store), unless --no-store.
        The results are safe in their file by now: a store that cannot
        take them costs a warning, not the run."""
        if self._last is None or self.store is None:  # recorded once, the last document written
            return
        where = sys.stderr if self.out.fd == 1 else sys.stdout
        try:
            from ctxbench.core.store import record
            store = self._store()
            with store.begin() as conn:
                run_id, new = record.add(conn, self._last)
        except UserError as e:
            print(f"  warning: not recorded in the results store: {escaped(str(e))}", file=sys.stderr)
            return
        print(f"{'recorded in' if new else 'already in'} the results store {store.name} (run {run_id})", file=where)

    def failed(self, failures: list[dict], total: int) -> None:
        """After finish(): the ids the engine could not measure (their
        errors are in the document's `failures`, beside the others' results)
        end the command with status 1 and one line naming them."""
        if failures:
            what = "; ".join(f"{shown(f['id'])}: {escaped(f['error'])}" for f in failures)
            raise UserError(f"{len(failures)} of {total} id(s) could not be measured ({what}); the other "
                            f"results and these failures are in {shown(self.output)}", code=1)
