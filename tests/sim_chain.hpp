#pragma once
// The modelled runs the lu-sim tests start from (tests/test_sim.cpp,
// tests/test_time_shared_model.cpp).
#include <string>

#include "sim/simulation.hpp"

namespace npblu::sim_test {

// P ranks of 20 columns, class-A-like planes, 250 iterations.
inline sim::SimConfig chain(int ranks, sim::BalanceMode mode, const std::string& speeds, double noise) {
  sim::SimConfig c;
  c.grid = {64, 20 * ranks + 2, 64};
  c.ranks = ranks;
  c.iterations = 250;
  c.balance = mode;
  c.speeds = SpeedSchedule::parse(speeds, ranks);
  c.noise = noise;
  c.seed = 5;
  return c;
}

}  // namespace npblu::sim_test
