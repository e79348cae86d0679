// Boost.Context fiber ping-pong, for `ctxbench userbench` only (a separate
// helper, not part of the C engine). Same method as user/asm/same-thread:
// per sample, t_single = n messages (a store and a load) with no switch,
// t_switch = n round trips between two fibers (2n switches), and
// value = (t_switch/2 - t_single)/n. Prints one JSON object per sample, with
// the kernel thread's voluntary/involuntary switches over the sample.
//   ctxbench-boost-fiber [--samples S] [--n N] [--cpu C]
#include <boost/context/fiber.hpp>
#include <sched.h>
#include <time.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>

namespace ctx = boost::context;

static uint64_t now_ns()
{
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
    return uint64_t(ts.tv_sec) * 1000000000ull + uint64_t(ts.tv_nsec);
}

static long proc_field(const char *key)
{
    std::ifstream f("/proc/thread-self/status");
    std::string line;
    size_t kl = std::strlen(key);
    while (std::getline(f, line))
        if (line.compare(0, kl, key) == 0 && line.size() > kl && line[kl] == ':')
            return std::atol(line.c_str() + kl + 1);
    return -1;
}

int main(int argc, char **argv)
{
    long samples = 30, n = 20000, cpu = -1; // n: a sample of ~1 ms, short enough to dodge preemption
    for (int i = 1; i + 1 < argc; i += 2) {
        long v = std::strtol(argv[i + 1], nullptr, 10);
        if (!std::strcmp(argv[i], "--samples") && v > 0 && v <= 100000)
            samples = v;
        else if (!std::strcmp(argv[i], "--n") && v > 0 && v <= 1000000000)
            n = v;
        else if (!std::strcmp(argv[i], "--cpu") && v >= 0)
            cpu = v;
        else {
            std::fprintf(stderr, "ctxbench-boost-fiber: bad argument %s %s\n", argv[i], argv[i + 1]);
            return 2;
        }
    }
    if (cpu >= 0) {
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET(int(cpu), &set);
        if (sched_setaffinity(0, sizeof set, &set)) {
            std::perror("ctxbench-boost-fiber: sched_setaffinity");
            return 1;
        }
    }
    volatile uintptr_t msg = 0;
    uint64_t answered = 0;
    ctx::fiber b{[&](ctx::fiber &&a) {
        for (;;) {
            uintptr_t m = msg;
            msg = m + 1;
            answered++;
            a = std::move(a).resume();
        }
        return std::move(a);
    }};
    for (long s = -1; s < samples; s++) { // s = -1: warm-up, not printed
        uint64_t bad = 0;
        long v0 = proc_field("voluntary_ctxt_switches"), i0 = proc_field("nonvoluntary_ctxt_switches");
        uint64_t t0 = now_ns();
        for (long i = 0; i < n; i++) {
            msg = uintptr_t(i);
            if (msg != uintptr_t(i)) bad++;
        }
        uint64_t t1 = now_ns(), before = answered;
        uint64_t t2 = now_ns();
        for (long i = 0; i < n; i++) {
            msg = uintptr_t(i);
            b = std::move(b).resume();
            if (msg != uintptr_t(i) + 1) bad++;
        }
        uint64_t t3 = now_ns();
        long v1 = proc_field("voluntary_ctxt_switches"), i1 = proc_field("nonvoluntary_ctxt_switches");
        if (bad || answered - before != uint64_t(n)) {
            std::fprintf(stderr, "ctxbench-boost-fiber: lost messages\n");
            return 1;
        }
        if (s < 0) continue;
        double ts = double(t1 - t0), tw = double(t3 - t2);
        std::printf("{\"t_single_ns\": %.0f, \"t_switch_ns\": %.0f, \"n\": %ld, \"value\": %.6f, "
                    "\"voluntary\": %ld, \"involuntary\": %ld}\n",
                    ts, tw, n, (tw / 2 - ts) / double(n), v1 - v0, i1 - i0);
    }
    return 0;
}
