#include "lu/run/restart.hpp"

#include <fmt/format.h>

#include "lu/io/report.hpp"
#include "lu/isa.hpp"

namespace npblu {

namespace {

/// With --restart: what the checkpointed run was doing and the options do
/// not say otherwise continues: its speed emulation schedule (the
/// iteration numbers go on, so '@30' still starts at 30) and its balancer
/// settings.
/// Returns a one-line warning, or "": a schedule for another rank count cannot continue.
std::string continue_settings(RunConfig& config, const CheckpointHeader& h, int ranks,
                              const std::string& named) {
  std::string warning;
  if (!config.given.count("emulate-speeds") && !h.run.emulated_speeds.empty()) {
    SpeedSchedule schedule = as_run_error([&] { return SpeedSchedule::parse(h.run.emulated_speeds); });
    try {
      schedule.check_ranks(ranks);
      config.emulation = schedule;
    } catch (const std::invalid_argument&) {
      warning = named + ": the run emulated speeds " + quote_value(h.run.emulated_speeds) + " on " +
                std::to_string(h.run.ranks) + " ranks; this run on " + std::to_string(ranks) +
                " is not emulated (give --emulate-speeds to emulate it)";
    }
  }
  if (!config.given.count("balance") && h.run.balance == "diffusive")
    config.balance.mode = BalanceMode::diffusive;
  for (const char* option : {"balance-every", "balance-threshold", "balance-damping"}) {
    if (config.given.count(option) && config.balance.mode != BalanceMode::diffusive)
      throw RunError("--" + std::string(option) + " only applies with --balance diffusive (" + named +
                     " holds a run balanced '" + h.run.balance + "')");
  }
  if (config.balance.mode == BalanceMode::diffusive && h.run.balance == "diffusive") {
    if (!config.given.count("balance-every")) config.balance.diffusive.every = h.run.balance_every;
    if (!config.given.count("balance-threshold"))
      config.balance.diffusive.threshold = h.run.balance_threshold;
    if (!config.given.count("balance-damping")) config.balance.diffusive.damping = h.run.balance_damping;
  }
  return warning;
}

/// "" or a warning: the checkpoint was written at a level of the other kind
/// of bits (lu/isa.hpp: baseline has no FMA, v3 and v4 contract into FMA),
/// so the continued run verifies but ends with bits of neither kind.
std::string level_kind_warning(const CheckpointHeader& h, const std::string& named) {
  const std::string active = isa_name(active_isa());
  const bool saved_fma = h.run.isa != isa_name(IsaLevel::baseline),
             active_fma = contracts_into_fma(active_isa());
  if (h.run.isa.empty() || saved_fma == active_fma) return "";
  const auto kind = [](bool fma) { return fma ? " (FMA)" : " (no FMA)"; };
  return named + ": written at level " + h.run.isa + kind(saved_fma) + ", continued at " + active +
         kind(active_fma) +
         ": the run verifies, but its field_checksum is neither level's uninterrupted one " +
         "(NPBLU_ISA=" + (saved_fma ? "v3 or v4" : "baseline") + " continues it bit for bit)";
}

/// Step 0, with --restart: the checkpoint's header, and the run's problem
/// from it. Problem options may be omitted (the checkpoint's are taken) or
/// must give exactly its problem; a run on as many ranks as the checkpoint's
/// with no placement option of its own continues on the checkpoint's
/// stripes (where the balancer had moved them).
RunConfig continue_checkpoint(RunConfig config, const CheckpointHeader& h, MPI_Comm comm,
                              std::vector<std::string>& warnings) {
  const std::string named = "--restart " + quote_value(config.checkpoint.restart.string());
  const RunIdentity& run = h.run;
  const char saved_class = run.problem_class.at(0);  // one letter: checked when read
  // The checkpoint's problem, with the problem options given on top: they must not change it.
  // Without a class, what is not given is the checkpoint's: --size alone continues a custom problem with its
  // iterations and dt (and names a class's grid as class U, which the check below explains).
  ProblemSpec spec = config.problem;
  if (!spec.problem_class && !spec.size && saved_class != 'U') {
    spec.problem_class = saved_class;
  } else if (!spec.problem_class) {
    if (!spec.size) spec.size = run.grid;
    if (!spec.iterations) spec.iterations = run.iterations;
    if (!spec.dt) spec.dt = run.dt;
  }
  const Problem asked = as_run_error([&] { return resolve_problem(spec); });
  if (asked.problem_class != saved_class || asked.grid != run.grid || asked.iterations != run.iterations ||
      asked.dt != run.dt) {
    std::string given;
    int options = 0;
    for (const char* option : {"class", "size", "iterations", "dt"})
      if (config.given.count(option)) given += std::string(options++ ? ", " : "") + "--" + option;
    // A class's own numbers given as --size are still a custom problem (class U): say so, as the two
    // descriptions then differ in the class letter alone.
    const bool only_the_class =
        asked.grid == run.grid && asked.iterations == run.iterations && asked.dt == run.dt;
    throw RunError(named + ": holds a checkpoint of " +
                   describe_problem(saved_class, run.grid, run.iterations, run.dt) + ", but " +
                   (given.empty() ? std::string("the problem") : given) + (options > 1 ? " ask" : " asks") +
                   " for " + describe_problem(asked.problem_class, asked.grid, asked.iterations, asked.dt) +
                   (only_the_class && asked.problem_class == 'U'
                        ? " (--size always makes a custom problem, class U, even with a class's own numbers; "
                          "omit the problem options to continue the checkpoint's)"
                        : " (omit the problem options to continue the checkpoint's)"));
  }
  config.problem = {asked.problem_class != 'U' ? std::optional<char>(asked.problem_class) : std::nullopt,
                    asked.problem_class == 'U' ? std::optional<GridSize>(asked.grid) : std::nullopt,
                    asked.problem_class == 'U' ? std::optional<int>(asked.iterations) : std::nullopt,
                    asked.problem_class == 'U' ? std::optional<double>(asked.dt) : std::nullopt};
  if (h.iteration >= run.iterations)
    throw RunError(named + ": holds a finished run (iteration " + std::to_string(h.iteration) + ")");
  int ranks = 1;
  MPI_Comm_size(comm, &ranks);
  const bool own_placement = !config.placement.columns.empty() ||
                             config.placement.weights.source != WeightSource::equal ||
                             config.balance.mode == BalanceMode::off;
  if (!own_placement && static_cast<int>(h.run.column_widths.size()) == ranks) {
    config.placement.columns = h.run.column_widths;
    config.placement.columns_source = "the checkpoint's stripes";
  }
  for (const std::string& w : {continue_settings(config, h, ranks, named), level_kind_warning(h, named)})
    if (!w.empty()) warnings.push_back(w);
  return config;
}

}  // namespace

/// The run's configuration: `config`, completed from the --restart checkpoint if any.
RunConfig resolve_restart(const RunConfig& config, MPI_Comm comm, std::optional<CheckpointHeader>& header,
                          std::vector<std::string>& warnings) {
  if (config.checkpoint.restart.empty()) return config;
  header = read_checkpoint_header(config.checkpoint.restart, comm);
  return continue_checkpoint(config, *header, comm, warnings);
}

/// After start(): u and the iteration count from the checkpoint, then the
/// run's header and a line saying where it continues from.
void continue_balancer(const RunContext& ctx, const CheckpointHeader& header, RuntimeBalancing* balancing) {
  if (!balancing || header.balancer_state.empty() ||
      static_cast<int>(header.run.column_widths.size()) != ctx.ranks)
    return;
  try {
    balancing->restore_state(header.balancer_state);
  } catch (const std::invalid_argument& e) {
    throw RunError("--restart " + quote_value(ctx.config.checkpoint.restart.string()) +
                   ": attribute 'balancer_state' refused: " + e.what());
  }
}

void restore(const RunContext& ctx, const CheckpointHeader& header, LuSolver& solver,
             const std::function<void()>& print_header) {
  const auto& path = ctx.config.checkpoint.restart;
  const CheckpointStats stats = restore_checkpoint(path, header, solver, ctx.comm);
  print_header();
  if (!ctx.out) return;
  *ctx.out << fmt::format(
                  " Restarted from {} at iteration {} of {} (written on {} ranks), read in {:.3f} s\n",
                  quote_value(path.string()), header.iteration, header.run.iterations,
                  header.run.column_widths.size(), stats.seconds)
           << std::flush;
}

CheckpointHeader checkpoint_header(const RunContext& ctx, const RunIdentity& run, const LuSolver& solver,
                                   const RuntimeBalancing* balancing) {
  CheckpointHeader h;
  h.run = run;
  h.run.column_widths = solver.partition().widths();  // where a restart continues
  h.created = utc_now();
  h.iteration = solver.iterations_done();
  const double mine = solver.timed_seconds();
  MPI_Allreduce(&mine, &h.timed_seconds, 1, MPI_DOUBLE, MPI_MAX, ctx.comm);
  h.balance_moved_columns = balancing ? balancing->moved_columns() : 0;
  if (balancing) h.balancer_state = balancing->saved_state();
  const auto phases = reduce_phase_timers(solver.timers(), ctx.comm);
  for (int p = 0; p < PhaseTimers::kCount; ++p) {
    h.phase_names.emplace_back(PhaseTimers::name(static_cast<Phase>(p)));
    h.phase_seconds_min.push_back(phases[p].min);
    h.phase_seconds_max.push_back(phases[p].max);
    h.phase_seconds_mean.push_back(phases[p].mean);
  }
  return h;
}

}  // namespace npblu
