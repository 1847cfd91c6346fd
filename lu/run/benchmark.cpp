#include "lu/run/benchmark.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <new>
#include <sstream>

#include "balance/diffusive_balancer.hpp"
#include "balance/node_probes.hpp"
#include "balance/partition.hpp"
#include "balance/weights.hpp"
#include "lu/io/checkpoint.hpp"
#include "lu/io/output_files.hpp"
#include "lu/io/partition_trace.hpp"
#include "lu/io/trace_writer.hpp"
#include "lu/isa.hpp"
#include "lu/migration/runtime_balancing.hpp"
#include "lu/mpi/messages.hpp"
#include "lu/run/checkpoint_schedule.hpp"
#include "lu/run/test_faults.hpp"
#include "lu/solver.hpp"

namespace npblu {

namespace {

/// What every step of a run needs to know.
struct RunContext {
  RunConfig config;
  Problem problem;
  SolverConfig solver_config;
  MPI_Comm comm;
  int rank = 0;
  int ranks = 1;
  std::ostream* out = nullptr;  // rank 0's report stream, or null
  std::string command_line;

  [[nodiscard]] bool root() const { return rank == 0; }
};

/// Runs `f`, turning any exception into a RunError. Only for work every rank
/// does identically (so every rank throws the same).
template <class F>
auto as_run_error(F&& f) {
  try {
    return f();
  } catch (const RunError&) {
    throw;
  } catch (const std::exception& e) {
    throw RunError(one_line_message(e.what()));
  }
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

/// Step 1: every check of run_config.hpp, before anything is computed. The
/// combination and rank-count checks give the same verdict on every rank;
/// the output paths are probed by rank 0, which writes them, and agreed.
RunContext check_inputs(const RunConfig& config, MPI_Comm comm, std::ostream* out, const std::string& line,
                        int iterations_done) {
  int rank = 0, ranks = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &ranks);
  // NPBLU_ISA names a level this CPU has (lu/isa.hpp); agreed, as ranks on other nodes may see another CPU.
  agree(isa_error().empty(), isa_error(), comm);
  const Problem problem = as_run_error([&] {
    const Problem p = validate(config);
    validate_for_ranks(config, p, ranks);
    check_effect(config, p, iterations_done);
    return p;
  });
  const std::string output_problem = rank == 0 ? one_line_message(probe_outputs(config)) : "";
  agree(output_problem.empty(), output_problem, comm);
  const SolverConfig solver_config{problem.grid,
                                   problem.iterations,
                                   problem.dt,
                                   1.2,
                                   config.emulation,
                                   config.pipeline.wait,
                                   config.pipeline.planes_per_message};
  return {config, problem, solver_config, comm, rank, ranks, rank == 0 ? out : nullptr, line};
}

/// The text of a weights file, read by rank 0 and broadcast.
std::string read_weights_file(const std::string& path, MPI_Comm comm) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  std::string text, problem;
  if (rank == 0) {
    // One weight per rank fits in far less; the cap keeps /dev/zero from filling memory.
    constexpr std::size_t kMaxWeightsFile = 64 << 20;
    std::error_code ec;
    std::ifstream in(path);
    if (std::filesystem::is_directory(path, ec)) {
      problem = "--weights @FILE: " + quote_value(path) + " is a directory, not a weights file";
    } else if (!in) {
      problem = "--weights @FILE: cannot read weights file " + quote_value(path);
    } else {
      text.resize(kMaxWeightsFile + 1);
      in.read(text.data(), static_cast<std::streamsize>(text.size()));
      text.resize(static_cast<std::size_t>(in.gcount()));  // an empty file leaves "": "holds no weights"
      if (text.size() > kMaxWeightsFile)
        problem = "--weights @FILE: " + quote_value(path) + " is larger than 64 MB";
    }
  }
  agree(problem.empty(), problem, comm);
  int length = static_cast<int>(text.size());
  MPI_Bcast(&length, 1, MPI_INT, 0, comm);
  text.resize(length);
  MPI_Bcast(text.data(), length, MPI_CHAR, 0, comm);
  return text;
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
    throw RunError("--weights gives " + std::to_string(weights.size()) + " weights but the run has " +
                   std::to_string(ctx.ranks) + " ranks");
  }
  return weights;
}

