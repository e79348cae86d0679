"""The default sweep plan comes from the host and the budget (issue 22),
without measuring: a fake host with a 256 MiB LLC and a per-point cost
model stand for a machine where the old default planned 322 points up to
512 MiB and ended with 176 of them lacking their pilot."""
import pytest

from ctxbench.records import RECORDS

from ctxbench.core.errors import UserError
from ctxbench.sweep import cost, fit, plan

MIB = 1 << 20
BIG = {"topology": {"caches": [
    {"level": 1, "type": "data", "size": 48 << 10, "shared_by_pus": 1},
    {"level": 2, "type": "unified", "size": 2 * MIB, "shared_by_pus": 1},
    {"level": 3, "type": "unified", "size": 256 * MIB, "shared_by_pus": 2}]},
    "tlb": {"dtlb": [{"level": 1, "entries": 64, "page_size": 4096}]}}
IDS = ["kernel/process/pipe/same-cpu", "user/asm/same-thread"]
GROUPS, START_S, FINISH_S = 3, 0.5, 35


def big_host_cost(bid, size, stride):
    """Seconds per round on the 256 MiB-LLC host: 30 ms of samples, and
    past that ~30 passes a round at 1 ns per element in the caches and
    15 ns per line from memory (both arrays past the LLC share)."""
    if not stride:
        return 0.03
    line = 15.0 if 2 * size > 128 * MIB else 1.0
    return 0.03 + 30 * size / 8 * (1.0 + min(stride, 64) / 64 * line) * 1e-9 + 5e-9 * size


def candidate(env):
    return {s: tuple(plan.DEFAULT_STRIDES) for s in plan.default_sizes(env)}


def seconds(grid, c, rounds, done=0):
    """What `rounds` rounds of every point take, as the sweep runs them:
    every mechanism's points, one engine start-up per process."""
    per_round = sum(c(b, s, d) for b in IDS for s, d in fit.points_of(grid))
    return (rounds - done) * per_round + len(IDS) * START_S * (fit.engine_processes(rounds, GROUPS) - min(done, 1))


def choose(env, c, budget, sizes=None, strides=None):
    return fit.choose(env, sizes or plan.default_sizes(env), strides or list(plan.DEFAULT_STRIDES),
                      sizes is not None, strides is not None, IDS, c, budget - FINISH_S, budget, GROUPS, START_S)


def test_the_default_plan_pilots_every_point_on_a_256M_llc_host():
    """The old default (every size until one party's array is the LLC,
    every stride) costs far more than 300 s there; the plan keeps what the
    pilot and the allocation's rounds can pay for, past the L2, says what
    it left out, and the budgets it names do include it."""
    whole = candidate(BIG)
    assert max(whole) == 256 * MIB and len(fit.points_of(whole)) * 2 > 300  # one party's array: the LLC
    assert seconds(whole, big_host_cost, GROUPS) > 300  # its pilot alone does not fit
    f = choose(BIG, big_host_cost, 300)
    assert seconds(f.grid, big_host_cost, GROUPS) <= 300 - FINISH_S  # the pilot of every planned point fits
    assert f.rounds == fit.PLAN_ROUNDS and seconds(f.grid, big_host_cost, f.rounds) <= 300 - FINISH_S
    assert f.seconds == pytest.approx(seconds(f.grid, big_host_cost, f.rounds))
    pts = set(f.points())
    assert pts < set(fit.points_of(whole))
    # what an expensive point gives up: strides, then sizes; the cheap sizes keep every stride
    assert all(f.grid[s] == tuple(plan.DEFAULT_STRIDES) for s in f.grid if s <= 2 * MIB)
    assert len(f.grid[max(f.grid)]) < len(plan.DEFAULT_STRIDES)  # the dearest kept size
    assert all(64 in ds and 0 in ds for ds in f.grid.values())
    # past the L2 at strides >= 64, in every octave up to the largest size
    assert sum(1 for s, d in pts if s >= 2 * MIB and d >= 64) >= 10
    assert all(b <= fit.MAX_GAP * a for a, b in zip(sorted(f.grid), sorted(f.grid)[1:]))
    # past the LLC share a round takes 9-18 s: those sizes would take the time of all the rest
    assert max(f.grid) < 128 * MIB
    # what was left out, and budgets that include it
    assert f.left_out and any("256M" in x for x in f.left_out)
    assert f.budget_top and f.budget_all and 300 < f.budget_top < f.budget_all
    assert max(choose(BIG, big_host_cost, f.budget_top).grid) == 256 * MIB
    assert choose(BIG, big_host_cost, f.budget_all).grid == whole
    assert "left out" in fit.describe(f) and f"--budget {f.budget_all}" in fit.describe(f)


