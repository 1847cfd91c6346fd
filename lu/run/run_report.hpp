#pragma once
// The run's identity and its report: who ran what (lu/io/run_identity.hpp),
// the results gathered to rank 0, printed, written as JSON and shared with
// every rank as the outcome.
#include <vector>

#include "balance/partition.hpp"
#include "lu/io/report.hpp"
#include "lu/io/run_identity.hpp"
#include "lu/migration/runtime_balancing.hpp"
#include "lu/run/benchmark.hpp"
#include "lu/run/run_context.hpp"

namespace npblu {

/// Collective (the hosts and how ranks wait are gathered to rank 0): the
/// identity of the run `solver` starts, placed from `weights`.
RunIdentity run_identity(const RunContext& ctx, const LuSolver& solver, const std::vector<double>& weights);

/// Step 8 (collective): the report, complete on rank 0.
RunReport build_report(const RunContext& ctx, const RunIdentity& run, const LuSolver& solver,
                       const SolveResult& result, const RuntimeBalancing* balancing);

/// Step 9: prints and writes the report on rank 0 (a failed write is agreed:
/// RunFailure on every rank) and shares the verdict with every rank.
BenchmarkOutcome publish(const RunContext& ctx, RunReport report, const LuSolver& solver);

}  // namespace npblu
