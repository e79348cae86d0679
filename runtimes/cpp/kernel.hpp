// The monotonic clock, the known-answer busy wait and the kernel's view of
// the process (switch counts, resident memory).
#pragma once
#include <sys/resource.h>
#include <time.h>

#include <cstdint>
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

// The receiver of each one-way hand-off spins delay_ns from now, so the
// one-way figure grows by the delay.
inline void spin(uint64_t delay_ns)
{
    if (delay_ns == 0) return;
    uint64_t start = now_ns();
    while (now_ns() - start < delay_ns) {
    }
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
