/* The kernel/<...> ids: every mechanism for threads and processes on one CPU
 * (switch cost), pipe and futex across two CPUs (wake-up latency), and the
 * same-CPU pipe and futex again under SCHED_FIFO (/fifo). */
#include "kernel/pingpong.h"

#define PP_CFG(var, m, proc_, cross_)                                                                        \
    static const pp_cfg_t var = {.mech = &m, .process = proc_, .cross = cross_}

#define SW "direct cost of one switch, both parties on one CPU"
#define WK "wake-up latency of one hand-off between two CPUs (not a switch cost)"
#define D  BENCH_DEFAULT
#define Q  (BENCH_DEFAULT | BENCH_QUICK)

PP_CFG(c_tp, mech_pipe, 0, 0);
PP_CFG(c_pp, mech_pipe, 1, 0);
PP_CFG(c_tf, mech_futex, 0, 0);
PP_CFG(c_pf, mech_futex, 1, 0);
PP_CFG(c_te, mech_eventfd, 0, 0);
PP_CFG(c_pe, mech_eventfd, 1, 0);
PP_CFG(c_ts, mech_sem, 0, 0);
PP_CFG(c_ps, mech_sem, 1, 0);
PP_CFG(x_tp, mech_pipe, 0, 1);
PP_CFG(x_pp, mech_pipe, 1, 1);
PP_CFG(x_tf, mech_futex, 0, 1);
PP_CFG(x_pf, mech_futex, 1, 1);

PP_BENCH(b_tp, "kernel/thread/pipe/same-cpu", "switch", c_tp, Q, 300, POLICY_OTHER, SW);
PP_BENCH(b_tf, "kernel/thread/futex/same-cpu", "switch", c_tf, Q, 301, POLICY_OTHER, SW);
PP_BENCH(b_te, "kernel/thread/eventfd/same-cpu", "switch", c_te, D, 302, POLICY_OTHER, SW);
PP_BENCH(b_ts, "kernel/thread/sem/same-cpu", "switch", c_ts, D, 303, POLICY_OTHER, SW);
PP_BENCH(b_pp, "kernel/process/pipe/same-cpu", "switch", c_pp, Q, 310, POLICY_OTHER, SW);
PP_BENCH(b_pf, "kernel/process/futex/same-cpu", "switch", c_pf, Q, 311, POLICY_OTHER, SW);
PP_BENCH(b_pe, "kernel/process/eventfd/same-cpu", "switch", c_pe, D, 312, POLICY_OTHER, SW);
PP_BENCH(b_ps, "kernel/process/sem/same-cpu", "switch", c_ps, D, 313, POLICY_OTHER, SW);

PP_BENCH(f_tp, "kernel/thread/pipe/same-cpu/fifo", "switch", c_tp, D, 320, POLICY_FIFO, SW " (SCHED_FIFO)");
PP_BENCH(f_tf, "kernel/thread/futex/same-cpu/fifo", "switch", c_tf, D, 321, POLICY_FIFO, SW " (SCHED_FIFO)");
PP_BENCH(f_pp, "kernel/process/pipe/same-cpu/fifo", "switch", c_pp, D, 322, POLICY_FIFO, SW " (SCHED_FIFO)");
PP_BENCH(f_pf, "kernel/process/futex/same-cpu/fifo", "switch", c_pf, D, 323, POLICY_FIFO, SW " (SCHED_FIFO)");

PP_BENCH(w_tp, "kernel/thread/pipe/cross-cpu", "wakeup", x_tp, D, 330, POLICY_OTHER, WK);
PP_BENCH(w_tf, "kernel/thread/futex/cross-cpu", "wakeup", x_tf, D, 331, POLICY_OTHER, WK);
PP_BENCH(w_pp, "kernel/process/pipe/cross-cpu", "wakeup", x_pp, Q, 332, POLICY_OTHER, WK);
PP_BENCH(w_pf, "kernel/process/futex/cross-cpu", "wakeup", x_pf, D, 333, POLICY_OTHER, WK);