/// This rank's measured weight.
double measure_weight(const RunContext& ctx) {
  switch (ctx.config.placement.weights.source) {
    case WeightSource::mflops:
      return measure_mflops(0.5);
    case WeightSource::bogomips:
      return read_bogomips();
    case WeightSource::calibrate: {
      // A few iterations on equal stripes, with whatever slowdown is emulated.
      const Partition equal = Partition::equal(ctx.problem.grid.interior_columns(), ctx.ranks);
      LuSolver probe(ctx.comm, ctx.solver_config, equal);
      return weight_from_timing(equal[ctx.rank].width(),
                                probe.measure_compute(ctx.config.placement.calibration_iterations));
    }
    default:
      return 1.0;
  }
}

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

/// Step 3: the stripes, from --columns or the weights.
Partition place_stripes(const RunContext& ctx, const std::vector<double>& weights) {
  const ColumnRange interior = ctx.problem.grid.interior_columns();
  const auto& columns = ctx.config.placement.columns;
  return as_run_error([&] {
    return columns.empty() ? Partition::from_weights(interior, weights)
                           : Partition::from_widths(interior, columns);
  });
}

/// Step 4: the solver, allocated on every rank (an allocation failing on one is agreed).
std::unique_ptr<LuSolver> make_solver(const RunContext& ctx, const Partition& partition) {
  std::unique_ptr<LuSolver> solver;
  std::string failure;
  try {
    solver = std::make_unique<LuSolver>(ctx.comm, ctx.solver_config, partition);
  } catch (const std::bad_alloc&) {
    const GridSize& g = ctx.problem.grid;
    failure = "out of memory allocating " + std::to_string(partition[ctx.rank].width()) + " columns of a " +
              std::to_string(g.nx) + "x" + std::to_string(g.nz) + " grid on rank " + std::to_string(ctx.rank);
  } catch (const std::exception& e) {
    failure = e.what();
  }
  agree(failure.empty(), failure, ctx.comm);
  return solver;
}

/// Step 5: the runtime balancer; every rank gathers all windows and makes the same decision.
std::shared_ptr<RuntimeBalancing> attach_balancer(const RunContext& ctx, LuSolver& solver) {
  if (ctx.config.balance.mode != BalanceMode::diffusive) return nullptr;
  const BalancerSettings& settings = ctx.config.balance.diffusive;
  auto balancing = as_run_error([&] {
    return std::make_shared<RuntimeBalancing>(settings, solver.partition(), ctx.problem.iterations, ctx.comm);
  });
  // The session migrates the solver itself (timing the step), so the hook returns nothing to apply.
  solver.set_rebalance(
      settings.every,
      [balancing, &solver](int it, const Partition& p, auto window) -> std::optional<Partition> {
        balancing->step(it, p, window, solver);
        return std::nullopt;
      });
  return balancing;
}

std::span<const BalanceMove> moves_of(const std::shared_ptr<RuntimeBalancing>& balancing) {
  return balancing ? std::span<const BalanceMove>(balancing->moves()) : std::span<const BalanceMove>();
}

TraceMetadata trace_metadata(const RunContext& ctx, const std::vector<double>& weights,
                             std::vector<std::string> hosts) {
  const RunConfig& c = ctx.config;
  const BalancerSettings& d = c.balance.diffusive;
  return {std::string(1, ctx.problem.problem_class),
          ctx.problem.grid,
          ctx.problem.iterations,
          ctx.ranks,
          to_string(c.balance.mode),
          d.every,
          d.threshold,
          d.damping,
          c.placement.weights.describe(),
          weights,
          c.emulation.spec(),
          std::move(hosts),
          NPBLU_VERSION,
          ctx.command_line,
          utc_now()};
}

/// Step 6: the trace file, created by rank 0 before computing, and the hook
/// that appends to it every --trace-flush iterations.
std::shared_ptr<PartitionTrace> attach_trace(const RunContext& ctx, LuSolver& solver,
                                             const std::vector<double>& weights,
                                             const std::shared_ptr<RuntimeBalancing>& balancing,
                                             int iterations_done) {
  const OutputConfig& output = ctx.config.output;
  if (output.trace.empty()) return nullptr;
  std::unique_ptr<TraceWriter> writer;
  std::string problem;
  auto hosts = gather_host_names(ctx.comm);
  if (ctx.root()) {
    try {
      writer = std::make_unique<TraceWriter>(output.trace.string(), output.trace_overwrite,
                                             trace_metadata(ctx, weights, std::move(hosts)));
    } catch (const std::exception& e) {
      problem = e.what();
    }
  }
  agree(problem.empty(), one_line_message(problem), ctx.comm);
  auto trace = std::make_shared<PartitionTrace>(std::move(writer), output.trace_flush_every, ctx.comm,
                                                iterations_done);
  solver.set_iteration_hook([trace, balancing](int it, std::span<const IterationRecord> history) {
    trace->on_iteration(it, history, moves_of(balancing));
  });
  return trace;
}

