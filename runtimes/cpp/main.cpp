// ctxbench-rt-cpp: the C++ harness of `ctxbench runtimes` (issue 24). Speaks
// the protocol of runtimes/PROTOCOL.md: arguments in, JSON lines out.
#include <boost/version.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <stdexcept>
#include <string>
#include <vector>

#include "coro.hpp"
#include "kernel.hpp"
#include "fiber.hpp"
#include "measure.hpp"
#include "thread.hpp"

#ifndef RT_CXXFLAGS
#define RT_CXXFLAGS "unknown"
#endif

using json = nlohmann::ordered_json;

namespace {

const char *const name = "ctxbench-rt-cpp";
// At most this many kernel threads are parked for --park (10^5 would hit the
// host's thread limits); the result says how many were.
const uint64_t thread_park_cap = 2000;

struct mechanism {
    const char *name, *family, *doc, *spawn_doc, *park_doc;
    int workers;
    std::unique_ptr<rt::pair> (*make)(uint64_t);
    uint64_t (*spawn)(uint64_t);
    void (*park)(uint64_t, const std::function<void()> &);
};

const mechanism mechanisms[] = {
    {"coroutine", "coroutine",
     "two C++20 coroutines resume each other by symmetric transfer (await_suspend returns the other's handle)",
     "create a C++20 coroutine frame (heap), run it to completion, destroy it",
     "resident bytes per C++20 coroutine suspended at a co_await (its heap frame)", 1, rt::coro::make_pair,
     rt::coro::spawn_batch, rt::coro::park},
    {"boost-fiber", "boost-fiber", "the caller and a Boost.Context fiber resume each other (fiber::resume)",
     "create a Boost.Context fiber (its own default-size stack), run it to completion",
     "resident bytes per suspended Boost.Context fiber (default fixedsize stack)", 1, rt::fiber::make_pair,
     rt::fiber::spawn_batch, rt::fiber::park},
    {"thread-condvar", "thread",
     "two std::thread kernel threads hand a turn word over with a mutex and two condition variables",
     "start an empty std::thread and join it",
     "resident bytes per std::thread blocked on a condition variable (user stack; the kernel stack is not in RSS)", 2,
     rt::thread::make_pair, rt::thread::spawn_batch, rt::thread::park},
};

struct args {
    std::vector<const mechanism *> mechs;
    std::string placement;
    rt::opts o;
    uint64_t spawn = 0, park = 0;
    bool list = false;
};

uint64_t number(int argc, char **argv, int &i, uint64_t lo, uint64_t hi)
{
    std::string flag = argv[i];
    if (++i >= argc) throw std::invalid_argument(flag + " wants a value");
    char *end = nullptr;
    errno = 0;
    unsigned long long v = std::strtoull(argv[i], &end, 10);
    if (errno || *end || end == argv[i] || argv[i][0] == '-' || v < lo || v > hi)
        throw std::invalid_argument(flag + " wants an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) +
                                    "], not \"" + argv[i] + "\"");
    return v;
}

args parse(int argc, char **argv)
{
    args a;
    for (auto &m : mechanisms) a.mechs.push_back(&m);
    for (int i = 1; i < argc; i++) {
        std::string f = argv[i];
        if (f == "--list") a.list = true;
        else if (f == "--mechanisms") {
            if (++i >= argc) throw std::invalid_argument("--mechanisms wants a value");
            a.mechs.clear();
            std::string v = argv[i];
            for (size_t at = 0; at <= v.size();) {
                size_t comma = std::min(v.find(',', at), v.size());
                std::string m = v.substr(at, comma - at);
                auto it = std::find_if(std::begin(mechanisms), std::end(mechanisms), [&](auto &k) { return m == k.name; });
                if (it == std::end(mechanisms))
                    throw std::invalid_argument("unknown mechanism \"" + m + "\" (--list shows them)");
                a.mechs.push_back(&*it);
                at = comma + 1;
            }
        } else if (f == "--placement") {
            if (++i >= argc || (std::strcmp(argv[i], "pinned") && std::strcmp(argv[i], "default")))
                throw std::invalid_argument("--placement is pinned or default");
            a.placement = argv[i];
        } else if (f == "--groups") a.o.groups = int(number(argc, argv, i, 1, 1000));
        else if (f == "--iterations") a.o.iterations = int(number(argc, argv, i, 1, 100000));
        else if (f == "--min-sample-us") a.o.min_sample_ns = number(argc, argv, i, 1, 1000000) * 1000;
        else if (f == "--warmup-ms") a.o.warmup_ms = number(argc, argv, i, 0, 60000);
        else if (f == "--delay-ns") { // one delay, or several interleaved group by group (one result each)
            if (i + 1 >= argc) throw std::invalid_argument("--delay-ns wants a value");
            a.o.delays.clear();
            std::string v = argv[i + 1];
            for (size_t at = 0; at <= v.size();) {
                size_t comma = std::min(v.find(',', at), v.size());
                std::string d = v.substr(at, comma - at);
                char *end = nullptr;
                unsigned long long x = std::strtoull(d.c_str(), &end, 10);
                if (d.empty() || *end || d[0] == '-' || x > 10000000)
                    throw std::invalid_argument("--delay-ns wants integers in [0, 10000000], comma-separated, not \"" + v + "\"");
                a.o.delays.push_back(x);
                at = comma + 1;
            }
            i++;
        }
        else if (f == "--spawn") a.spawn = number(argc, argv, i, 1, 1000000);
        else if (f == "--park") a.park = number(argc, argv, i, 1, 1000000);
        else throw std::invalid_argument("unknown argument \"" + f + "\"");
    }
    if (!a.list && a.placement.empty()) throw std::invalid_argument("--placement pinned|default is required");
    return a;
}

json result(const std::string &id, const char *quantity, const char *unit, const char *doc, json params,
            const rt::samples &s, std::vector<double> samples, json raw, uint64_t warmup_ms)
{
    return {{"id", id},
            {"quantity", quantity},
            {"unit", unit},
            {"doc", doc},
            {"params", params},
            {"samples", samples},
            {"group", s.group},
            {"raw", raw},
            {"verify",
             {{"voluntary", s.voluntary},
              {"involuntary", s.involuntary},
              {"source", "getrusage(RUSAGE_SELF) ru_nvcsw/ru_nivcsw, whole process"}}},
            {"warmup", {{"ms", warmup_ms}, {"method", s.warmup}}},
            {"warnings", s.warnings}};
}

std::vector<double> per_unit(const rt::samples &s)
{
    std::vector<double> v;
    for (size_t i = 0; i < s.total_ns.size(); i++) v.push_back(double(s.total_ns[i]) / double(s.count[i]));
    return v;
}

void run(const args &a)
{
    const std::string &pl = a.placement;
    std::cout << json{{"tool", {{"name", name}, {"version", "0"}}},
                      {"runtime",
                       {{"name", "cpp"},
                        {"version", std::string("g++ ") + __VERSION__},
                        {"flags",
                         {{"cxxflags", RT_CXXFLAGS},
                          {"__cplusplus", __cplusplus},
                          {"boost", BOOST_LIB_VERSION}}}}}}
                     .dump()
              << std::endl;
    uint64_t excess = 0;
    for (uint64_t d : a.o.delays)
        if (d) excess = rt::calibrate_spin(d);
    for (const mechanism *m : a.mechs) {
        std::vector<rt::samples> per_delay = rt::handoff(m->make, a.o);
        for (size_t k = 0; k < per_delay.size(); k++) {
            const rt::samples &s = per_delay[k];
            uint64_t d = a.o.delays[k];
            json params = {{"runtime", "cpp"}, {"mechanism", m->name}, {"placement", pl}, {"n", s.n},
                           {"delay_ns", d}, {"delay_overhead_ns", d ? excess : 0}, {"workers", m->workers}};
            std::cout << result("runtimes/cpp/" + std::string(m->name) + "/" + pl, "handoff", "ns", m->doc, params, s,
                                per_unit(s), {{"total_ns", s.total_ns}, {"handoffs", s.count}}, a.o.warmup_ms)
                             .dump()
                      << std::endl;
        }
        if (a.spawn) {
            rt::samples sp = rt::spawn(m->spawn, a.spawn, a.o);
            json p = {{"runtime", "cpp"}, {"mechanism", m->family}, {"placement", pl}, {"n", a.spawn}};
            std::cout << result("runtimes/cpp/" + std::string(m->family) + "/spawn/" + pl, "spawn", "ns", m->spawn_doc,
                                p, sp, per_unit(sp), {{"total_ns", sp.total_ns}, {"spawns", sp.count}}, 0)
                             .dump()
                      << std::endl;
        }
        if (a.park) {
            bool thread = std::string(m->family) == "thread";
            uint64_t p = thread ? std::min(a.park, thread_park_cap) : a.park;
            rt::samples pk = rt::park(m->park, p, a.o);
            if (p != a.park)
                pk.warnings.push_back(std::to_string(p) + " kernel threads parked, not the " + std::to_string(a.park) +
                                      " asked");
            std::vector<double> per;
            for (size_t i = 0; i < pk.rss_before.size(); i++)
                per.push_back(double(pk.rss_after[i] - pk.rss_before[i]) / double(p));
            json params = {{"runtime", "cpp"}, {"mechanism", m->family}, {"placement", pl}, {"parked", p}};
            std::cout << result("runtimes/cpp/" + std::string(m->family) + "/memory/" + pl, "memory", "bytes",
                                m->park_doc, params, pk, per,
                                {{"rss_before", pk.rss_before},
                                 {"rss_after", pk.rss_after},
                                 {"source", "VmRSS of /proc/self/status"}},
                                0)
                             .dump()
                      << std::endl;
        }
    }
}

} // namespace

int main(int argc, char **argv)
{
    try {
        args a = parse(argc, argv);
        if (a.list) {
            for (auto &m : mechanisms) std::cout << json{{"mechanism", m.name}, {"doc", m.doc}}.dump() << "\n";
            return 0;
        }
        run(a);
    } catch (const std::exception &e) {
        std::fprintf(stderr, "%s: %s\n", name, e.what());
        return 1;
    }
    return 0;
}
