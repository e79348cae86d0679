#include "measure.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>

#include "kernel.hpp"

namespace rt {

namespace {
constexpr uint64_t n_cap = 1ull << 26, batch_cap_ns = 1000000000ull; // no batch beyond ~1 s
constexpr size_t stable_run = 3;                                     // warm-up judged over the last 3 batches,
constexpr double stable_tol = 0.05;                                  // each within 5% of their median

bool stable(const std::vector<double> &per)
{
    if (per.size() < stable_run) return false;
    std::vector<double> last(per.end() - stable_run, per.end());
    std::sort(last.begin(), last.end());
    double mid = last[stable_run / 2];
    return std::all_of(last.begin(), last.end(), [&](double v) { return std::fabs(v - mid) <= stable_tol * mid; });
}

void record(samples &s, int g, uint64_t t, uint64_t count, switches a, switches b)
{
    s.total_ns.push_back(t);
    s.count.push_back(count);
    s.group.push_back(g);
    s.voluntary.push_back(b.voluntary - a.voluntary);
    s.involuntary.push_back(b.involuntary - a.involuntary);
}
} // namespace

namespace {
// n calibrated on one pair, which is then warmed up: a samples with n and the warm-up said
samples prepare(const std::function<std::unique_ptr<pair>()> &make, const opts &o)
{
    samples s;
    uint64_t n = 1, seen = 0;
    {
        auto p = make();
        // two batches in a row long enough: a first one slowed by the parties' start-up is not
        for (int long_enough = 0; long_enough < 2;) {
            uint64_t t = p->batch(n, &seen);
            if (n >= n_cap || 2 * t > batch_cap_ns) break;
            if (t >= o.min_sample_ns) long_enough++;
            else {
                long_enough = 0;
                n *= 2;
            }
        }
        // at least warmup-ms, then on until stable, for at most 3x as long
        uint64_t t0 = now_ns(), floor = o.warmup_ms * 1000000ull, limit = 3 * std::max<uint64_t>(o.warmup_ms, 1) * 1000000ull;
        std::vector<double> per;
        while (now_ns() - t0 < limit && per.size() < 100000) {
            per.push_back(double(p->batch(n, &seen)) / double(n));
            if (now_ns() - t0 >= floor && stable(per)) break;
        }
        bool ok = stable(per);
        char m[256];
        std::snprintf(m, sizeof m,
                      "compiled ahead of time (no JIT); %zu warm-up batches over %llu ms: per-batch time %s within %d%% over the last %zu",
                      per.size(), (unsigned long long)((now_ns() - t0) / 1000000), ok ? "stable" : "NOT stable",
                      int(stable_tol * 100), stable_run);
        s.warmup = m;
        if (!ok) s.warnings.push_back("warm-up did not reach a stable per-batch time");
    }
    s.n = n;
    return s;
}
} // namespace

std::vector<samples> handoff(const std::function<std::unique_ptr<pair>(uint64_t)> &make, const opts &o)
{
    std::vector<samples> out;
    for (uint64_t d : o.delays) out.push_back(prepare([&] { return make(d); }, o));
    for (int g = 0; g < o.groups; g++)
        for (size_t k = 0; k < o.delays.size(); k++) {
            samples &s = out[k];
            uint64_t n = s.n;
            auto p = make(o.delays[k]);
            for (int i = 0; i < o.iterations; i++) {
                uint64_t got = 0;
                switches a = read_switches();
                uint64_t t = p->batch(n, &got);
                switches b = read_switches();
                if (got != 2 * n)
                    throw std::runtime_error(std::to_string(got) + " of " + std::to_string(2 * n) + " hand-offs arrived");
                record(s, g, t, 2 * n, a, b);
            }
        }
    return out;
}

samples spawn(const std::function<uint64_t(uint64_t)> &batch, uint64_t k, const opts &o)
{
    samples s;
    s.n = k;
    s.warmup = "one batch of the same spawns before timing";
    batch(k);
    for (int g = 0; g < o.groups; g++)
        for (int i = 0; i < o.iterations; i++) {
            switches a = read_switches();
            uint64_t t = batch(k);
            switches b = read_switches();
            record(s, g, t, k, a, b);
        }
    return s;
}

samples park(const std::function<void(uint64_t, const std::function<void()> &)> &run, uint64_t p, const opts &o)
{
    samples s;
    s.n = p;
    s.warmup = "none (one sample per group)";
    for (int g = 0; g < o.groups; g++) {
        long before = rss_bytes(), after = 0;
        run(p, [&] { after = rss_bytes(); });
        s.rss_before.push_back(before);
        s.rss_after.push_back(after);
        s.count.push_back(p);
        s.group.push_back(g);
    }
    return s;
}

} // namespace rt
