#include "lu/app/benchmark.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <climits>
#include <ctime>
#include <fstream>
#include <iostream>
#include <memory>
#include <new>
#include <sstream>

#include "balance/diffusive_balancer.hpp"
#include "balance/node_probes.hpp"
#include "balance/partition.hpp"
#include "balance/weights.hpp"
#include "lu/app/partition_trace.hpp"
#include "lu/app/runtime_balancing.hpp"
#include "lu/app/trace_writer.hpp"
#include "lu/solver.hpp"

namespace npblu {

namespace {

/// Runs `f`, turning any exception into a RunError. Only for work every rank
/// does identically (so every rank throws the same).
template <class F>
auto as_run_error(F&& f) {
  try {
    return f();
  } catch (const RunError&) {
    throw;
  } catch (const std::exception& e) {
    throw RunError(e.what());
  }
}

/// Collective: returns when `ok` holds on every rank; otherwise throws, on
/// every rank, a RunError with the message of the lowest failing rank, so a
/// problem seen by one rank alone still stops all of them, never hangs them.
void agree(bool ok, const std::string& message, MPI_Comm comm) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  int mine = ok ? INT_MAX : rank, first = INT_MAX;
  MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm);
  if (first == INT_MAX) return;
  int length = rank == first ? static_cast<int>(message.size()) : 0;
  MPI_Bcast(&length, 1, MPI_INT, first, comm);
  std::string text = rank == first ? message : std::string(length, ' ');
  MPI_Bcast(text.data(), length, MPI_CHAR, first, comm);
  throw RunError(text);
}

/// Every rank's host name, on rank 0.
std::vector<std::string> gather_host_names(MPI_Comm comm) {
  int rank = 0, size = 1, length = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  char name[MPI_MAX_PROCESSOR_NAME] = {};
  MPI_Get_processor_name(name, &length);
  std::vector<char> all(rank == 0 ? std::size_t(size) * MPI_MAX_PROCESSOR_NAME : 0);
  MPI_Gather(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, all.data(), MPI_MAX_PROCESSOR_NAME, MPI_CHAR, 0, comm);
  std::vector<std::string> hosts;
  for (int r = 0; r < static_cast<int>(all.size()) / MPI_MAX_PROCESSOR_NAME; ++r) {
    hosts.emplace_back(&all[std::size_t(r) * MPI_MAX_PROCESSOR_NAME]);
  }
  return hosts;
}

std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

/// Weights every rank agrees on: given on the command line or in a file
/// (read by rank 0 and broadcast), or measured on each rank and gathered.
/// Throws RunError (the same on every rank) when anything fails.
std::vector<double> agree_on_weights(const WeightSpec& spec, const RunOptions& opts,
                                     const SolverConfig& config, MPI_Comm comm) {
  int rank = 0, ranks = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &ranks);
  std::vector<double> weights;
  if (spec.source == WeightSource::equal) return std::vector<double>(ranks, 1.0);
  if (spec.source == WeightSource::list) {
    weights = spec.values;
    if (!spec.file.empty()) {
      std::string text;
      bool ok = true;
      if (rank == 0) {
        std::ifstream in(spec.file);
        std::stringstream buffer;
        buffer << in.rdbuf();
        ok = static_cast<bool>(in);
        text = buffer.str();
      }
      int length = ok ? static_cast<int>(text.size()) : -1;
      MPI_Bcast(&length, 1, MPI_INT, 0, comm);
      if (length < 0) throw RunError("cannot read weights file '" + spec.file + "'");
      text.resize(length);
      MPI_Bcast(text.data(), length, MPI_CHAR, 0, comm);
      weights = parse_weight_file(text, spec.file);
    }
    if (static_cast<int>(weights.size()) != ranks) {
      throw RunError("--weights gives " + std::to_string(weights.size()) + " weights but the run has " +
                     std::to_string(ranks) + " ranks");
    }
    return weights;
  }
  // Measured on each rank.
  double mine = 0.0;
  std::string failure;
  try {
    switch (spec.source) {
      case WeightSource::mflops:
        mine = measure_mflops(0.5);
        break;
      case WeightSource::bogomips:
        mine = read_bogomips();
        break;
      case WeightSource::calibrate: {
        // A few iterations on equal stripes, with whatever slowdown is emulated.
        const Partition equal = Partition::equal(opts.grid.interior_columns(), ranks);
        LuSolver probe(comm, config, equal);
        mine = weight_from_timing(equal[rank].width(), probe.measure_compute(opts.calibration_iterations));
        break;
      }
      default:
        break;
    }
  } catch (const std::exception& e) {
    failure = e.what();
  }
  agree(failure.empty(), failure, comm);
  weights.resize(ranks);
  MPI_Allgather(&mine, 1, MPI_DOUBLE, weights.data(), 1, MPI_DOUBLE, comm);
  return weights;
}

}  // namespace