@pytest.mark.parametrize("slower", [1.0, 3.0, 10.0])
def test_the_first_round_refits_what_the_model_got_wrong(slower):
    """The host is slower than the model by 1-10x: the first pilot round
    stops at its share of the time (a third: two more rounds follow), the
    sizes it did not reach are left out, and the grid fitted again to
    what the round cost leaves the pilot's other rounds time to finish."""
    time_s = 300 - FINISH_S
    f = choose(BIG, big_host_cost, 300)

    def real(b, s, d):
        return slower * big_host_cost(b, s, d)

    spent, measured = len(IDS) * START_S, set()
    for b in IDS:  # the engine measures each mechanism's points in order, until its share ends
        for s, d in f.points():
            if spent + real(b, s, d) > time_s / GROUPS * (IDS.index(b) + 1) / len(IDS):
                break
            spent += real(b, s, d)
            measured.add((b, s, d))
    grid, why, ok = fit.refit(f.grid, lambda b, s, d: (b, s, d) in measured, IDS, real, time_s - spent, 300,
                              GROUPS, START_S, BIG, False, False)
    assert ok and grid
    assert seconds(grid, real, GROUPS, done=1) <= time_s - spent  # rounds 2-3 of every point left
    assert all((b, s, d) in measured for b in IDS for s, d in fit.points_of(grid))
    if slower > 1:
        assert why and set(fit.points_of(grid)) < set(f.points())
    else:
        assert not why and grid == f.grid


def test_too_short_a_budget_shrinks_the_grid_or_refuses_in_one_line():
    """--budget 40 leaves 5 s to measure: a grid that fits, with what it
    left out and the budget that includes it; a host where not even the
    smallest sweep fits is refused with the budget it needs, and that
    budget is then enough."""
    here = {"topology": {"caches": [{"level": 1, "type": "data", "size": 32 << 10},
                                    {"level": 2, "type": "unified", "size": 512 << 10},
                                    {"level": 3, "type": "unified", "size": 32 * MIB, "shared_by_pus": 2}]}}
    model = cost.Model(cost.Host.from_env(here), 5, 2000).round_s
    f = choose(here, model, 40)
    assert seconds(f.grid, model, f.rounds) <= 5 and f.rounds >= GROUPS
    assert max(f.grid) >= 512 << 10  # still past the L2
    assert f.left_out and f.budget_all > 40
    with pytest.raises(UserError) as e:
        choose(BIG, lambda b, s, d: 10 * big_host_cost(b, s, d), 40)
    msg = str(e.value)
    assert "\n" not in msg and "--budget" in msg
    need = int(msg.rsplit("--budget ", 1)[1].split()[0])
    assert need > 40
    g = choose(BIG, lambda b, s, d: 10 * big_host_cost(b, s, d), need)
    assert seconds(g.grid, lambda b, s, d: 10 * big_host_cost(b, s, d), GROUPS) <= need - FINISH_S


