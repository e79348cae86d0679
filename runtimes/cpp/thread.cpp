#include "thread.hpp"

#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

#include "kernel.hpp"

namespace rt::thread {

namespace {

struct thread_pair final : pair {
    std::mutex m;
    std::condition_variable to_a, to_b;
    int turn = 0; // 0: A's, 1: B's
    bool stop = false;
    uint64_t seen_b = 0, delay_ns;
    std::thread b;

    explicit thread_pair(uint64_t d) : delay_ns(d)
    {
        b = std::thread([this] {
            // the delay and the notify outside the lock, so that the woken party
            // never finds the mutex held (which would add switches of its own)
            std::unique_lock lk(m);
            for (;;) {
                to_b.wait(lk, [this] { return turn == 1 || stop; });
                if (stop) return;
                seen_b++;
                lk.unlock();
                spin(delay_ns);
                lk.lock();
                turn = 0;
                lk.unlock();
                to_a.notify_one();
                lk.lock();
            }
        });
    }
    ~thread_pair() override
    {
        {
            std::lock_guard lk(m);
            stop = true;
        }
        to_b.notify_one();
        b.join();
    }

    uint64_t batch(uint64_t n, uint64_t *seen) override
    {
        uint64_t seen_a = 0, b0, t0 = now_ns();
        {
            std::lock_guard lk(m);
            b0 = seen_b;
        }
        for (uint64_t i = 0; i < n; i++) {
            std::unique_lock lk(m);
            turn = 1;
            lk.unlock();
            to_b.notify_one();
            lk.lock();
            to_a.wait(lk, [this] { return turn == 0; });
            lk.unlock();
            seen_a++;
            spin(delay_ns);
        }
        uint64_t t = now_ns() - t0;
        std::lock_guard lk(m);
        *seen += seen_a + (seen_b - b0);
        return t;
    }
};

} // namespace

std::unique_ptr<pair> make_pair(uint64_t delay_ns) { return std::make_unique<thread_pair>(delay_ns); }

uint64_t spawn_batch(uint64_t k)
{
    uint64_t t0 = now_ns();
    for (uint64_t i = 0; i < k; i++) std::thread([] {}).join();
    return now_ns() - t0;
}

void park(uint64_t p, const std::function<void()> &measure)
{
    std::mutex m;
    std::condition_variable cv;
    uint64_t started = 0;
    bool release = false;
    std::vector<std::thread> ts;
    ts.reserve(p);
    // released and joined on every exit path, also when a spawn throws
    struct join_all {
        std::mutex &m;
        std::condition_variable &cv;
        bool &release;
        std::vector<std::thread> &ts;
        ~join_all()
        {
            {
                std::lock_guard lk(m);
                release = true;
            }
            cv.notify_all();
            for (auto &t : ts) t.join();
        }
    } guard{m, cv, release, ts};
    for (uint64_t i = 0; i < p; i++)
        ts.emplace_back([&] {
            std::unique_lock lk(m);
            started++;
            cv.notify_all();
            cv.wait(lk, [&] { return release; });
        });
    {
        std::unique_lock lk(m);
        cv.wait(lk, [&] { return started == p; });
    }
    measure();
}

} // namespace rt::thread
