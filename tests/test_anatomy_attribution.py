"""The in-kernel attribution's grouping and arithmetic on a synthetic
kallsyms and synthetic chains (no measuring, no privileges)."""
import math

from ctxbench.anatomy import attribution as A

KALLSYMS = """\
ffffffff81000000 T entry_SYSCALL_64
ffffffff81000100 T do_syscall_64
ffffffff81001000 T __schedule
ffffffff81001800 t finish_task_switch.isra.0
ffffffff81002000 T try_to_wake_up
ffffffff81003000 T anon_pipe_write
ffffffff81003800 T anon_pipe_read
ffffffff81004000 T _raw_spin_unlock_irqrestore
ffffffff81004100 T _raw_spin_lock
ffffffff81005000 T __x86_return_thunk
ffffffff81006000 T mystery_function
ffffffff81007000 d some_data
"""
SYM = A.Symbols(KALLSYMS)


def _g(*names):
    return A.group_of(list(names))


def test_first_matching_frame_from_the_leaf_up():
    assert _g("_raw_spin_lock", "try_to_wake_up", "anon_pipe_write") == "wake-up"
    assert _g("anon_pipe_read", "do_syscall_64") == "IPC"
    assert _g("do_syscall_64", "entry_SYSCALL_64") == "entry/exit"
    assert _g("mystery_function") == A.OTHER


def test_a_mitigation_leaf_wins_whatever_called_it():
    assert _g("__x86_return_thunk", "anon_pipe_read", "do_syscall_64") == "mitigation"
    assert _g("srso_safe_ret", "__schedule") == "mitigation"


def test_interrupts_off_regions_land_where_they_end():
    assert _g("finish_task_switch.isra.0", "__schedule", "anon_pipe_read") == "schedule: pick and switch"
    assert _g("_raw_spin_unlock_irqrestore", "anon_pipe_write", "do_syscall_64") == "wake-up"
    # the reader's own wait-queue lock is the mechanism's, not a wake-up
    assert _g("_raw_spin_unlock_irqrestore", "anon_pipe_read", "do_syscall_64") == "IPC"


def test_symbols_name_addresses_inside_functions_and_skip_data():
    assert SYM.name(0xffffffff81003005) == "anon_pipe_write"
    assert SYM.name(0xffffffff81007010) == "mystery_function"  # data symbols are not functions
    assert not SYM.hidden
    assert A.Symbols("0000000000000000 T a\n0000000000000000 T b\n").hidden


def _profile(chains, user=0, other=0, window=None, period=500_000):
    n = sum(c[0] for c in chains) + user
    return {"event": "cpu-clock", "scope": "cpu", "period_ns": period, "samples": n, "user_samples": user,
            "other_samples": other, "lost": 0, "chains_dropped": 0, "handoffs": 1000,
            "window_ns": window if window is not None else (n + other) * period,
            "chains": [{"count": k, "ips": [hex(a) for a in ips]} for k, ips in chains]}


def test_shares_times_the_hand_off_and_the_sum_check():
    chains = [(300, [0xffffffff81001810, 0xffffffff81001010]),   # finish_task_switch < __schedule
              (200, [0xffffffff81004010, 0xffffffff81003010]),   # irqrestore < anon_pipe_write
              (100, [0xffffffff81003810, 0xffffffff81000110]),   # anon_pipe_read < do_syscall_64
              (100, [0xffffffff81006010])]                       # mystery
    a = A.attribute(_profile(chains, user=300), 4000.0, SYM)
    g = {x["group"]: x for x in a["groups"]}
    assert math.isclose(g["schedule: pick and switch"]["ns"], 1200.0)
    assert math.isclose(g["wake-up"]["ns"], 800.0) and math.isclose(g["user"]["ns"], 1200.0)
    assert math.isclose(sum(x["ns"] for x in a["groups"]), 4000.0)
    lo, hi = g["wake-up"]["ns_ci95"]
    assert lo < 800 < hi
    assert math.isclose(a["coverage"], 1.0) and math.isclose(a["not_sampled_ns"], 0.0, abs_tol=1e-9)
    # a window twice what the samples cover: half of every hand-off unseen
    b = A.attribute(_profile(chains, user=300, window=2 * 1000 * 500_000), 4000.0, SYM)
    assert math.isclose(b["coverage"], 0.5) and math.isclose(b["not_sampled_ns"], 2000.0)


def test_names_are_recorded_at_measurement_and_used_later():
    p = _profile([(5, [0xffffffff81001810, 0xffffffff81001010])])
    assert "not named" in A.attribute(p, 100.0)["error"]  # a file read later: no guessing from today's kallsyms
    p = A.named_chains(p, SYM)
    assert p["chains"][0]["functions"] == ["finish_task_switch.isra.0", "__schedule"]
    a = A.attribute(p, 100.0)  # no symbols needed any more
    assert a["groups"][0]["group"] == "schedule: pick and switch"
    hidden = _profile([(5, [1])])
    hidden = A.named_chains(hidden, A.Symbols("0000000000000000 T a\n"))
    assert "kptr_restrict" in A.attribute(hidden, 1.0)["error"]


def test_no_profile_or_hidden_addresses_say_why_in_one_line():
    assert "refused" in A.attribute({"error": "perf_event_open refused: EACCES"}, 1.0, SYM)["error"]
    hidden = A.Symbols("0000000000000000 T a\n")
    e = A.attribute(_profile([(1, [1])]), 1.0, hidden)["error"]
    assert "kptr_restrict" in e and "\n" not in e
    assert "unreadable" in A.attribute(_profile([(1, [1])]), 1.0, A.Symbols(""))["error"]
