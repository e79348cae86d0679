"""The regression gate (compare --fail-if-slower PCT): an id fails when it
is slower than its baseline by more than PCT and by more than the
comparison's MDE (the change is then outside its own interval's reach of
0 too). An id whose MDE is above PCT cannot be judged at PCT: it passes,
and says so, rather than failing on noise or passing as if it had been
checked. One line per id; a JUnit XML for CI systems on request (the
standard library's ElementTree writes it: JUnit's format is a few elements,
and the packages that wrap it add nothing here)."""
from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from dataclasses import dataclass

from ctxbench.compare import host
from ctxbench.compare.change import Change
from ctxbench.compare.pairing import REFERENCE, Paired, cycles_note, units_note
from ctxbench.core.errors import UserError, escaped

FAIL, PASS, UNRESOLVED = "FAIL", "ok", "unresolved"


@dataclass(frozen=True)
class Verdict:
    key: str
    status: str
    change: Change
    text: str
    unit: str = "ns"


def judge(key: str, c: Change, pct: float, unit: str = "ns") -> Verdict:
    """The verdict on one id's change (in `unit`: ns or core cycles)."""
    v = _judge(key, c, pct, unit)
    return Verdict(v.key, v.status, v.change, f"{v.text} (in {'core cycles' if unit == 'cycles' else 'ns'})", unit)


def signed(x: float, unit: str) -> str:
    """A difference in its unit, with its sign."""
    from ctxbench.ui.format import fmt_value
    s = fmt_value(x, unit)
    return s if s.startswith("-") or not math.isfinite(x) else f"+{s}"


def difference(c: Change, unit: str) -> str:
    """An id without a ratio: new - base in its unit, with its interval."""
    if not math.isfinite(c.diff):
        return "n/a"
    ci = f" [{signed(c.diff_ci[0], unit)}, {signed(c.diff_ci[1], unit)}]" \
        if all(math.isfinite(x) for x in c.diff_ci) else " [n/a]"
    return f"{signed(c.diff, unit)}{ci}"


def _judge(key: str, c: Change, pct: float, unit: str = "ns") -> Verdict:
    ci = f"[{c.ci[0]:+.1%}, {c.ci[1]:+.1%}]" if all(math.isfinite(x) for x in c.ci) else "[n/a]"
    mde = f"{c.mde:.1%}" if math.isfinite(c.mde) else "n/a"
    rel = f"{c.rel:+.1%}" if math.isfinite(c.rel) else "n/a"
    if not c.has_ratio:
        return Verdict(key, UNRESOLVED, c, f"no ratio to judge at {pct:.1%}: a median, or a resampled one, is 0 or "
                                           "negative (a baseline's residue after the timer's overhead is "
                                           f"subtracted); the difference is {difference(c, unit)}")
    if not math.isfinite(c.mde):
        return Verdict(key, UNRESOLVED, c, f"{rel} {ci}: too few runs or groups a side to judge")
    if c.rel > pct and c.rel > c.mde:
        return Verdict(key, FAIL, c, f"{rel} {ci}: slower by more than {pct:.1%} and the MDE {mde}")
    if c.mde > pct:
        return Verdict(key, UNRESOLVED, c, f"{rel} {ci}: cannot resolve {pct:.1%} (MDE {mde}); "
                                           "more runs a side would")
    return Verdict(key, PASS, c, f"{rel} {ci}: within {pct:.1%} (MDE {mde})")


def line(v: Verdict, width: int) -> str:
    return f"{v.status:<10}  {escaped(v.key):<{width}}  {v.text}"


def junit(verdicts: list[Verdict], name: str) -> bytes:
    """A JUnit XML document: one test case per id, a failure for FAIL,
    skipped for an id the comparison could not resolve."""
    suite = ET.Element("testsuite", name=name, tests=str(len(verdicts)),
                       failures=str(sum(v.status == FAIL for v in verdicts)),
                       skipped=str(sum(v.status == UNRESOLVED for v in verdicts)), errors="0")
    for v in verdicts:
        case = ET.SubElement(suite, "testcase", classname="ctxbench.compare", name=v.key)
        if v.status == FAIL:
            ET.SubElement(case, "failure", message=v.text, type="slower")
        elif v.status == UNRESOLVED:
            ET.SubElement(case, "skipped", message=v.text)
        ET.SubElement(case, "system-out").text = (
            f"base median {v.change.base:.6g}, new median {v.change.new:.6g} ({v.unit}), change {v.text}; "
            f"units resampled: {v.change.units[0]} / {v.change.units[1]}")
    return ET.tostring(ET.ElementTree(suite).getroot(), encoding="utf-8", xml_declaration=True)


def report(paired: Paired, pct: float, junit_out, name: str) -> int:
    """The gate: a line per id (the speed reference is not gated), the
    count, the JUnit XML where asked; exit status 1 when an id failed."""
    verdicts = [judge(k, paired.found[k], pct, "cycles" if k in paired.in_cycles else "ns")
                for k in paired.common if k != REFERENCE]
    w = max(len(escaped(v.key)) for v in verdicts) if verdicts else 2
    for v in verdicts:
        said = host.attributed(v.key, "slower" if v.status == FAIL else "", 1.0, paired.host,
                               in_ns=v.key not in paired.in_cycles)
        # the gate still fails: a kernel's own change can move a sensor too, and a gate hides nothing
        print(line(v, w) + (f"  [{said}: on the same kernel, probably not the code]" if said.startswith("the host")
                            else ""))
    failed = [v for v in verdicts if v.status == FAIL]
    unresolved = [v for v in verdicts if v.status == UNRESOLVED]
    print(f"\ngate: {len(failed)} of {len(verdicts)} id(s) slower by more than {pct:.1%} and their MDE"
          + (f"; {len(unresolved)} could not be judged at {pct:.1%}" if unresolved else "")
          + f". {units_note(paired.found)}. {cycles_note(paired.in_cycles, paired.common, 'auto')}")
    if junit_out is not None:
        try:
            junit_out.write(junit(verdicts, name))
        except OSError as e:
            raise UserError(f"cannot write {escaped(junit_out.path)} ({e.strerror or e})", code=1)
        print(f"JUnit XML: {escaped(junit_out.path)}")
    return 1 if failed else 0
