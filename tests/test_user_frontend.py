"""Front end for user-level ids: the table's user-vs-kernel ratio line and
the userbench comparison, from synthetic results (known answers)."""
from ctxbench.run import table
from ctxbench.userbench import command as userbench
from ctxbench.run.usergap import gap_lines
from ctxbench.stats.derived import ratio


def _r(rid, med, resume="ret"):
    return {"id": rid, "quantity": "switch", "params": {"resume": resume},
            "summary": {"n": 10, "median": med, "min": med, "max": med, "cv": 0.0, "ci95": [med, med]},
            "verification": {"checked": True, "ok": True, "dropped": 0}}


def test_gap_line_known_ratio():
    res = [_r("user/asm/same-thread", 5.0), _r("kernel/thread/futex/same-cpu", 1500.0),
           _r("user/ucontext/same-thread", 400.0)]
    lines = gap_lines(res)
    assert any("kernel/thread/futex/same-cpu costs 300x" in line for line in lines)
    assert any("80.0x" in line for line in lines)
    out = table.render(res, color=False)
    assert "User-level switch" in out and "costs 300x" in out


def test_no_ratio_for_negative_or_missing():
    assert ratio(10.0, -1.0) is None and ratio(None, 1.0) is None and ratio(-3.0, 1.0) is None
    assert gap_lines([_r("user/asm/same-thread", -2.0), _r("kernel/thread/futex/same-cpu", 1000.0)]) == []


def test_userbench_render_side_by_side():
    res = [_r("user/asm/same-thread", 5.0, "jmp"), _r("user/asm-minimal/same-thread", 20.0),
           _r("user/ucontext/same-thread", 350.0, "swapcontext"), _r("boost/fiber/same-thread", 8.0)]
    for r in res:  # each analysed in core cycles at a 2 GHz core clock
        med = r["summary"]["median"]
        r["cycles"] = {"applies": True, "method": "probe", "summary": {"median": med * 2, "ci95": [med * 2] * 2}}
    out = userbench.render(res)
    assert "swapcontext / asm switch               70.00" in out
    assert "asm switch / Boost.Context fiber       0.62" in out
    assert "asm switch / simplest correct switch   0.25" in out
    # the cycles column: the median in core cycles (5 ns at 2 GHz = 10 cycles)
    cycles = {line.split()[0]: line.split()[4] for line in out.splitlines() if line.strip().startswith(("user/", "boost/"))}
    assert cycles == {"user/asm/same-thread": "10", "user/asm-minimal/same-thread": "40",
                      "user/ucontext/same-thread": "700", "boost/fiber/same-thread": "16"}, out
    # a ratio whose ids were not measured says so instead of a number
    assert "jmp resume / ret resume                n/a  (not measured or cost <= 0)" in out, out