void print_header(const RunContext& ctx, const Partition& partition, const std::vector<double>& weights) {
  if (!ctx.out) return;
  const GridSize& g = ctx.problem.grid;
  const std::string source = ctx.config.placement.weights.describe();
  *ctx.out << "\n NAS Parallel Benchmarks (NPB 3.4 LU, C++ columnwise stripes)\n"
           << " Size: " << g.nx << "x" << g.ny << "x" << g.nz << "  Iterations: " << ctx.problem.iterations
           << "  dt: " << ctx.problem.dt << "  Ranks: " << ctx.ranks << "  Columns: " << partition.to_string()
           << "\n"
           << " Weights (" << source << "): " << fmt::format("{:.4g}", fmt::join(weights, ",")) << "\n";
  if (ctx.solver_config.emulation.active())
    *ctx.out << " EMULATED speeds: " << ctx.solver_config.emulation.spec() << "\n";
  *ctx.out << std::endl;
}

/// Step 7: the timed iterations, with progress lines on rank 0. Every rank
/// gets the callback: the solver computes the norm it prints collectively.
ProgressCallback progress_lines(const RunContext& ctx) {
  std::ostream* out = ctx.out;
  const int iterations = ctx.problem.iterations;
  return [out, iterations](int it, double elapsed, const Vector5& rsdnm) {
    if (!out) return;
    *out << fmt::format(" iteration {:6d} / {}   elapsed {:9.2f} s   residual[1] {:.6e}\n", it, iterations,
                        elapsed, rsdnm[0])
         << std::flush;
  };
}

/// Step 8 (collective): the report, complete on rank 0.
RunReport build_report(const RunContext& ctx, const LuSolver& solver, const SolveResult& result,
                       const std::vector<double>& weights, const RuntimeBalancing* balancing) {
  const Problem& p = ctx.problem;
  RunReport report;
  report.problem_class = p.problem_class;
  report.grid = p.grid;
  report.iterations = p.iterations;
  report.iterations_run = result.iterations;
  report.dt = p.dt;
  report.ranks = ctx.ranks;
  report.seconds = result.seconds;
  report.mops = lu_mops(p.grid.nx, p.grid.ny, p.grid.nz, result.iterations, result.seconds);
  report.computed = {result.residual_norms, result.error_norms, result.surface_integral};
  apply_test_fault_to_norms(report.computed);
  apply_test_fault_on_rank(ctx.rank);
  if (p.reference) report.verification = verify(report.computed, *p.reference);
  report.field_checksum = solver.checksum();
  report.phases = reduce_phase_timers(result.timers, ctx.comm);
  report.weight_source =
      ctx.config.placement.columns.empty() ? ctx.config.placement.weights.describe() : "explicit --columns";
  report.weights = weights;
  report.emulation = ctx.solver_config.emulation;
  report.columns = solver.partition().widths();
  report.balance_mode = to_string(ctx.config.balance.mode);
  report.balance_every = ctx.config.balance.diffusive.every;
  if (balancing) {
    report.balance_steps = balancing->steps();
    report.moved_columns = balancing->moved_columns();
    report.moves = balancing->moves();
  }
  report.history = gather_history(result.history, ctx.comm);
  return report;
}

/// Writes the JSON report on rank 0; "" or the problem.
std::string write_json(const RunContext& ctx, const RunReport& report) {
  const auto& path = ctx.config.output.json;
  if (!ctx.root() || path.empty()) return {};
  try {
    write_file_whole(path, to_json(report).dump(2) + "\n");  // aside, then renamed: never half a report
  } catch (const std::exception& e) {
    return "--json: failed writing the JSON report: " + std::string(e.what());
  }
  return {};
}

