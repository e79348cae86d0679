"""The lifecycle every measuring command shares (as rtla's tools share one):

    validate options  ->  --plot DIR checked as it is parsed (options.plot_dir)
                      ->  Lifecycle(...)   output checked, `started` taken
    measure           ->  the command's own work
    build document    ->  life.document(header, results, section)
    write             ->  life.write(doc)      atomic; kept on failure
    figures           ->  life.figures(dir, [(name, fig), ...])
    print             ->  life.finish()        where everything went
    failed ids        ->  life.failed(...)     exit 1 naming them (kept in the file)

Each step exists once, so a command cannot record `started` after
measuring, write figures before its results, or lose results to a failed
write."""
from __future__ import annotations

import datetime
import sys

from ctxbench.core import engine, model, writer
from ctxbench.core.errors import UserError, escaped, shown
from ctxbench.ui import options


class Lifecycle:
    def __init__(self, kind: str, output: str | None, inputs: tuple[str, ...] = ()):
        """Where the results go is decided here, before measuring (writer's
        rule); the figure directory was checked before, when --plot was
        parsed (options.plot_dir), and its files are checked again in
        figures()."""
        self.kind = kind
        self.output = output or options.default_output_name(kind)
        self.inputs = tuple(inputs)
        self.out = writer.check_writable(self.output, inputs)
        self.started = datetime.datetime.now().isoformat(timespec="seconds")
        self.written: list[str] = []

    def document(self, header: dict, results: list[dict], section: dict | None = None,
                 **extra) -> dict:
        """The results document: the engine's tool and environment, the
        results, and this command's own section (with `started`)."""
        sec = dict(section or {})
        sec.setdefault("started", self.started)
        sec.setdefault("housekeeping", engine.housekeeping())
        if sec["housekeeping"].get("shares_measured_cpu"):
            print(f"  warning: only CPU {sec['housekeeping'].get('measured_cpu')} is allowed: the front end (progress, "
                  "reading the engine) ran on the measured CPU", file=sys.stderr)
        return model.document(header.get("tool", {}), header.get("environment", {}), results,
                              extra={self.kind: sec, **extra})

    def write(self, doc: dict) -> None:
        writer.write_results(self.out, doc)

    def figures(self, directory: str | None, figs: list[tuple[str, object]]) -> list[str]:
        """Save named figures into `directory` (nothing if None); never
        over the command's inputs or its results file."""
        if not directory:
            return []
        from ctxbench.ui import figures
        protect = self.inputs + ((self.out.target,) if self.out.target else ())
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
        else:
            print(f"\nresults written to {escaped(self.output)}")
        for p in self.written:
            print(f"figure: {escaped(p)}")

    def failed(self, failures: list[dict], total: int) -> None:
        """After finish(): the ids the engine could not measure (their
        errors are in the document's `failures`, beside the others' results)
        end the command with status 1 and one line naming them."""
        if failures:
            what = "; ".join(f"{shown(f['id'])}: {escaped(f['error'])}" for f in failures)
            raise UserError(f"{len(failures)} of {total} id(s) could not be measured ({what}); the other "
                            f"results and these failures are in {shown(self.output)}", code=1)
