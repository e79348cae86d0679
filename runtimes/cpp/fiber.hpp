// Boost.Context fibers: the caller and a fiber resume each other
// (fiber::resume, a stack switch in Boost's assembly). The same approach as
// the engine's helper engine/bench/boost_fiber.cpp (a fiber whose body loops
// resuming its caller), measured here by the runtimes protocol.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>

#include "measure.hpp"

namespace rt::fiber {

std::unique_ptr<pair> make_pair(uint64_t delay_ns);
// k fibers created (a fresh stack each), run to completion: the batch's ns
uint64_t spawn_batch(uint64_t k);
// p fibers suspended (stacks alive) while measure() runs
void park(uint64_t p, const std::function<void()> &measure);

} // namespace rt::fiber
