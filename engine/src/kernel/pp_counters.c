#include "kernel/pp_counters.h"
#include "core/perf_counters.h"
#include <stdio.h>
#include <string.h>

#include <stdlib.h>

/* One job's counters (bench_run_t.job_state). */
typedef struct sc_state {
    int requested, armed, open;
    int err; /* first refusal (errno), 0 if none */
    const char *err_event;
    const pc_event_t *ev; /* pc_sweep_events unless a test chose others */
    int nev;
    pc_set_t a, b;
    uint64_t sum[2][2][PC_MAX_EVENTS]; /* [phase][party][event] */
    int windows[2];
} sc_state_t;

static sc_state_t none; /* a job without counters (or out of memory): never armed */

static sc_state_t *sc_of(bench_run_t *r)
{
    if (!r->opt->counters) return &none;
    if (!r->job_state) {
        sc_state_t *s = calloc(1, sizeof *s);
        if (s) {
            s->ev = pc_sweep_events;
            s->nev = pc_sweep_nevents;
        }
        r->job_state = s;
    }
    return r->job_state ? r->job_state : &none;
}

void sc_use_events(bench_run_t *r, const pc_event_t *ev, int nev)
{
    sc_state_t *s = sc_of(r);
    if (s == &none) return;
    s->ev = ev;
    s->nev = nev;
}

void sc_open(bench_run_t *r, pid_t b_tid)
{
    sc_state_t *s = sc_of(r);
    if (s == &none) return;
    s->requested = r->opt->counters;
    s->armed = 0;
    if (!s->requested || s->err) return; /* refused once: not asked again */
    if (pc_open(&s->a, s->ev, s->nev, 0) || pc_open(&s->b, s->ev, s->nev, b_tid)) {
        s->err = s->a.err ? s->a.err : s->b.err;
        s->err_event = s->a.err ? s->a.err_event : s->b.err_event;
        pc_close(&s->a);
        pc_close(&s->b);
        return;
    }
    s->open = 1;
    s->armed = 1;
}

void sc_close(bench_run_t *r)
{
    sc_state_t *s = sc_of(r);
    if (s->open) {
        pc_close(&s->a);
        pc_close(&s->b);
    }
    s->open = s->armed = 0;
}

int sc_armed(bench_run_t *r)
{
    sc_state_t *s = sc_of(r);
    return s->open && s->armed;
}

void sc_begin(bench_run_t *r, int phase)
{
    (void)phase;
    sc_state_t *s = sc_of(r);
    if (!sc_armed(r)) return;
    pc_reset_enable(&s->b);
    pc_reset_enable(&s->a);
}

void sc_end(bench_run_t *r, int phase)
{
    sc_state_t *s = sc_of(r);
    if (!sc_armed(r)) return;
    pc_disable(&s->a);
    pc_disable(&s->b);
    uint64_t va[PC_MAX_EVENTS], vb[PC_MAX_EVENTS];
    if (pc_read(&s->a, va) || pc_read(&s->b, vb)) return;
    for (int i = 0; i < s->nev; i++) {
        s->sum[phase][0][i] += va[i];
        s->sum[phase][1][i] += vb[i];
    }
    s->windows[phase]++;
}

void sc_sample_done(bench_run_t *r)
{
    sc_of(r)->armed = 0;
}

static void party(json_t *j, const sc_state_t *s, const char *key, const uint64_t *v)
{
    json_key(j, key);
    json_obj_begin(j);
    for (int i = 0; i < s->nev; i++) json_kint(j, s->ev[i].name, (int64_t)v[i]);
    json_obj_end(j);
}

void sc_write(bench_run_t *r, json_t *j)
{
    sc_state_t *s = sc_of(r);
    json_key(j, "counters");
    json_obj_begin(j);
    json_kbool(j, "requested", r->opt->counters);
    json_kbool(j, "available", r->opt->counters && !s->err && s->windows[SC_SWITCH] > 0);
    if (s->err) {
        char why[200];
        snprintf(why, sizeof why, "perf_event_open(%s): %s", s->err_event ? s->err_event : "?",
                 strerror(s->err));
        json_kstr(j, "error", why);
    }
    if (!s->err && s->windows[SC_SWITCH]) {
        json_kstr(j, "window",
                  "the discarded first sample after each setup (timed samples are never counted)");
        json_kint(j, "windows", s->windows[SC_SWITCH]);
        static const char *const phase[2] = {"single", "switch"};
        for (int p = 0; p < 2; p++) {
            json_key(j, phase[p]);
            json_obj_begin(j);
            party(j, s, "a", s->sum[p][0]);
            party(j, s, "b", s->sum[p][1]);
            json_obj_end(j);
        }
    }
    json_obj_end(j);
    memset(s->sum, 0, sizeof s->sum);
    memset(s->windows, 0, sizeof s->windows);
}
