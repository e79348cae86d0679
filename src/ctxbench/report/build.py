"""From loaded results documents to the report model: one environment
section per machine (with the checks' warnings), then one section per kind
of result, per machine."""
from __future__ import annotations

import datetime
import os

from ctxbench.core import checks
from ctxbench.core.errors import UserError, shown
from ctxbench.report import kinds as report_kinds
from ctxbench.core.model import Document, Environment, Result
from ctxbench.report.model import Figure, Note, Report, Section
from ctxbench.ui.warnings import group


def env_key(env: Environment | dict) -> str:
    return Environment(env).label


def _env_facts(env: Environment | dict, tool: dict) -> list[tuple[str, str]]:
    e = Environment(env)
    hz = e.cycle_hz if isinstance(e.cycle_hz, (int, float)) else 0
    return [
        ("hostname", str(e.hostname)),
        ("CPU", f"{e.cpu_model} ({e.cpus_online} online)"),
        ("kernel", f"{e.kernel_release} {e.kernel_version or ''}".strip()),
        ("virtual machine", f"{'yes' if e.is_vm else 'no'} {e.hypervisor or ''}".strip()),
        ("clock source", str(e.clocksource)),
        ("cycle counter", f"{e.cycle_counter} at {hz:.0f} Hz"),
        ("tool", f"{tool.get('name')} {tool.get('version')}"),
    ]


def _render(kind, rs: list[dict], sections: list, machine: tuple) -> list:
    """One kind's figures and tables, from its results and what the
    command kept in its documents' sections. The reader checked every
    member's type; a shape it did not foresee (a pair without its '+', a
    value no figure can place) is the file's fault, said in one line like
    the reader's."""
    env, _, paths = machine
    try:
        return report_kinds.render(kind, rs, env, sections)
    except (TypeError, ValueError, KeyError, IndexError, AttributeError, ZeroDivisionError, OverflowError) as e:
        names = " or ".join(shown(p) for p in dict.fromkeys(paths))
        raise UserError(f"{names} is malformed: {kind.name} results no table or figure can show "
                        f"({type(e).__name__}: {e})")


def build(docs: list[tuple[str, dict]]) -> Report:
    """docs: (path, loaded document) pairs, every one already checked by reader.load."""
    machines: dict = {}   # env key -> (env, tool, [paths])
    groups: dict = {}     # (env key, kind name) -> (kind, [results], [its command's sections])
    failed: dict = {}     # env key -> [(file, {"id", "error"})]: ids a run could not measure
    kinds = report_kinds.kinds()  # every command's part (its ctxbench.<command>.section), in report order
    for path, doc in docs:
        d = Document(doc)
        env = d.environment
        key = env_key(env)
        machines.setdefault(key, (env, d.tool, []))[2].append(os.path.basename(path))
        failed.setdefault(key, []).extend((os.path.basename(path), f) for f in d.failures)
        for r in d.records:
            k = report_kinds.classify(r, d.command, kinds)
            g = groups.setdefault((key, k.name), (k, [], []))
            g[1].append(r)
            sec = d.section() if d.command in k.commands else None
            if sec is not None and not any(x is sec for x in g[2]):
                g[2].append(sec)

    rep = Report("ctxbench report",
                 f"{sum(len(m[2]) for m in machines.values())} results file(s), {len(machines)} machine(s); "
                 f"generated {datetime.datetime.now():%Y-%m-%d %H:%M}")
    multi = len(machines) > 1
    for key, (env, tool, paths) in machines.items():
        s = Section(f"Environment: {key}")
        s.paragraphs.append("Results files: " + ", ".join(paths))
        s.items = [("fact", f"{k}: {v}") for k, v in _env_facts(env, tool)]
        cpus = sorted({Result(r).params.cpu for (mk, _), (_, rs, _) in groups.items() if mk == key
                       for r in rs} - {None, -1})
        for f in checks.environment_findings(env, cpus=cpus or None, busy={}):
            s.items.append((f.level, f.what + (f" (hint: {f.hint})" if f.hint and f.level == "warning" else "")))
        s.items += [("warning", f"{f['id']} was not measured ({name}): {f['error']}") for name, f in failed[key]]
        rep.sections.append(s)
    order = [k.name for k in kinds] + [report_kinds.GENERIC.name]
    for (key, name), (kind, rs, sections) in sorted(groups.items(), key=lambda kv: (order.index(kv[0][1]), kv[0][0])):
        s = Section(kind.title + (f" ({key})" if multi else ""))
        for f in checks.grouped([x for r in rs for x in checks.result_findings(r)]):
            s.notes.append((f.level, f.what))
        # a place is the result's id, or its point where one id has several (a sweep's sizes)
        places = [Result(r).id for r in rs]
        if len(set(places)) < len(places):
            places = [Result(r).point_key for r in rs]
        lines = group([(at, Result(r).warnings_stored()) for at, r in zip(places, rs)])
        s.notes += [(line.level, line.text) for line in lines]
        for part in _render(kind, rs, sections, machines[key]):
            if isinstance(part, Note):
                s.notes.append((part.level, part.text))
            else:
                (s.figures if isinstance(part, Figure) else s.tables).append(part)
        rep.sections.append(s)
    return rep
