#include "coro.hpp"

#include <coroutine>
#include <exception>
#include <stdexcept>
#include <vector>

#include "kernel.hpp"

namespace rt::coro {

namespace {

// A coroutine that starts suspended and, at its end, returns control to
// whoever resumed it (std::noop_coroutine: resume() returns).
struct task {
    struct promise_type {
        task get_return_object() { return task{std::coroutine_handle<promise_type>::from_promise(*this)}; }
        std::suspend_always initial_suspend() noexcept { return {}; }
        std::suspend_always final_suspend() noexcept { return {}; }
        void return_void() {}
        void unhandled_exception() { std::terminate(); }
    };
    std::coroutine_handle<promise_type> h;
};

// co_await transfer{to}: suspend and resume `to` by symmetric transfer.
struct transfer {
    std::coroutine_handle<> to;
    bool await_ready() const noexcept { return false; }
    std::coroutine_handle<> await_suspend(std::coroutine_handle<>) const noexcept { return to; }
    void await_resume() const noexcept {}
};

struct state {
    std::coroutine_handle<> a, b;
    uint64_t seen_a = 0, seen_b = 0, delay_ns = 0;
};

// Party A: n round trips, then back to the caller (final_suspend).
task party_a(state &s, uint64_t n)
{
    for (uint64_t i = 0; i < n; i++) {
        co_await transfer{s.b};
        s.seen_a++;
        spin(s.delay_ns);
    }
}

// Party B: answers A for as long as its frame lives (destroyed while suspended).
task party_b(state &s)
{
    for (;;) {
        s.seen_b++;
        spin(s.delay_ns);
        co_await transfer{s.a};
    }
}

struct coro_pair final : pair {
    state s;
    std::coroutine_handle<task::promise_type> b;

    explicit coro_pair(uint64_t delay_ns)
    {
        s.delay_ns = delay_ns;
        b = party_b(s).h;
        s.b = b;
    }
    ~coro_pair() override { b.destroy(); }

    uint64_t batch(uint64_t n, uint64_t *seen) override
    {
        auto a = party_a(s, n).h; // frame allocated before the clock starts
        s.a = a;
        uint64_t a0 = s.seen_a, b0 = s.seen_b;
        uint64_t t0 = now_ns();
        a.resume();
        uint64_t t = now_ns() - t0;
        bool done = a.done();
        a.destroy();
        if (!done) throw std::runtime_error("coroutine A did not finish its round trips");
        *seen += (s.seen_a - a0) + (s.seen_b - b0);
        return t;
    }
};

task empty(uint64_t &runs)
{
    runs++;
    co_return;
}

task parked()
{
    co_await std::suspend_always{};
}

} // namespace

std::unique_ptr<pair> make_pair(uint64_t delay_ns) { return std::make_unique<coro_pair>(delay_ns); }

uint64_t spawn_batch(uint64_t k)
{
    uint64_t runs = 0, t0 = now_ns();
    for (uint64_t i = 0; i < k; i++) {
        auto h = empty(runs).h;
        h.resume();
        h.destroy();
    }
    uint64_t t = now_ns() - t0;
    if (runs != k) throw std::runtime_error("a coroutine did not run");
    return t;
}

void park(uint64_t p, const std::function<void()> &measure)
{
    std::vector<std::coroutine_handle<task::promise_type>> hs;
    hs.reserve(p);
    struct destroy_all {
        std::vector<std::coroutine_handle<task::promise_type>> &hs;
        ~destroy_all()
        {
            for (auto h : hs) h.destroy();
        }
    } guard{hs};
    for (uint64_t i = 0; i < p; i++) {
        hs.push_back(parked().h);
        hs.back().resume(); // runs to its co_await and parks there
    }
    measure();
}

} // namespace rt::coro
