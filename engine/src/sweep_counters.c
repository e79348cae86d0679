#include "sweep_counters.h"
#include "perf_counters.h"
#include <stdio.h>
#include <string.h>

static struct {
    int requested, armed, open;
    int err; /* first refusal (errno), 0 if none */
    const char *err_event;
    pc_set_t a, b;
    uint64_t sum[2][2][PC_MAX_EVENTS]; /* [phase][party][event] */
    int windows[2];
} sc;

void sc_open(bench_run_t *r, pid_t b_tid)
{
    sc.requested = r->opt->counters;
    sc.armed = 0;
    if (!sc.requested || sc.err) return; /* refused once: not asked again */
    if (pc_open(&sc.a, pc_sweep_events, pc_sweep_nevents, 0) ||
        pc_open(&sc.b, pc_sweep_events, pc_sweep_nevents, b_tid)) {
        sc.err = sc.a.err ? sc.a.err : sc.b.err;
        sc.err_event = sc.a.err ? sc.a.err_event : sc.b.err_event;
        pc_close(&sc.a);
        pc_close(&sc.b);
        return;
    }
    sc.open = 1;
    sc.armed = 1;
}

void sc_close(void)
{
    if (sc.open) {
        pc_close(&sc.a);
        pc_close(&sc.b);
    }
    sc.open = sc.armed = 0;
}

int sc_armed(void)
{
    return sc.open && sc.armed;
}

void sc_begin(int phase)
{
    (void)phase;
    if (!sc_armed()) return;
    pc_reset_enable(&sc.b);
    pc_reset_enable(&sc.a);
}

void sc_end(int phase)
{
    if (!sc_armed()) return;
    pc_disable(&sc.a);
    pc_disable(&sc.b);
    uint64_t va[PC_MAX_EVENTS], vb[PC_MAX_EVENTS];
    if (pc_read(&sc.a, va) || pc_read(&sc.b, vb)) return;
    for (int i = 0; i < pc_sweep_nevents; i++) {
        sc.sum[phase][0][i] += va[i];
        sc.sum[phase][1][i] += vb[i];
    }
    sc.windows[phase]++;
}

void sc_sample_done(void)
{
    sc.armed = 0;
}

static void party(json_t *j, const char *key, const uint64_t *v)
{
    json_key(j, key);
    json_obj_begin(j);
    for (int i = 0; i < pc_sweep_nevents; i++) json_kint(j, pc_sweep_events[i].name, (int64_t)v[i]);
    json_obj_end(j);
}

void sc_write(bench_run_t *r, json_t *j)
{
    json_key(j, "counters");
    json_obj_begin(j);
    json_kbool(j, "requested", r->opt->counters);
    json_kbool(j, "available", r->opt->counters && !sc.err && sc.windows[SC_SWITCH] > 0);
    if (sc.err) {
        char why[200];
        snprintf(why, sizeof why, "perf_event_open(%s): %s", sc.err_event ? sc.err_event : "?",
                 strerror(sc.err));
        json_kstr(j, "error", why);
    }
    if (!sc.err && sc.windows[SC_SWITCH]) {
        json_kstr(j, "window",
                  "the discarded first sample after each setup (timed samples are never counted)");
        json_kint(j, "windows", sc.windows[SC_SWITCH]);
        static const char *const phase[2] = {"single", "switch"};
        for (int p = 0; p < 2; p++) {
            json_key(j, phase[p]);
            json_obj_begin(j);
            party(j, "a", sc.sum[p][0]);
            party(j, "b", sc.sum[p][1]);
            json_obj_end(j);
        }
    }
    json_obj_end(j);
    memset(sc.sum, 0, sizeof sc.sum);
    memset(sc.windows, 0, sizeof sc.windows);
}
