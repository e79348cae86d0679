"""The one registry of a results file's records: the core's (core/results)
and each feature's, from its package's record.py (a Feature). A new
command with members of its own adds its record.py, and its name here.

RECORDS composes the types a file is decoded into, checked against and
described by (core/results/registry.py); whoever decodes builtins into
records is handed it, as core/ imports no feature. The order is the
written file's: the sections, then each feature's members."""
from __future__ import annotations

from ctxbench.anatomy import record as anatomy
from ctxbench.core.results import Records
from ctxbench.fleet import record as fleet
from ctxbench.irq import record as irq
from ctxbench.noise import record as noise
from ctxbench.peers import record as peers
from ctxbench.ring import record as ring
from ctxbench.run import record as run
from ctxbench.runtimes import record as runtimes
from ctxbench.sweep import record as sweep
from ctxbench.tasks import record as tasks
from ctxbench.userbench import record as userbench

RECORDS = Records(*(m.FEATURE for m in (run, sweep, tasks, irq, noise, ring, anatomy, userbench, fleet,
                                        runtimes, peers)))