/// Step 9: prints and writes the report on rank 0 (a failed write is agreed:
/// RunFailure on every rank) and shares the verdict with every rank.
BenchmarkOutcome publish(const RunContext& ctx, RunReport report, const LuSolver& solver) {
  if (ctx.out) *ctx.out << format_report(report) << std::flush;
  const std::string failure = write_json(ctx, report);
  agree<RunFailure>(failure.empty(), failure, ctx.comm);
  int flags[2] = {report.successful() ? 1 : 0, report.verification.performed && report.successful() ? 1 : 0};
  double imbalance = report.imbalance();
  MPI_Bcast(flags, 2, MPI_INT, 0, ctx.comm);  // decided on rank 0, which holds the whole report
  MPI_Bcast(&imbalance, 1, MPI_DOUBLE, 0, ctx.comm);
  BenchmarkOutcome outcome;
  outcome.successful = flags[0] == 1;
  outcome.verified = flags[1] == 1;
  outcome.seconds = report.seconds;
  outcome.mops = report.mops;
  outcome.computed = report.computed;
  outcome.owned = solver.owned();
  outcome.imbalance = imbalance;
  outcome.moved_columns = report.moved_columns;
  outcome.iterations_run = report.iterations_run;
  if (ctx.root()) outcome.report = std::move(report);
  return outcome;
}

/// With --restart: what the checkpointed run was doing and the options do
/// not say otherwise continues: its speed emulation schedule (the
/// iteration numbers go on, so '@30' still starts at 30) and its balancer
/// settings.
/// Returns a one-line warning, or "": a schedule for another rank count cannot continue.
std::string continue_settings(RunConfig& config, const CheckpointHeader& h, int ranks,
                              const std::string& named) {
  std::string warning;
  if (!config.given.count("emulate-speeds") && !h.emulated_speeds.empty()) {
    SpeedSchedule schedule = as_run_error([&] { return SpeedSchedule::parse(h.emulated_speeds); });
    try {
      schedule.check_ranks(ranks);
      config.emulation = schedule;
    } catch (const std::invalid_argument&) {
      warning = named + ": the run emulated speeds " + quote_value(h.emulated_speeds) + " on " +
                std::to_string(h.ranks) + " ranks; this run on " + std::to_string(ranks) +
                " is not emulated (give --emulate-speeds to emulate it)";
    }
  }
  if (!config.given.count("balance") && h.balance == "diffusive")
    config.balance.mode = BalanceMode::diffusive;
  if (config.balance.mode == BalanceMode::diffusive && h.balance == "diffusive") {
    if (!config.given.count("balance-every")) config.balance.diffusive.every = h.balance_every;
    if (!config.given.count("balance-threshold")) config.balance.diffusive.threshold = h.balance_threshold;
    if (!config.given.count("balance-damping")) config.balance.diffusive.damping = h.balance_damping;
  }
  return warning;
}

/// "class W (33x33x33, 300 iterations, dt 0.0015)"
std::string describe_problem(char problem_class, const GridSize& g, int iterations, double dt) {
  return fmt::format("class {} ({}x{}x{}, {} iterations, dt {})", problem_class, g.nx, g.ny, g.nz, iterations,
                     dt);
}

