"""ctxbench system: what the machine is and what to do about it."""
from __future__ import annotations

import json

from ctxbench.core import checks
from ctxbench.core.errors import escaped
from ctxbench.core.model import Document
from ctxbench.ui import options


def add_parser(sub):
    p = sub.add_parser("system", help="environment checks with advice",
                       description="Check the machine for what disturbs measurements, and say how to fix it.")
    p.add_argument("--json", action="store_true", help="print the environment record and findings as JSON")
    options.add_host(p)
    p.set_defaults(func=run)


MARK = {"ok": "ok     ", "note": "note   ", "warning": "WARNING"}


def run(args) -> int:
    header = Document(args.engine.environment())
    findings = checks.environment_findings(header.environment)
    if args.json:
        print(json.dumps({"environment": header.environment.as_dict(), "tool": header.tool,
                          "checks": [f.as_dict() for f in findings]}, indent=1))
        return 0
    host = args.engine.remote()
    if host is not None:  # the findings are that host's, not this machine's
        print(f"host: {escaped(host.host.name)} ({escaped(str(header.environment.hostname))}, over SSH)")
    for f in findings:
        print(f"{MARK.get(f.level, f.level)}  {f.topic:<13} {f.what}")
        if f.hint and f.level != "ok":
            print(f"{'':9}  {'':13} -> {f.hint}")
    return 0
