// std::thread: the caller and a second kernel thread hand a turn word over
// under a mutex with two condition variables; every hand-off blocks one
// thread in the kernel (futex) and wakes the other.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>

#include "measure.hpp"

namespace rt::thread {

std::unique_ptr<pair> make_pair(uint64_t delay_ns);
// k std::threads started and joined: the batch's ns
uint64_t spawn_batch(uint64_t k);
// p threads blocked on a condition variable while measure() runs
void park(uint64_t p, const std::function<void()> &measure);

} // namespace rt::thread