def test_a_smaller_grid_keeps_less_back_to_finish():
    """What finishing takes (analysis, figures) grows with the points: a
    short budget spends on measuring what a small grid does not need to
    finish, and the grid, its rounds and its reserve together fit."""
    def reserve(n):
        return min(35.0, 6.0 + 0.12 * n)
    fixed = choose(BIG, big_host_cost, 60)
    f = fit.choose(BIG, plan.default_sizes(BIG), list(plan.DEFAULT_STRIDES), False, False, IDS, big_host_cost,
                   60, 60, GROUPS, START_S, reserve)
    n = len(f.points()) * len(IDS)
    assert seconds(f.grid, big_host_cost, f.rounds) + reserve(n) <= 60
    assert f.measure_s == pytest.approx(60 - reserve(n)) and f.measure_s > fixed.measure_s
    assert len(f.points()) > len(fixed.points())
    assert f"of the {f.measure_s:.0f} s to measure" in fit.describe(f)


def test_a_grid_the_user_gave_is_never_thinned():
    """--sizes and --strides together: measured as given or refused before
    measuring with the budget its pilot needs; one of them alone keeps what
    it gave (every size, or every stride at every size)."""
    sizes, strides = [1 << 10, 256 * MIB, 512 * MIB], [0, 8, 64, 256]
    with pytest.raises(UserError, match="--budget") as e:
        choose(BIG, big_host_cost, 300, sizes=sizes, strides=strides)
    need = int(str(e.value).rsplit("--budget ", 1)[1].split()[0])
    f = choose(BIG, big_host_cost, need, sizes=sizes, strides=strides)
    assert f.grid == {s: tuple(strides) for s in sizes} and not f.left_out
    assert f.rounds == GROUPS and f.budget_all > need  # the pilot, not PLAN_ROUNDS: said, with the budget for it
    assert f"pays for {fit.PLAN_ROUNDS} rounds" in fit.describe(f)
    small = choose(BIG, big_host_cost, 300, sizes=[1 << 10, 4 << 10], strides=[0, 64])
    assert small.grid == {1 << 10: (0, 64), 4 << 10: (0, 64)} and small.rounds == fit.PLAN_ROUNDS
    only_sizes = choose(BIG, big_host_cost, 300, sizes=[1 << 10, 1 * MIB, 16 * MIB, 64 * MIB])
    assert sorted(only_sizes.grid) == [1 << 10, 1 * MIB, 16 * MIB, 64 * MIB]
    only_strides = choose(BIG, big_host_cost, 300, strides=[0, 16, 64])
    assert all(ds == (0, 16, 64) for ds in only_strides.grid.values())


def test_cost_model_reads_the_host_and_grows_with_the_pass():
    h = cost.Host.from_env(BIG)
    assert (h.l1, h.l2, h.llc_share) == (48 << 10, 2 * MIB, 128 * MIB)
    assert h.level(64 << 10) == "L2" and h.level(256 * MIB) == "memory"
    m = cost.Model(h, 5, 2000)
    floor = m.round_s("x", 1 << 10, 0)
    assert floor == m.round_s("x", 512 * MIB, 0)  # no array at stride 0: the samples' length alone
    assert floor == pytest.approx(cost.FIXED_S + 8 * 1.5 * 2e-3)
    assert m.round_s("x", 512 * MIB, 64) > 20 * m.round_s("x", 16 * MIB, 64) > 20 * floor
    assert m.round_s("x", 32 * MIB, 8) < m.round_s("x", 32 * MIB, 64)
    assert cost.Host.from_env({}).level(1 << 40) == "memory"


def test_a_resumed_file_keeps_its_own_plan():
    rec = {"strides_by_size": {"1024": [0, 8, 64], "2048": [64, 0]}}
    assert plan.grid_of_file(rec, "f") == {1024: (0, 8, 64), 2048: (0, 64)}
    # a file from before issue 22 (no plan) gets its sizes x strides on reading (core/results/upgrade.py)
    old = RECORDS.read({"schema": "ctxbench/1", "results": [], "sweep": {"sizes": [1024], "strides": [8, 0]}})
    assert plan.grid_of_file(old.sweep.plan, "f") == {1024: (0, 8)}
    assert plan.grid_of_file({}, "f") is None
    assert plan.grid_of_file(None, "f") is None
    for bad in ({"1024": [8]}, {"x": [0]}, {"1001": [0]}, []):
        with pytest.raises(UserError, match="malformed"):
            plan.grid_of_file({"strides_by_size": bad}, "f")
