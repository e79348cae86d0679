#include "fiber.hpp"

#include <boost/context/fiber.hpp>
#include <stdexcept>
#include <vector>

#include "kernel.hpp"

namespace ctx = boost::context;

namespace rt::fiber {

namespace {

struct fiber_pair final : pair {
    uint64_t seen_b = 0, delay_ns;
    ctx::fiber b;

    // B loops resuming its caller; destroying it while suspended unwinds its
    // stack (Boost's forced_unwind), so it needs no exit path of its own.
    explicit fiber_pair(uint64_t d)
        : delay_ns(d), b{[this](ctx::fiber &&a) {
              for (;;) {
                  seen_b++;
                  spin(delay_ns);
                  a = std::move(a).resume();
              }
              return std::move(a);
          }}
    {
    }

    uint64_t batch(uint64_t n, uint64_t *seen) override
    {
        uint64_t seen_a = 0, b0 = seen_b, t0 = now_ns();
        for (uint64_t i = 0; i < n; i++) {
            b = std::move(b).resume();
            seen_a++;
            spin(delay_ns);
        }
        uint64_t t = now_ns() - t0;
        if (!b) throw std::runtime_error("fiber B ended");
        *seen += seen_a + (seen_b - b0);
        return t;
    }
};

} // namespace

std::unique_ptr<pair> make_pair(uint64_t delay_ns) { return std::make_unique<fiber_pair>(delay_ns); }

uint64_t spawn_batch(uint64_t k)
{
    uint64_t runs = 0, t0 = now_ns();
    for (uint64_t i = 0; i < k; i++) {
        ctx::fiber f{[&runs](ctx::fiber &&caller) {
            runs++;
            return std::move(caller);
        }};
        f = std::move(f).resume(); // runs to completion: f is empty again
    }
    uint64_t t = now_ns() - t0;
    if (runs != k) throw std::runtime_error("a fiber did not run");
    return t;
}

void park(uint64_t p, const std::function<void()> &measure)
{
    std::vector<ctx::fiber> fs;
    fs.reserve(p);
    for (uint64_t i = 0; i < p; i++) {
        ctx::fiber f{[](ctx::fiber &&caller) {
            caller = std::move(caller).resume(); // parks here until resumed once more
            return std::move(caller);
        }};
        fs.push_back(std::move(f).resume());
    }
    measure();
    for (auto &f : fs) f = std::move(f).resume(); // each runs to its end
}

} // namespace rt::fiber
