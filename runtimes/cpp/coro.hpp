// C++20 coroutines with symmetric transfer: two coroutines resume each other
// directly (await_suspend returns the other's handle: a tail call, no
// scheduler and no return to the caller in between).
#pragma once
#include <cstdint>
#include <functional>
#include <memory>

#include "measure.hpp"

namespace rt::coro {

std::unique_ptr<pair> make_pair(uint64_t delay_ns);
// k coroutine frames created, run to completion and destroyed: the batch's ns
uint64_t spawn_batch(uint64_t k);
// p coroutines suspended (frames alive) while measure() runs
void park(uint64_t p, const std::function<void()> &measure);

} // namespace rt::coro