/// Step 0, with --restart: the checkpoint's header, and the run's problem
/// from it. Problem options may be omitted (the checkpoint's are taken) or
/// must give exactly its problem; a run on as many ranks as the checkpoint's
/// with no placement option of its own continues on the checkpoint's
/// stripes (where the balancer had moved them).
RunConfig continue_checkpoint(RunConfig config, const CheckpointHeader& h, MPI_Comm comm,
                              std::string& warning) {
  const std::string named = "--restart " + quote_value(config.checkpoint.restart.string());
  // The checkpoint's problem, with the problem options given on top: they must not change it.
  ProblemSpec spec = config.problem;
  if (!spec.problem_class && !spec.size) {
    if (h.problem_class != 'U') spec.problem_class = h.problem_class;
    if (h.problem_class == 'U') spec.size = h.grid;
    if (h.problem_class == 'U' && !spec.iterations) spec.iterations = h.iterations;
    if (h.problem_class == 'U' && !spec.dt) spec.dt = h.dt;
  }
  const Problem asked = as_run_error([&] { return resolve_problem(spec); });
  if (asked.problem_class != h.problem_class || asked.grid != h.grid || asked.iterations != h.iterations ||
      asked.dt != h.dt) {
    std::string given;
    for (const char* option : {"class", "size", "iterations", "dt"})
      if (config.given.count(option)) given += std::string(given.empty() ? "" : ", ") + "--" + option;
    throw RunError(named + ": holds a checkpoint of " +
                   describe_problem(h.problem_class, h.grid, h.iterations, h.dt) + ", but " +
                   (given.empty() ? std::string("the problem") : given) + " asks for " +
                   describe_problem(asked.problem_class, asked.grid, asked.iterations, asked.dt) +
                   " (omit the problem options to continue the checkpoint's)");
  }
  config.problem = {asked.problem_class != 'U' ? std::optional<char>(asked.problem_class) : std::nullopt,
                    asked.problem_class == 'U' ? std::optional<GridSize>(asked.grid) : std::nullopt,
                    asked.problem_class == 'U' ? std::optional<int>(asked.iterations) : std::nullopt,
                    asked.problem_class == 'U' ? std::optional<double>(asked.dt) : std::nullopt};
  if (h.iteration >= h.iterations)
    throw RunError(named + ": holds a finished run (iteration " + std::to_string(h.iteration) + ")");
  int ranks = 1;
  MPI_Comm_size(comm, &ranks);
  const bool own_placement = !config.placement.columns.empty() ||
                             config.placement.weights.source != WeightSource::equal ||
                             config.balance.mode == BalanceMode::off;
  if (!own_placement && static_cast<int>(h.column_widths.size()) == ranks)
    config.placement.columns = h.column_widths;
  warning = continue_settings(config, h, ranks, named);
  return config;
}

/// The run's configuration: `config`, completed from the --restart checkpoint if any.
RunConfig resolve_restart(const RunConfig& config, MPI_Comm comm, std::optional<CheckpointHeader>& header,
                          std::string& warning) {
  if (config.checkpoint.restart.empty()) return config;
  header = read_checkpoint_header(config.checkpoint.restart, comm);
  return continue_checkpoint(config, *header, comm, warning);
}

/// After start(): u and the iteration count from the checkpoint, then the
/// run's header and a line saying where it continues from.
template <class PrintHeader>
void restore(const RunContext& ctx, const CheckpointHeader& header, LuSolver& solver,
             PrintHeader&& print_header) {
  const auto& path = ctx.config.checkpoint.restart;
  const CheckpointStats stats = restore_checkpoint(path, header, solver, ctx.comm);
  print_header();
  if (!ctx.out) return;
  *ctx.out << fmt::format(
                  " Restarted from {} at iteration {} of {} (written on {} ranks), read in {:.3f} s\n",
                  quote_value(path.string()), header.iteration, header.iterations,
                  header.column_widths.size(), stats.seconds)
           << std::flush;
}

/// Collective: everything a checkpoint holds besides the field (the timed
/// seconds and phase timers reduced over ranks).
CheckpointHeader checkpoint_header(const RunContext& ctx, const LuSolver& solver,
                                   const RuntimeBalancing* balancing) {
  CheckpointHeader h;
  h.program_version = NPBLU_VERSION;
  h.isa = isa_name(active_isa());
  h.created = utc_now();
  h.command_line = ctx.command_line;
  h.problem_class = ctx.problem.problem_class;
  h.grid = ctx.problem.grid;
  h.iterations = ctx.problem.iterations;
  h.dt = ctx.problem.dt;
  h.iteration = solver.iterations_done();
  const double mine = solver.timed_seconds();
  MPI_Allreduce(&mine, &h.timed_seconds, 1, MPI_DOUBLE, MPI_MAX, ctx.comm);
  h.column_widths = solver.partition().widths();
  h.balance = to_string(ctx.config.balance.mode);
  h.balance_every = ctx.config.balance.diffusive.every;
  h.balance_threshold = ctx.config.balance.diffusive.threshold;
  h.balance_damping = ctx.config.balance.diffusive.damping;
  h.emulated_speeds = ctx.solver_config.emulation.spec();
  h.balance_moved_columns = balancing ? balancing->moved_columns() : 0;
  const auto phases = reduce_phase_timers(solver.timers(), ctx.comm);
  for (int p = 0; p < PhaseTimers::kCount; ++p) {
    h.phase_names.emplace_back(PhaseTimers::name(static_cast<Phase>(p)));
    h.phase_seconds_min.push_back(phases[p].min);
    h.phase_seconds_max.push_back(phases[p].max);
    h.phase_seconds_mean.push_back(phases[p].mean);
  }
  return h;
}

}  // namespace

