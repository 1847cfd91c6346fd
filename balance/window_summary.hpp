#pragma once
// What a rank reports to the balancer about the last K iterations: the
// one summary that real runs (lu/migration/collective_balancer, the C API) and
// the model of a striped run (sim/) all feed to the BalancerSession.
#include <span>

#include "balance/diffusive_balancer.hpp"

namespace npblu {

/// One rank's timings of one iteration.
struct IterationTiming {
  double compute = 0.0;    // seconds computing (emulated slowdown included)
  double wait = 0.0;       // seconds blocked in MPI (pipeline and halo)
  double on_cpu = 0.0;     // seconds running on a core (0 where unknown)
  double run_delay = 0.0;  // seconds runnable but waiting for a core
};

/// The per-iteration compute, wait and core share on_cpu / (on_cpu +
/// run_delay) of the window, and the share over the whole window (1 where
/// unknown). Every sample is kept: the balancer needs their spread, not only
/// their middle (a core lost to other work for an iteration is spread).
RankSamples samples_of(std::span<const IterationTiming> window);

}  // namespace npblu
