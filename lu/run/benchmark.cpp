#include "lu/run/benchmark.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <iostream>
#include <memory>
#include <new>

#include "balance/diffusive_balancer.hpp"
#include "balance/partition.hpp"
#include "lu/io/partition_trace.hpp"
#include "lu/io/speeds_file.hpp"
#include "lu/io/trace_writer.hpp"
#include "lu/isa.hpp"
#include "lu/migration/runtime_balancing.hpp"
#include "lu/mpi/communicator.hpp"
#include "lu/run/checkpoint_schedule.hpp"
#include "lu/run/placement.hpp"
#include "lu/run/restart.hpp"
#include "lu/run/run_context.hpp"
#include "lu/run/run_files.hpp"
#include "lu/run/run_report.hpp"
#include "lu/run/test_faults.hpp"
#include "lu/solver.hpp"

// The benchmark session: its steps in order (check the inputs, place the
// stripes, make the solver, attach the balancer and the trace, run, report).
// The concerns with more to them live beside it: placement.cpp (weights and
// stripes), restart.cpp (checkpoints), run_report.cpp (identity and report).

namespace npblu {

namespace {

/// Ranks whose kernels compute other bits (lu/isa.hpp: baseline, without FMA,
/// beside v3 or v4) would each round their own columns their own way: the
/// field would depend on the partition, and its checksum on which ranks ran
/// where. Such a run is refused, on every rank alike ("" when all agree).
std::string isa_kinds_problem(MPI_Comm comm) {
  const int fma = contracts_into_fma(active_isa()) ? 1 : 0;
  int low = fma, high = fma;
  MPI_Allreduce(&fma, &low, 1, MPI_INT, MPI_MIN, comm);
  MPI_Allreduce(&fma, &high, 1, MPI_INT, MPI_MAX, comm);
  if (low == high) return "";
  return "the ranks run kernels that compute different bits: some at the baseline level (no FMA), others at "
         "v3 or v4 (FMA), so the result would depend on the partition; set NPBLU_ISA=baseline on every rank, "
         "or run the FMA levels only on CPUs that all have FMA";
}

/// --emulate-speeds @FILE: rank 0 reads the file (its lines are checked
/// against the rank count), and every rank takes the schedule it gives.
RunConfig with_speeds_file(RunConfig config, MPI_Comm comm, int ranks) {
  if (config.emulation_file.empty()) return config;
  const std::string spec = read_on_rank0(
      comm, [&] { return read_speed_file(config.emulation_file.string(), ranks); },
      [](const std::string& what) { return one_line_message(what); });
  config.emulation = as_run_error([&] { return SpeedSchedule::parse(spec); });
  return config;
}

/// Step 1: every check of run_config.hpp, before anything is computed. The
/// combination and rank-count checks give the same verdict on every rank;
/// the output paths are probed by rank 0, which writes them, and agreed.
RunContext check_inputs(const RunConfig& given, MPI_Comm comm, std::ostream* out, const std::string& line,
                        int iterations_done) {
  int rank = 0, ranks = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &ranks);
  // NPBLU_ISA names a level this CPU has (lu/isa.hpp); agreed, as ranks on other nodes may see another CPU.
  agree(isa_error().empty(), isa_error(), comm);
  const std::string kinds = isa_kinds_problem(comm);
  agree(kinds.empty(), kinds, comm);
  const Problem problem = as_run_error([&] { return validate(given); });
  const RunConfig config = with_speeds_file(given, comm, ranks);
  as_run_error([&] {
    validate_for_ranks(config, problem, ranks);
    check_effect(config, problem, iterations_done);
    return 0;
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
std::shared_ptr<RuntimeBalancing> attach_balancer(const RunContext& ctx, LuSolver& solver,
                                                  std::optional<std::uint64_t> memory_room) {
  if (ctx.config.balance.mode != BalanceMode::diffusive) return nullptr;
  const BalancerSettings& settings = ctx.config.balance.diffusive;
  auto balancing = as_run_error([&] {
    return std::make_shared<RuntimeBalancing>(settings, solver.partition(), ctx.problem.iterations, ctx.comm);
  });
  // The session migrates the solver itself (timing the step), so the hook returns nothing to apply.
  solver.set_rebalance([balancing, &solver](int it, std::span<const IterationRecord> history) {
    return balancing->step(it, history, solver);
  });
  // No rank is handed more columns than its memory holds (how the fields
  // grow is known once set_rebalance has reserved their room).
  std::vector<int> max_widths = memory_max_widths(ctx, solver, memory_room);
  as_run_error([&] { balancing->set_max_widths(std::move(max_widths)); });
  return balancing;
}

std::span<const BalanceMove> moves_of(const std::shared_ptr<RuntimeBalancing>& balancing) {
  return balancing ? std::span<const BalanceMove>(balancing->moves()) : std::span<const BalanceMove>();
}

/// Step 6: the trace file, created by rank 0 before computing, and the hook
/// that appends to it every --trace-flush iterations.
std::shared_ptr<PartitionTrace> attach_trace(const RunContext& ctx, LuSolver& solver, const RunIdentity& run,
                                             const std::shared_ptr<RuntimeBalancing>& balancing,
                                             int iterations_done) {
  const OutputConfig& output = ctx.config.output;
  if (output.trace.empty()) return nullptr;
  std::unique_ptr<TraceWriter> writer;
  std::string problem;
  if (ctx.root()) {
    try {
      writer = std::make_unique<TraceWriter>(output.trace.string(), output.trace_overwrite, run);
    } catch (const std::exception& e) {
      problem = e.what();
    }
  }
  agree(problem.empty(), one_line_message(problem), ctx.comm);
  auto trace =
      std::make_shared<PartitionTrace>(std::move(writer), output.trace_flush_every, ctx.comm, iterations_done,
                                       balancing ? balancing->max_widths() : std::vector<int>{});
  // (the hook is the solver's own: the solver outlives it)
  solver.set_iteration_hook([trace, balancing, &solver](int it, std::span<const IterationRecord> history) {
    trace->on_iteration(it, history, moves_of(balancing), solver.wait_mode());
  });
  return trace;
}

void print_header(const RunContext& ctx, const Partition& partition, const std::vector<double>& weights) {
  if (!ctx.out) return;
  const GridSize& g = ctx.problem.grid;
  const PlacementConfig& placement = ctx.config.placement;
  *ctx.out << "\n NAS Parallel Benchmarks (NPB 3.4 LU, C++ columnwise stripes)\n"
           << " Size: " << g.nx << "x" << g.ny << "x" << g.nz << "  Iterations: " << ctx.problem.iterations
           << "  dt: " << ctx.problem.dt << "  Ranks: " << ctx.ranks << "  Columns: " << partition.to_string()
           << "\n";
  // Stripes given as such (--columns, a checkpoint's) were placed from no weights: say where they came from.
  if (placement.columns.empty())
    *ctx.out << " Weights (" << placement.source() << "): " << fmt::format("{:.4g}", fmt::join(weights, ","))
             << "\n";
  else
    *ctx.out << " Columns from " << placement.source() << "\n";
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

}  // namespace

struct BenchmarkSession::State {
  explicit State(RunContext context) : ctx(std::move(context)) {}
  RunContext ctx;
  std::vector<double> weights;
  RunIdentity run;
  std::unique_ptr<LuSolver> solver;
  std::shared_ptr<RuntimeBalancing> balancing;
  std::shared_ptr<PartitionTrace> trace;
  ProgressCallback progress;
  int report_every = 0;  // iterations between progress lines (0: none)
  bool finished = false;
  std::optional<RestartOrigin> restarted_from;  // with --restart
};

BenchmarkSession::BenchmarkSession(const RunConfig& config, MPI_Comm comm, std::ostream* out,
                                   const std::string& command_line) {
  apply_test_fault_signal("start");
  std::optional<CheckpointHeader> restart;
  std::vector<std::string> warnings;
  const RunConfig resolved = resolve_restart(config, comm, restart, warnings);
  state_ = std::make_unique<State>(
      check_inputs(resolved, comm, out, command_line, restart ? restart->iteration : 0));
  if (restart)
    state_->restarted_from = RestartOrigin{resolved.checkpoint.restart.string(), restart->iteration,
                                           int(restart->run.column_widths.size())};
  for (std::string& warning :
       effect_warnings(resolved, state_->ctx.problem, restart ? restart->iteration : 0, state_->ctx.ranks))
    warnings.push_back(std::move(warning));
  for (const std::string& warning : warnings)
    if (state_->ctx.root()) print_line_to_stderr("lu: warning: ", warning);
  State& s = *state_;
  s.weights = agree_on_weights(s.ctx);
  const Partition partition = place_stripes(s.ctx, s.weights);
  const std::optional<std::uint64_t> memory_room = check_memory(s.ctx, partition);
  s.solver = make_solver(s.ctx, partition);
  s.run = run_identity(s.ctx, *s.solver, s.weights);
  s.balancing = attach_balancer(s.ctx, *s.solver, memory_room);
  if (restart) continue_balancer(s.ctx, *restart, s.balancing.get());
  s.trace = attach_trace(s.ctx, *s.solver, s.run, s.balancing, restart ? restart->iteration : 0);
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
  const CheckpointHeader h = checkpoint_header(s.ctx, s.run, *s.solver, s.balancing.get());
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
  RunReport report = build_report(s.ctx, s.run, *s.solver, result, s.balancing.get());
  report.restarted_from = s.restarted_from;
  return publish(s.ctx, std::move(report), *s.solver);
}

BenchmarkOutcome run_benchmark(const RunConfig& config, MPI_Comm comm, std::ostream* out,
                               const std::string& command_line, AfterRun after) {
  if (!config.checkpoint.path.empty()) return run_with_checkpoints(config, comm, out, command_line, after);
  BenchmarkSession session(config, comm, out, command_line);
  session.advance(session.iterations());
  return session.finish();
}

}  // namespace npblu