struct BenchmarkSession::State {
  explicit State(RunContext context) : ctx(std::move(context)) {}
  RunContext ctx;
  std::vector<double> weights;
  std::unique_ptr<LuSolver> solver;
  std::shared_ptr<RuntimeBalancing> balancing;
  std::shared_ptr<PartitionTrace> trace;
  ProgressCallback progress;
  int report_every = 0;  // iterations between progress lines (0: none)
  bool finished = false;
};

BenchmarkSession::BenchmarkSession(const RunConfig& config, MPI_Comm comm, std::ostream* out,
                                   const std::string& command_line) {
  std::optional<CheckpointHeader> restart;
  std::string warning;
  const RunConfig resolved = resolve_restart(config, comm, restart, warning);
  state_ = std::make_unique<State>(
      check_inputs(resolved, comm, out, command_line, restart ? restart->iteration : 0));
  if (!warning.empty() && state_->ctx.root())
    std::cerr << "lu: warning: " << one_line_message(warning) << std::endl;
  State& s = *state_;
  s.weights = agree_on_weights(s.ctx);
  const Partition partition = place_stripes(s.ctx, s.weights);
  s.solver = make_solver(s.ctx, partition);
  s.balancing = attach_balancer(s.ctx, *s.solver);
  s.trace = attach_trace(s.ctx, *s.solver, s.weights, s.balancing, restart ? restart->iteration : 0);
  // A restarted run prints its header once the checkpoint is accepted: a
  // refused one must not look like a run that started.
  if (!restart) print_header(s.ctx, partition, s.weights);
  s.solver->start();
  if (restart) restore(s.ctx, *restart, *s.solver, [&] { print_header(s.ctx, partition, s.weights); });
  s.progress = progress_lines(s.ctx);
  // Every rank computes the same count (the warm-up time is the max over ranks).
  s.report_every =
      s.ctx.config.output.quiet ? 0 : s.solver->progress_every(s.ctx.config.output.progress_interval);
}

BenchmarkSession::~BenchmarkSession() = default;

int BenchmarkSession::advance(int n) {
  if (state_->finished) throw std::logic_error("advance: the run has been finished");
  return state_->solver->advance(n, state_->report_every, state_->progress);
}

int BenchmarkSession::iterations_done() const { return state_->solver->iterations_done(); }
int BenchmarkSession::iterations() const { return state_->ctx.problem.iterations; }
bool BenchmarkSession::finished() const { return state_->solver->finished(); }
Vector5 BenchmarkSession::residual_norms() const { return state_->solver->residual_norms(); }
LuSolver& BenchmarkSession::solver() { return *state_->solver; }

void BenchmarkSession::write_checkpoint(const std::filesystem::path& path) {
  State& s = *state_;
  if (s.finished) throw std::logic_error("write_checkpoint: the run has been finished");
  const CheckpointHeader h = checkpoint_header(s.ctx, *s.solver, s.balancing.get());
  const CheckpointStats stats = save_checkpoint(path, h, *s.solver, s.ctx.comm);
  if (!s.ctx.out) return;
  *s.ctx.out << fmt::format(" Checkpoint at iteration {} written to {} in {:.3f} s ({:.1f} MB)\n",
                            h.iteration, quote_value(path.string()), stats.seconds, stats.bytes / 1e6)
             << std::flush;
}

BenchmarkOutcome BenchmarkSession::finish() {
  State& s = *state_;
  if (s.finished) throw std::logic_error("finish: the run has been finished already");
  s.finished = true;
  const SolveResult result = s.solver->finish();
  if (s.trace) s.trace->finish(result.history, moves_of(s.balancing));
  return publish(s.ctx, build_report(s.ctx, *s.solver, result, s.weights, s.balancing.get()), *s.solver);
}

BenchmarkOutcome run_benchmark(const RunConfig& config, MPI_Comm comm, std::ostream* out,
                               const std::string& command_line) {
  BenchmarkSession session(config, comm, out, command_line);
  if (config.checkpoint.path.empty())
    session.advance(session.iterations());
  else
    advance_with_checkpoints(session, config.checkpoint, comm);
  return session.finish();
}

}  // namespace npblu
