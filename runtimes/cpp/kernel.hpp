// The monotonic clock, the known-answer busy wait and the kernel's view of
// the process (switch counts, resident memory).
#pragma once
#include <sys/resource.h>
#include <time.h>

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <fstream>
#include <stdexcept>
#include <string>

namespace rt {

inline uint64_t now_ns()
{
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return uint64_t(ts.tv_sec) * 1000000000ull + uint64_t(ts.tv_nsec);
}

// What one spin costs beyond its target (the start read, the last read's
// overshoot), subtracted from the target: calibrate_spin measures it.
inline uint64_t spin_excess_ns = 0;

// The receiver of each one-way hand-off spins delay_ns from now, so the
// one-way figure grows by the delay.
inline void spin(uint64_t delay_ns)
{
    if (delay_ns == 0) return;
    uint64_t target = delay_ns > spin_excess_ns ? delay_ns - spin_excess_ns : 0, start = now_ns();
    while (now_ns() - start < target) {
    }
}

// Calibrates the busy wait for delay_ns: after 50 ms of spinning (a CPU that
// was idle may still be slowed), the least over 9 trials of the time one spin
// takes beyond its target, in back-to-back runs of ~1 ms (an interruption only
// adds, so the least is the spin's own). Returns the excess, now subtracted
// from every spin's target.
inline uint64_t calibrate_spin(uint64_t delay_ns)
{
    spin_excess_ns = 0;
    if (delay_ns == 0) return 0;
    uint64_t k = std::clamp<uint64_t>(1000000 / delay_ns, 10, 100000), trials[9];
    spin(50000000);
    for (auto &t : trials) {
        uint64_t t0 = now_ns();
        for (uint64_t i = 0; i < k; i++) spin(delay_ns);
        uint64_t per = (now_ns() - t0) / k;
        t = per > delay_ns ? per - delay_ns : 0;
    }
    return spin_excess_ns = *std::min_element(std::begin(trials), std::end(trials));
}

struct switches {
    long voluntary, involuntary;
};

// getrusage(RUSAGE_SELF): the whole process, every thread.
inline switches read_switches()
{
    rusage ru{};
    getrusage(RUSAGE_SELF, &ru);
    return {ru.ru_nvcsw, ru.ru_nivcsw};
}

inline long rss_bytes()
{
    std::ifstream f("/proc/self/status");
    std::string line;
    while (std::getline(f, line))
        if (line.rfind("VmRSS:", 0) == 0) return std::stol(line.substr(6)) * 1024;
    throw std::runtime_error("no VmRSS in /proc/self/status");
}

} // namespace rt
