#include "lu/run/run_report.hpp"

#include "lu/io/output_files.hpp"
#include "lu/isa.hpp"
#include "lu/run/test_faults.hpp"

namespace npblu {

namespace {

/// Every rank's `text` (a name, at most MPI_MAX_PROCESSOR_NAME - 1 bytes), on rank 0.
std::vector<std::string> gather_names(const std::string& text, MPI_Comm comm) {
  constexpr int kWidth = MPI_MAX_PROCESSOR_NAME;
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  char name[kWidth] = {};
  text.copy(name, kWidth - 1);
  std::vector<char> all(rank == 0 ? std::size_t(size) * kWidth : 0);
  MPI_Gather(name, kWidth, MPI_CHAR, all.data(), kWidth, MPI_CHAR, 0, comm);
  std::vector<std::string> names;
  for (int r = 0; r < static_cast<int>(all.size()) / kWidth; ++r)
    names.emplace_back(&all[std::size_t(r) * kWidth]);
  return names;
}

std::string host_name() {
  char name[MPI_MAX_PROCESSOR_NAME] = {};
  int length = 0;
  MPI_Get_processor_name(name, &length);
  return name;
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

}  // namespace

RunIdentity run_identity(const RunContext& ctx, const LuSolver& solver, const std::vector<double>& weights) {
  const RunConfig& c = ctx.config;
  const Problem& p = ctx.problem;
  RunIdentity id;
  id.program = "lu";
  id.program_version = NPBLU_VERSION;
  id.isa = isa_name(active_isa());
  id.mpi_library = mpi_library_version();
  id.command_line = ctx.command_line;
  id.start_time = utc_now();
  id.hosts = gather_names(host_name(), ctx.comm);
  id.problem_class = std::string(1, p.problem_class);
  id.grid = p.grid;
  id.iterations = p.iterations;
  id.dt = p.dt;
  id.ranks = ctx.ranks;
  id.column_widths = solver.partition().widths();
  id.weight_source = c.placement.source();
  id.weights = weights;
  id.balance = to_string(c.balance.mode);
  id.balance_every = c.balance.diffusive.every;
  id.balance_threshold = c.balance.diffusive.threshold;
  id.balance_damping = c.balance.diffusive.damping;
  id.emulated_speeds = ctx.solver_config.emulation.spec();
  id.waits = gather_names(solver.wait_policy(), ctx.comm);
  return id;
}

/// Step 8 (collective): the report, complete on rank 0.
RunReport build_report(const RunContext& ctx, const RunIdentity& run, const LuSolver& solver,
                       const SolveResult& result, const RuntimeBalancing* balancing) {
  const Problem& p = ctx.problem;
  RunReport report;
  report.run = run;
  report.emulation = ctx.solver_config.emulation;
  report.iterations_run = result.iterations;
  report.seconds = result.seconds;
  report.mops = lu_mops(p.grid.nx, p.grid.ny, p.grid.nz, result.iterations, result.seconds);
  report.computed = {result.residual_norms, result.error_norms, result.surface_integral};
  apply_test_fault_to_norms(report.computed);
  apply_test_fault_on_rank(ctx.rank);
  apply_test_fault_signal("report");
  if (p.reference) report.verification = verify(report.computed, *p.reference);
  report.field_checksum = solver.checksum();
  report.phases = reduce_phase_timers(result.timers, ctx.comm);
  report.columns = solver.partition().widths();
  if (balancing) {
    report.balance_steps = balancing->steps();
    report.moved_columns = balancing->moved_columns();
    report.moves = balancing->moves();
    report.decisions = balancing->log();
    report.max_columns = balancing->max_widths();
    report.share_pools = balancing->share_pools();
  }
  report.history = gather_history(result.history, ctx.comm);
  return report;
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
  outcome.grid = solver.grid();
  outcome.owned = solver.owned();
  outcome.imbalance = imbalance;
  outcome.moved_columns = report.moved_columns;
  outcome.iterations_run = report.iterations_run;
  if (ctx.root()) outcome.report = std::move(report);
  return outcome;
}

}  // namespace npblu
