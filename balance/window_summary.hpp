#pragma once
// What a rank reports to the balancer about the last K iterations: the
// one summary that real runs (lu/app/runtime_balancing) and the model of a
// striped run (sim/) both feed to DiffusiveBalancer::decide.
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

/// Median compute and wait, times the number of iterations (OS jitter on a
/// shared node makes single iterations up to twice as slow, and a sum would
/// chase those spikes), and the core share on_cpu / (on_cpu + run_delay)
/// over the window (1 where unknown). `after_migration`: the first
/// iteration after a migration pays page faults in freshly allocated fields,
/// a transient and not the new stripe's cost, so it is left out.
RankWindow summarize_window(std::span<const IterationTiming> window, bool after_migration);

}  // namespace npblu
