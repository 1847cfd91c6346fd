#pragma once
// Where the stripes go at the start of a run: weights every rank agrees on
// (equal, given on the command line or in a file, or measured) and the
// partition from them or from --columns.
#include <cstdint>
#include <optional>
#include <vector>

#include "balance/partition.hpp"
#include "lu/run/run_context.hpp"

namespace npblu {

/// Step 2 (collective): weights every rank agrees on: equal, given (a file is
/// read by rank 0 and broadcast), or measured on each rank and gathered.
std::vector<double> agree_on_weights(const RunContext& ctx);
/// Step 3: the stripes, from --columns or the weights.
Partition place_stripes(const RunContext& ctx, const std::vector<double>& weights);
/// Step 3b (collective), before anything is allocated: each node has the
/// memory its ranks' stripes of `partition` need (lu/run/memory_check.hpp,
/// unless --memory-check off); throws the same RunError on every rank if not.
/// Returns this rank's share of the room its node has left (NodeMemory::room;
/// none when unknown or not checked).
std::optional<std::uint64_t> check_memory(const RunContext& ctx, const Partition& partition);
/// Collective: the most columns each rank may hold for the run-time balancer,
/// its stripe in `solver` grown within its `room` (LuSolver::widest_stripe,
/// once the solver has reserved room to migrate; the whole interior where the
/// room is unknown); empty when no rank is limited to less than the whole interior.
std::vector<int> memory_max_widths(const RunContext& ctx, const LuSolver& solver,
                                   std::optional<std::uint64_t> room);

}  // namespace npblu
