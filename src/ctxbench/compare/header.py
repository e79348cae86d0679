"""What compare prints before its table: each side and the core clock its
runs got, what differs between the machines, the core clock's change and
the speed reference's (fixed CPU work): what moved that the code under
test did not."""
from __future__ import annotations

import math

from ctxbench.compare import host, sides
from ctxbench.compare.pairing import REFERENCE, Paired
from ctxbench.core.errors import escaped
from ctxbench.core.model import Document, Environment
from ctxbench.ui.format import fmt_vs_fastest


def print_header(bs: sides.Side, ns: sides.Side, paired: Paired, store_flag: str | None) -> None:
    diffs = env_differences(bs.docs, ns.docs)
    print(f"base: {_side_label(bs)}\n      {speed_line(bs.docs, store_flag)}")
    print(f"new:  {_side_label(ns)}\n      {speed_line(ns.docs, store_flag)}")
    if diffs:
        print("environment differences that matter:")
        for d in diffs:
            print(f"  {d}")
    else:
        print("environment: same kernel, CPU, microcode, mitigations, governor and VM on both sides")
    clock = _core_clock_line(bs.docs, ns.docs)
    if clock:
        print(clock)
    speed = _machine_speed_line(paired)
    if speed:
        print(speed)
    state = host.header_line(paired.host)
    if state:
        print(state)
    print()


def _side_label(side: sides.Side) -> str:
    files = [escaped(s) for s in side.specs if not sides.is_selector(s)]
    picked = [s for s in side.specs if sides.is_selector(s)]
    return ", ".join(files + ([f"{', '.join(map(escaped, picked))} ({side.stored} run(s) from the store)"]
                              if picked else []))


def speed_line(docs: list[dict], store_flag: str | None) -> str:
    """The core clock each run of a side got (core/cycles.py), and how far
    below the fastest its host has recorded in the store."""
    from ctxbench.core.store import between
    clocks = [(Document(d).environment.hostname, between.doc_ghz(d)) for d in docs]
    have = [(h, g) for h, g in clocks if g is not None]
    if not have:
        return "core clock: not measured (files from before the core-clock probe)"
    text = "core clock " + ", ".join(f"{g:.3f}" for _, g in have[:6]) + (" ..." if len(have) > 6 else "") + " GHz"
    fastest = between.fastest_recorded(store_flag, {h for h, _ in have})
    said = sorted({fmt_vs_fastest(g, fastest[h]) for h, g in have if fastest.get(h)})
    if said:
        text += "; " + ", ".join(said[:3]) + (" ..." if len(said) > 3 else "") + " for its host in the store"
    return text


def _env_facts(e: Environment) -> dict:
    return {
        "hostname": e.hostname,
        "CPU": e.cpu_model,
        "kernel": e.kernel_release,
        "mitigations": ", ".join(sorted(k for k, v in e.mitigations.items()
                                        if v and str(v).startswith("Mitigation"))) or "none",
        "governor": ", ".join(sorted({str(v) for v in e.governors.values()})) or "unknown",
        "microcode": e.microcode or "unknown",
        "VM": "yes" if e.is_vm else "no",
        "kernel cmdline": e.cmdline,
    }


def _side_facts(docs: list[dict]) -> dict[str, set[str]]:
    """Each fact's values over a side's runs."""
    vals: dict = {}
    for d in docs:
        for k, v in _env_facts(Document(d).environment).items():
            vals.setdefault(k, set()).add(str(v))
    return vals


def env_differences(base: list[dict], new: list[dict]) -> list[str]:
    b, n = _side_facts(base), _side_facts(new)
    # the values come from the documents (files, or another client's runs in a shared store): escaped
    return [f"{k}: {' / '.join(map(escaped, sorted(b[k])))}  ->  {' / '.join(map(escaped, sorted(n.get(k, ()))))}"
            for k in b if b[k] != n.get(k)]


def _core_clock_line(base: list[dict], new: list[dict]) -> str | None:
    from ctxbench.core.store.between import doc_ghz
    fb, fn = ([g for g in map(doc_ghz, docs) if g is not None] for docs in (base, new))
    if not (fb and fn):
        return None
    return (f"core clock: new/base {_median(fn) / _median(fb) - 1:+.1%} (the probe's medians): in ns, a change of "
            "that size in every CPU-bound id is the host's clock, not the code under test; in cycles it is "
            "taken out")


def _machine_speed_line(paired: Paired) -> str | None:
    ref = reference_change({k: list(v.samples) for k, v in paired.base_ns.items()},
                           {k: list(v.samples) for k, v in paired.new_ns.items()})
    if ref is None:
        return None
    # An indicator, not a correction: here it tracked the switch ids in
    # some pairs of runs and not in others (cache contention from a VM's
    # neighbours moves the switches but not this L1-resident work).
    in_cycles = REFERENCE in paired.in_cycles and paired.found[REFERENCE].has_ratio
    return (f"machine speed: {REFERENCE} (fixed CPU work) changed by {ref - 1:+.1%} in ns"
            + (f", {paired.found[REFERENCE].rel:+.1%} in cycles" if in_cycles else "")
            + ": what the clock does not explain (a busy neighbour's cache traffic, an SMT sibling) moves it in "
              "cycles too")


def reference_change(pb: dict, pn: dict) -> float | None:
    """new/base ratio of the speed reference's medians, if both sides have it."""
    a, b = pb.get(REFERENCE), pn.get(REFERENCE)
    if not a or not b:
        return None
    ma, mb = float(_median(a)), float(_median(b))
    return mb / ma if ma > 0 and mb > 0 else None


def _median(xs):
    import numpy as np
    return np.median(xs) if xs else math.nan
