#include "noise/noise.h"
#include "core/clock.h"
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

uint64_t noise_min_step(unsigned ms)
{
    uint64_t end = clock_ns() + (uint64_t)ms * 1000000ull, prev = clock_ns(), best = UINT64_MAX;
    for (;;) {
        uint64_t now = clock_ns();
        if (now - prev < best) best = now - prev;
        prev = now;
        if (now > end) break;
    }
    return best ? best : 1;
}

static int bin_of(uint64_t ns)
{
    int k = 0;
    while (ns > 1 && k < NOISE_BINS - 1) {
        ns >>= 1;
        k++;
    }
    return k;
}

int noise_measure(uint64_t window_ns, uint64_t threshold_ns, noise_result_t *r)
{
    memset(r, 0, sizeof *r);
    /* calibrated unless the caller gives the threshold (min_step_ns 0) */
    r->min_step_ns = threshold_ns ? 0 : noise_min_step(20);
    r->threshold_ns = threshold_ns ? threshold_ns : 20 * r->min_step_ns;
    r->window_ns = window_ns;
    const uint64_t thr = r->threshold_ns;
    uint64_t start = clock_ns(), end = start + window_ns, prev = start, steps = 0;
    r->t_start = start;
    for (;;) {
        uint64_t now = clock_ns();
        uint64_t d = now - prev;
        steps++;
        if (d > thr) {
            r->count++;
            r->total_ns += d;
            if (d > r->longest_ns) r->longest_ns = d;
            int b = bin_of(d);
            r->hist_count[b]++;
            r->hist_ns[b] += d;
            if (r->ngaps < NOISE_MAX_GAPS) r->gaps[r->ngaps++] = (noise_gap_t){prev - start, d};
        }
        prev = now;
        if (now >= end) break;
    }
    r->steps = steps;
    return 0;
}

int irq_snap_read(int cpu, irq_snap_t *s)
{
    memset(s, 0, sizeof *s);
    FILE *f = fopen("/proc/interrupts", "re");
    if (!f) return -1;
    char line[4096];
    int col = -1, ncols = 0;
    if (fgets(line, sizeof line, f)) {
        char *p = line, *tok;
        while ((tok = strtok_r(p, " \t\n", &p))) {
            if (!strncmp(tok, "CPU", 3) && atoi(tok + 3) == cpu) col = ncols;
            ncols++;
        }
    }
    if (col < 0) {
        fclose(f);
        return -1;
    }
    while (fgets(line, sizeof line, f) && s->n < IRQ_MAX_LINES) {
        char *colon = strchr(line, ':');
        if (!colon) continue;
        *colon = 0;
        char *name = line;
        while (isspace((unsigned char)*name)) name++;
        char *p = colon + 1;
        uint64_t v = 0;
        int got = 0;
        for (int c = 0; c < ncols; c++) {
            while (*p == ' ' || *p == '\t') p++;
            if (!isdigit((unsigned char)*p)) break;
            char *e;
            uint64_t x = strtoull(p, &e, 10);
            if (c == col) {
                v = x;
                got = 1;
            }
            p = e;
        }
        if (!got) continue; /* ERR:, MIS: have one total only */
        while (*p == ' ' || *p == '\t') p++;
        p[strcspn(p, "\n")] = 0;
        int i = s->n++;
        snprintf(s->name[i], sizeof s->name[i], "%.15s", name);
        snprintf(s->desc[i], sizeof s->desc[i], "%.63s", p);
        s->count[i] = v;
    }
    fclose(f);
    return 0;
}
