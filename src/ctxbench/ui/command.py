"""The lifecycle every measuring command shares (as rtla's tools share one):

    validate options  ->  Lifecycle(...)   output checked, `started` taken
    measure           ->  the command's own work
    build document    ->  life.document(header, results, section)
    write             ->  life.write(doc)      atomic; kept on failure
    figures           ->  life.figures(dir, [(name, fig), ...])
    print             ->  life.finish()        where everything went

Each step exists once, so a command cannot record `started` after
measuring, write figures before its results, or lose results to a failed
write."""
from __future__ import annotations

import datetime
import os
import sys

from ctxbench.core import engine, model, writer
from ctxbench.core.errors import UserError
from ctxbench.ui import options


class Lifecycle:
    def __init__(self, kind: str, output: str | None, inputs: tuple[str, ...] = ()):
        self.kind = kind
        self.output = output or options.default_output_name(kind)
        writer.check_writable(self.output, inputs)
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
        writer.write_results(self.output, doc)

    def figures(self, directory: str | None, figs: list[tuple[str, object]]) -> list[str]:
        """Save named figures into `directory` (nothing if None)."""
        if not directory:
            return []
        from ctxbench.ui import figures
        try:
            os.makedirs(directory, exist_ok=True)
            paths = [p for name, fig in figs if fig is not None for p in figures.save(fig, directory, name)]
        except OSError as e:
            raise UserError(f"results written to {self.output}, but the figures could not be written "
                            f"to '{directory}': {e.strerror or e}", code=1)
        self.written += paths
        return paths

    def finish(self) -> None:
        print(f"\nresults written to {self.output}")
        for p in self.written:
            print(f"figure: {p}")
