#include "lu/run/placement.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <span>

#include "balance/node_probes.hpp"
#include "balance/weights.hpp"
#include "lu/io/input_file.hpp"
#include "lu/mpi/agreement.hpp"
#include "lu/mpi/communicator.hpp"
#include "lu/mpi/messages.hpp"
#include "lu/run/memory_check.hpp"

namespace npblu {

namespace {

/// The text of a weights file, read by rank 0 and broadcast.
std::string read_weights_file(const std::string& path, MPI_Comm comm) {
  return read_on_rank0(
      comm, [&] { return read_input_file(path, "weights file"); },  // "": "holds no weights"
      [](const std::string& what) { return "--weights @FILE: " + what; });
}

/// Weights given on the command line or in a file.
std::vector<double> given_weights(const WeightSpec& spec, const RunContext& ctx) {
  std::vector<double> weights = spec.values;
  if (!spec.file.empty()) {
    const std::string text = read_weights_file(spec.file, ctx.comm);
    try {
      weights = parse_weight_file(text, spec.file);  // the same text, and verdict, on every rank
    } catch (const std::invalid_argument& e) {
      throw RunError("--weights @FILE: " + one_line_message(e.what()));
    }
  }
  if (static_cast<int>(weights.size()) != ctx.ranks) {
    const std::string given =
        spec.file.empty() ? "--weights" : "--weights @FILE: weights file " + quote_value(spec.file);
    throw RunError(given + " gives " + counted(int(weights.size()), "weight") + " but the run has " +
                   counted(ctx.ranks, "rank"));
  }
  return weights;
}

/// This rank's measured weight (collective for calibrate).
double measure_weight(const RunContext& ctx) {
  switch (ctx.config.placement.weights.source) {
    case WeightSource::mflops:
      return measure_mflops(0.5);
    case WeightSource::bogomips:
      return read_bogomips();
    case WeightSource::calibrate: {
      // A few iterations on equal stripes, with whatever slowdown is emulated.
      const Partition equal = Partition::equal(ctx.problem.grid.interior_columns(), ctx.ranks);
      check_memory(ctx, equal);
      LuSolver probe(ctx.comm, ctx.solver_config, equal);
      return weight_from_timing(equal[ctx.rank].width(),
                                probe.measure_compute(ctx.config.placement.calibration_iterations));
    }
    default:
      return 1.0;
  }
}

}  // namespace

/// Step 2: weights every rank agrees on: equal, given (a file is read by
/// rank 0 and broadcast), or measured on each rank and gathered.
std::vector<double> agree_on_weights(const RunContext& ctx) {
  const WeightSpec& spec = ctx.config.placement.weights;
  if (!ctx.config.placement.columns.empty() || spec.source == WeightSource::equal) {
    return std::vector<double>(ctx.ranks, 1.0);
  }
  if (spec.source == WeightSource::list) return given_weights(spec, ctx);
  double mine = 0.0;
  std::string failure;
  try {
    mine = measure_weight(ctx);
  } catch (const std::exception& e) {
    failure = e.what();
  }
  agree(failure.empty(), failure, ctx.comm);
  std::vector<double> weights(ctx.ranks);
  MPI_Allgather(&mine, 1, MPI_DOUBLE, weights.data(), 1, MPI_DOUBLE, ctx.comm);
  return weights;
}

/// Step 3b: see placement.hpp.
std::optional<std::uint64_t> check_memory(const RunContext& ctx, const Partition& partition) {
  if (!ctx.config.placement.check_memory) return std::nullopt;
  const std::uint64_t mine = LuSolver::resident_bytes(ctx.problem.grid, partition[ctx.rank]);
  const NodeMemory node = node_memory(ctx.comm, mine);
  const Problem& p = ctx.problem;
  agree(node.shortfall.empty(),
        fmt::format("{} on {}: {}", describe_problem(p.problem_class, p.grid, p.iterations, p.dt),
                    counted(ctx.ranks, "rank"), node.shortfall),
        ctx.comm);
  return node.room;
}

std::vector<int> memory_max_widths(const RunContext& ctx, const LuSolver& solver,
                                   std::optional<std::uint64_t> room) {
  const ColumnRange owned = solver.partition()[ctx.rank];
  const int unlimited = solver.partition().interior().width();
  const int mine =
      room ? LuSolver::widest_stripe(ctx.problem.grid, owned, *room, solver.grows_in_place()) : unlimited;
  std::vector<int> all = Communicator::borrow(ctx.comm).all_gather(std::span<const int>(&mine, 1));
  const bool limited = std::any_of(all.begin(), all.end(), [&](int w) { return w < unlimited; });
  return limited ? all : std::vector<int>{};
}

/// Step 3: the stripes, from --columns or the weights.
Partition place_stripes(const RunContext& ctx, const std::vector<double>& weights) {
  const ColumnRange interior = ctx.problem.grid.interior_columns();
  const auto& columns = ctx.config.placement.columns;
  return as_run_error([&] {
    return columns.empty() ? Partition::from_weights(interior, weights)
                           : Partition::from_widths(interior, columns);
  });
}

}  // namespace npblu