BenchmarkOutcome run_benchmark(const RunOptions& opts, MPI_Comm comm, std::ostream* out,
                               const std::string& command_line) {
  int rank = 0, ranks = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &ranks);
  const bool root = rank == 0;
  if (!root) out = nullptr;

  // Checks computed identically on every rank from the same options, so every
  // rank reaches the same verdict without talking.
  SolverConfig config;
  WeightSpec weight_spec;
  as_run_error([&] {
    // MPI counts are ints: one message carries up to two whole columns.
    if (5LL * opts.grid.nx * opts.grid.nz * kStateHalo > INT_MAX) {
      throw RunError("grid too large: a column of " + std::to_string(opts.grid.nx) + "x" +
                     std::to_string(opts.grid.nz) + " points exceeds MPI's message size");
    }
    const int max_ranks = Partition::max_ranks(opts.grid.interior_columns());
    if (ranks > max_ranks) {
      throw RunError("too many ranks: " + std::to_string(ranks) + " ranks cannot split " +
                     std::to_string(opts.grid.ny - 2) + " interior columns with at least " +
                     std::to_string(kMinimumColumnWidth) + " columns each (at most " +
                     std::to_string(max_ranks) + " ranks)");
    }
    config = SolverConfig{opts.grid, opts.iterations, opts.dt, 1.2, {}};
    config.wait = parse_wait_mode(opts.wait);
    config.planes_per_message = opts.planes_per_message;
    if (!opts.emulate_speeds.empty()) config.emulation = SpeedSchedule::parse(opts.emulate_speeds, ranks);
    weight_spec = WeightSpec::parse(opts.weights);
    if (!opts.columns.empty() && static_cast<int>(opts.columns.size()) != ranks) {
      throw RunError("--columns gives " + std::to_string(opts.columns.size()) + " widths but the run has " +
                     std::to_string(ranks) + " ranks");
    }
    if (!opts.columns.empty()) (void)Partition::from_widths(opts.grid.interior_columns(), opts.columns);
    return 0;
  });

  // Rank-local checks: only rank 0 writes the JSON file.
  bool json_ok = true;
  if (root && !opts.json_path.empty())
    json_ok = static_cast<bool>(std::ofstream(opts.json_path, std::ios::app));
  agree(json_ok, "cannot write the JSON report to '" + opts.json_path + "'", comm);

  std::vector<double> weights(ranks, 1.0);
  std::optional<Partition> partition;
  if (opts.columns.empty()) {
    weights = agree_on_weights(weight_spec, opts, config, comm);
    partition = as_run_error([&] { return Partition::from_weights(opts.grid.interior_columns(), weights); });
  } else {
    partition =
        as_run_error([&] { return Partition::from_widths(opts.grid.interior_columns(), opts.columns); });
  }

  std::optional<LuSolver> solver;
  std::string failure;
  try {
    solver.emplace(comm, config, *partition);
  } catch (const std::bad_alloc&) {
    failure = "out of memory allocating " + std::to_string((*partition)[rank].width()) + " columns of a " +
              std::to_string(opts.grid.nx) + "x" + std::to_string(opts.grid.nz) + " grid on rank " +
              std::to_string(rank);
  } catch (const std::exception& e) {
    failure = e.what();
  }
  agree(failure.empty(), failure, comm);

  // The runtime balancer: every rank gathers all windows and makes the same decision.
  std::shared_ptr<RuntimeBalancing> balancing;
  if (opts.balance == "diffusive") {
    balancing = as_run_error([&] {
      return std::make_shared<RuntimeBalancing>(
          DiffusiveBalancer({opts.balance_every, opts.balance_threshold, opts.balance_damping}), comm);
    });
    solver->set_rebalance(opts.balance_every, [balancing](int it, const Partition& p, auto window) {
      return balancing->step(it, p, window);
    });
  }

  std::optional<PartitionTrace> trace;
  if (!opts.trace_path.empty()) {
    std::unique_ptr<TraceWriter> writer;
    std::string problem;
    const auto hosts = gather_host_names(comm);
    if (root) {
      try {
        TraceMetadata meta{std::string(1, opts.problem_class),
                           opts.grid,
                           opts.iterations,
                           ranks,
                           opts.balance,
                           opts.balance_every,
                           opts.balance_threshold,
                           opts.balance_damping,
                           weight_spec.describe(),
                           weights,
                           opts.emulate_speeds,
                           hosts,
                           NPBLU_VERSION,
                           command_line,
                           utc_now()};
        writer = std::make_unique<TraceWriter>(opts.trace_path, opts.trace_overwrite, meta);
      } catch (const std::exception& e) {
        problem = e.what();
      }
    }
    agree(problem.empty(), problem, comm);
    trace.emplace(std::move(writer), opts.trace_flush_every, config.emulation, comm);
    solver->set_iteration_hook([&](int it, std::span<const IterationRecord> history) {
      trace->on_iteration(
          it, history,
          balancing ? std::span<const BalanceMove>(balancing->moves()) : std::span<const BalanceMove>());
    });
  }

  if (out) {
    *out << "\n NAS Parallel Benchmarks (NPB 3.4 LU, C++ columnwise stripes)\n"
         << " Size: " << opts.grid.nx << "x" << opts.grid.ny << "x" << opts.grid.nz
         << "  Iterations: " << opts.iterations << "  dt: " << opts.dt << "  Ranks: " << ranks
         << "  Columns: " << partition->to_string() << "\n"
         << " Weights (" << weight_spec.describe() << "): " << fmt::format("{:.4g}", fmt::join(weights, ","))
         << "\n";
    if (config.emulation.active()) {
      *out << " EMULATED speeds: " << config.emulation.spec() << "\n";
    }
    *out << std::endl;
  }
  const ProgressCallback progress = [&](int it, double elapsed, const Vector5& rsdnm) {
    if (out) {
      *out << fmt::format(" iteration {:6d} / {}   elapsed {:9.2f} s   residual[1] {:.6e}\n", it,
                          opts.iterations, elapsed, rsdnm[0])
           << std::flush;
    }
  };
  const SolveResult result = solver->run(opts.quiet ? 0.0 : opts.progress_interval, progress);

  if (trace) {
    trace->finish(result.history, balancing ? std::span<const BalanceMove>(balancing->moves())
                                            : std::span<const BalanceMove>());
  }

  RunReport report;
  report.problem_class = opts.problem_class;
  report.grid = opts.grid;
  report.iterations = opts.iterations;
  report.iterations_run = result.iterations;
  report.dt = opts.dt;
  report.ranks = ranks;
  report.seconds = result.seconds;
  report.mops = lu_mops(opts.grid.nx, opts.grid.ny, opts.grid.nz, result.iterations, result.seconds);
  report.computed = {result.residual_norms, result.error_norms, result.surface_integral};
  if (opts.reference) report.verification = verify(report.computed, *opts.reference);
  report.field_checksum = solver->checksum();
  report.phases = reduce_phase_timers(result.timers, comm);
  report.weight_source = weight_spec.describe();
  if (!opts.columns.empty()) report.weight_source = "explicit --columns";
  report.weights = weights;
  report.emulation = config.emulation;
  report.columns = solver->partition().widths();
  report.balance_mode = opts.balance;
  report.balance_every = opts.balance_every;
  if (balancing) {
    report.balance_steps = balancing->steps();
    report.moved_columns = balancing->moved_columns();
    report.moves = balancing->moves();
  }
  report.history = gather_history(result.history, config.emulation, comm);

  BenchmarkOutcome outcome;
  int flags[2] = {0, 0};  // successful, verified: decided on rank 0
  double imbalance = 1.0;
  if (root) {
    if (out) *out << format_report(report) << std::flush;
    flags[0] = report.successful() ? 1 : 0;
    flags[1] = report.verification.performed && report.successful() ? 1 : 0;
    imbalance = report.imbalance();
    if (!opts.json_path.empty()) {
      std::ofstream json(opts.json_path, std::ios::trunc);
      json << to_json(report).dump(2) << "\n";
      if (!json) {
        std::cerr << "lu: error: failed writing '" << opts.json_path << "'" << std::endl;
        flags[0] = 0;
      }
    }
  }
  MPI_Bcast(flags, 2, MPI_INT, 0, comm);
  MPI_Bcast(&imbalance, 1, MPI_DOUBLE, 0, comm);
  outcome.successful = flags[0] == 1;
  outcome.verified = flags[1] == 1;
  outcome.seconds = report.seconds;
  outcome.mops = report.mops;
  outcome.computed = report.computed;
  outcome.owned = solver->owned();
  outcome.imbalance = imbalance;
  outcome.moved_columns = report.moved_columns;
  outcome.iterations_run = report.iterations_run;
  if (root) outcome.report = std::move(report);
  return outcome;
}

}  // namespace npblu
