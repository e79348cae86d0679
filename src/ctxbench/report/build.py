"""From loaded results documents to the report model: one environment
section per machine (with the checks' warnings), then one section per kind
of result, per machine."""
from __future__ import annotations

import datetime
import os

from ctxbench.core import checks
from ctxbench.report import kinds as report_kinds
from ctxbench.ui.figures import machine_label
from ctxbench.report.model import Report, Section
from ctxbench.ui.warnings import group


def env_key(env: dict) -> str:
    return machine_label(env)


def _env_facts(env: dict, tool: dict) -> list[tuple[str, str]]:
    cpu = env.get("cpu") or {}
    kern = env.get("kernel") or {}
    virt = env.get("virtualization") or {}
    timers = env.get("timers") or {}
    return [
        ("hostname", str(env.get("hostname"))),
        ("CPU", f"{cpu.get('model')} ({cpu.get('online')} online)"),
        ("kernel", f"{kern.get('release')} {kern.get('version') or ''}".strip()),
        ("virtual machine", f"{'yes' if virt.get('is_vm') else 'no'} {virt.get('hypervisor_vendor') or ''}".strip()),
        ("clock source", str(kern.get("clocksource"))),
        ("cycle counter", f"{timers.get('cycle_counter')} at {timers.get('cycle_hz') or 0:.0f} Hz"),
        ("tool", f"{tool.get('name')} {tool.get('version')}"),
    ]


def build(docs: list[tuple[str, dict]]) -> Report:
    """docs: (path, loaded document) pairs, every one already checked by results.load."""
    machines: dict = {}   # env key -> (env, tool, [paths])
    groups: dict = {}     # (env key, kind name) -> (kind, [results])
    for path, doc in docs:
        env = doc.get("environment") or {}
        tool = doc.get("tool") if isinstance(doc.get("tool"), dict) else {}
        key = env_key(env)
        machines.setdefault(key, (env, tool, []))[2].append(os.path.basename(path))
        doc_kind = doc.get("kind") if isinstance(doc.get("kind"), str) else None
        for r in doc["results"]:
            k = report_kinds.classify(r, doc_kind)
            groups.setdefault((key, k.name), (k, []))[1].append(r)

    rep = Report("ctxbench report",
                 f"{sum(len(m[2]) for m in machines.values())} results file(s), {len(machines)} machine(s); "
                 f"generated {datetime.datetime.now():%Y-%m-%d %H:%M}")
    multi = len(machines) > 1
    for key, (env, tool, paths) in machines.items():
        s = Section(f"Environment: {key}")
        s.paragraphs.append("Results files: " + ", ".join(paths))
        s.items = [("fact", f"{k}: {v}") for k, v in _env_facts(env, tool)]
        cpus = sorted({r.get("params", {}).get("cpu") for (mk, _), (_, rs) in groups.items() if mk == key
                       for r in rs if isinstance(r.get("params"), dict)} - {None, -1})
        for f in checks.environment_findings(env, cpus=cpus or None, busy={}):
            s.items.append((f.level, f.what + (f" (hint: {f.hint})" if f.hint and f.level == "warning" else "")))
        rep.sections.append(s)
    order = [k.name for k in report_kinds.KINDS] + [report_kinds.GENERIC.name]
    for (key, name), (kind, rs) in sorted(groups.items(), key=lambda kv: (order.index(kv[0][1]), kv[0][0])):
        s = Section(kind.title + (f" ({key})" if multi else ""))
        for f in checks.grouped([x for r in rs for x in checks.result_findings(r)]):
            s.notes.append((f.level, f.what))
        s.notes += [("warning", w) for w in group([(str(r.get("id")), r.get("warnings") or []) for r in rs])]
        for part in report_kinds.render(kind, rs, env=machines[key][0]):
            (s.figures if hasattr(part, "png") else s.tables).append(part)
        rep.sections.append(s)
    return rep
