// The protocol's measuring loop (runtimes/PROTOCOL.md), shared by every mechanism:
// N doubled until a batch lasts min-sample-us, warm-up until the per-batch
// time is stable, then G groups of I samples, each group with a fresh pair.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace rt {

struct opts {
    int groups = 3, iterations = 10;
    uint64_t min_sample_ns = 1000000, warmup_ms = 200;
    // the known-answer delays: one (the protocol's --delay-ns D), or several
    // interleaved group by group (--delay-ns 0,1000: the known-answer test)
    std::vector<uint64_t> delays{0};
};

// Two parties passing control back and forth.
struct pair {
    virtual ~pair() = default;
    // n round trips: the batch's wall ns; adds the one-way hand-offs that arrived to *seen
    virtual uint64_t batch(uint64_t n, uint64_t *seen) = 0;
};

struct samples {
    uint64_t n = 0;
    std::vector<uint64_t> total_ns, count;
    std::vector<int> group;
    std::vector<long> voluntary, involuntary, rss_before, rss_after;
    std::string warmup;
    std::vector<std::string> warnings;
};

// per delay: n calibrated, warm-up, then G groups of fresh pairs, the delays
// taking turns group by group (so a drift of the host hits each alike)
std::vector<samples> handoff(const std::function<std::unique_ptr<pair>(uint64_t)> &make, const opts &o);
// k spawn+joins per batch: returns the batch's ns
samples spawn(const std::function<uint64_t(uint64_t)> &batch, uint64_t k, const opts &o);
// park(p, measure): p parked, measure() called while all are, then released
samples park(const std::function<void(uint64_t, const std::function<void()> &)> &run, uint64_t p, const opts &o);

} // namespace rt
