/* The anatomy's rungs (ctxbench anatomy): the same-CPU ping-pong with one
 * property added each, for pipe and futex. Not in any suite: the anatomy
 * measures them interleaved with their references, which is what makes
 * their differences parts. A rung the kernel refuses (a prctl, cgroups)
 * fails its setup with one line, which the anatomy reports as skipped. */
#include "kernel/pingpong.h"

#define RUNG_CFG(var, m, proc_, ...) static const pp_cfg_t var = {.mech = &m, .process = proc_, __VA_ARGS__}
#define RUNG(var, idstr, cfgv, flg, ord, docstr)                                                             \
    PP_BENCH(var, idstr, "switch", cfgv, flg, ord, POLICY_OTHER, docstr)

#define SW "direct cost of one switch, both parties on one CPU"

RUNG_CFG(v_tp, mech_pipe, 0, .vector_dirty = 1);
RUNG_CFG(v_tf, mech_futex, 0, .vector_dirty = 1);
RUNG_CFG(i_pp, mech_pipe, 1, .mitigation = MIT_IBPB);
RUNG_CFG(i_pf, mech_futex, 1, .mitigation = MIT_IBPB);
RUNG_CFG(s_pp, mech_pipe, 1, .mitigation = MIT_SSBD);
RUNG_CFG(s_pf, mech_futex, 1, .mitigation = MIT_SSBD);
RUNG_CFG(l_pp, mech_pipe, 1, .mitigation = MIT_L1D_FLUSH);
RUNG_CFG(l_pf, mech_futex, 1, .mitigation = MIT_L1D_FLUSH);
RUNG_CFG(g1_pp, mech_pipe, 1, .cgroups = 1);
RUNG_CFG(g1_pf, mech_futex, 1, .cgroups = 1);
RUNG_CFG(g2_pp, mech_pipe, 1, .cgroups = 2);
RUNG_CFG(g2_pf, mech_futex, 1, .cgroups = 2);
RUNG_CFG(busy, mech_pipe, 0, .busy_ns = 5000);
RUNG_CFG(p_tp, mech_pipe, 0, .profile = 1);
RUNG_CFG(p_tf, mech_futex, 0, .profile = 1);

RUNG(b_v_tp, "kernel/thread/pipe/same-cpu/fpu", v_tp, 0, 340, SW ", dirtying the widest vector state");
RUNG(b_v_tf, "kernel/thread/futex/same-cpu/fpu", v_tf, 0, 341, SW ", dirtying the widest vector state");
RUNG(b_i_pp, "kernel/process/pipe/same-cpu/ibpb", i_pp, 0, 342,
     SW ", indirect branch speculation off (IBPB)");
RUNG(b_i_pf, "kernel/process/futex/same-cpu/ibpb", i_pf, 0, 343,
     SW ", indirect branch speculation off (IBPB)");
RUNG(b_s_pp, "kernel/process/pipe/same-cpu/ssbd", s_pp, 0, 344, SW ", speculative store bypass off (SSBD)");
RUNG(b_s_pf, "kernel/process/futex/same-cpu/ssbd", s_pf, 0, 345, SW ", speculative store bypass off (SSBD)");
RUNG(b_l_pp, "kernel/process/pipe/same-cpu/l1d-flush", l_pp, 0, 346, SW ", L1D flush on switch");
RUNG(b_l_pf, "kernel/process/futex/same-cpu/l1d-flush", l_pf, 0, 347, SW ", L1D flush on switch");
RUNG(b_g1_pp, "kernel/process/pipe/same-cpu/cgroup-same", g1_pp, 0, 348, SW ", both in one new cgroup");
RUNG(b_g1_pf, "kernel/process/futex/same-cpu/cgroup-same", g1_pf, 0, 349, SW ", both in one new cgroup");
RUNG(b_g2_pp, "kernel/process/pipe/same-cpu/cgroup-split", g2_pp, 0, 350, SW ", each in its own new cgroup");
RUNG(b_g2_pf, "kernel/process/futex/same-cpu/cgroup-split", g2_pf, 0, 351, SW ", each in its own new cgroup");
RUNG(b_p_tp, "kernel/thread/pipe/same-cpu/profiled", p_tp, 0, 352,
     SW ", kernel call chains sampled (cpu-clock)");
RUNG(b_p_tf, "kernel/thread/futex/same-cpu/profiled", p_tf, 0, 353,
     SW ", kernel call chains sampled (cpu-clock)");
RUNG(b_busy, "test/anatomy/thread/pipe/busy-5000", busy, BENCH_HIDDEN, 900,
     "test only: thread pipe ping-pong with 5000 ns of busy work per switch (switching run only)");
