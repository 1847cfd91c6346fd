#include "lu/run/run_config.hpp"

#include <fmt/format.h>

#include <array>
#include <cctype>
#include <climits>
#include <cmath>
#include <sstream>

#include "balance/partition.hpp"
#include "lu/field.hpp"
#include "lu/mpi/messages.hpp"

namespace npblu {

namespace {

// Options that mean something in one mode only, and that mode.
struct ModeOption {
  std::string_view option;
  bool (*applies)(const RunConfig&);
  std::string_view needs;
};
// Diffusive, or possibly so: a restart without --balance continues the
// checkpoint's mode, known once the file is read (lu/run/restart.cpp then
// refuses the balancer's options if that mode is not diffusive).
bool balancing_diffusive(const RunConfig& c) {
  return c.balance.mode == BalanceMode::diffusive ||
         (!c.checkpoint.restart.empty() && !c.given.count("balance"));
}
constexpr std::array kModeOptions{
    ModeOption{"balance-every", balancing_diffusive, "--balance diffusive"},
    ModeOption{"balance-threshold", balancing_diffusive, "--balance diffusive"},
    ModeOption{"balance-damping", balancing_diffusive, "--balance diffusive"},
    ModeOption{"calibration-iterations",
               [](const RunConfig& c) { return c.placement.weights.source == WeightSource::calibrate; },
               "--weights calibrate"},
    ModeOption{"trace-overwrite", [](const RunConfig& c) { return !c.output.trace.empty(); }, "--trace FILE"},
    ModeOption{"trace-flush", [](const RunConfig& c) { return !c.output.trace.empty(); }, "--trace FILE"},
    ModeOption{"checkpoint-every", [](const RunConfig& c) { return !c.checkpoint.path.empty(); },
               "--checkpoint FILE.h5"},
    ModeOption{"checkpoint-overwrite", [](const RunConfig& c) { return !c.checkpoint.path.empty(); },
               "--checkpoint FILE.h5"},
};

void check_placement(const RunConfig& c) {
  const bool weighted = c.placement.weights.source != WeightSource::equal;
  if (!c.placement.columns.empty() && weighted) {
    throw UsageError("--columns and --weights both place the stripes: give one of them");
  }
  if (c.balance.mode == BalanceMode::off && (weighted || !c.placement.columns.empty())) {
    throw UsageError("--balance off uses equal stripes: drop --weights/--columns or use --balance static");
  }
}

}  // namespace

std::string to_string(BalanceMode mode) {
  switch (mode) {
    case BalanceMode::off:
      return "off";
    case BalanceMode::static_stripes:
      return "static";
    case BalanceMode::diffusive:
      return "diffusive";
  }
  return "?";
}

void set_class(RunConfig& config, char problem_class) {
  const auto pc = find_problem_class(problem_class);
  if (!pc) {
    const auto code = static_cast<unsigned char>(problem_class);
    const std::string shown = std::isprint(code) ? quote_value(std::string(1, problem_class))
                                                 : "(character code " + std::to_string(code) + ")";
    throw UsageError("--class: unknown class " + shown + " (expected one of S W A B C D E F)");
  }
  config.problem.problem_class = pc->name;
}

void set_class_name(RunConfig& config, std::string_view name) {
  if (name.size() != 1)
    throw UsageError("--class: unknown class " + quote_value(name) + " (expected one of S W A B C D E F)");
  set_class(config, name[0]);
}

void set_size(RunConfig& config, GridSize size) {
  for (const int n : {size.nx, size.ny, size.nz}) {
    if (n < kMinimumGridPoints) {
      throw UsageError("--size " + std::to_string(size.nx) + " " + std::to_string(size.ny) + " " +
                       std::to_string(size.nz) + ": every dimension needs at least " +
                       std::to_string(kMinimumGridPoints) + " points");
    }
  }
  config.problem.size = size;
}

void set_iterations(RunConfig& config, int iterations) {
  config.problem.iterations = option_at_least("iterations", iterations, 1);
}

void set_dt(RunConfig& config, double dt) {
  if (!std::isfinite(dt) || dt <= 0.0) {
    std::ostringstream shown;
    shown.precision(17);
    shown << dt;
    throw UsageError("--dt must be a positive number, got " + shown.str());
  }
  config.problem.dt = dt;
}

Problem resolve_problem(const ProblemSpec& spec) {
  Problem p;
  const auto pc = spec.problem_class ? find_problem_class(*spec.problem_class) : std::nullopt;
  if (pc) p = {pc->name, {pc->n, pc->n, pc->n}, pc->itmax, pc->dt, pc->reference};
  if (!pc && !spec.size) {
    throw UsageError("no problem given: name a class (S W A B C D E F) or give --size NX NY NZ");
  }
  if (!pc && (!spec.iterations || !spec.dt))
    throw UsageError("a custom --size needs --iterations N and --dt X");
  if (spec.size) p.grid = *spec.size;
  if (spec.iterations) p.iterations = *spec.iterations;
  if (spec.dt) p.dt = *spec.dt;
  // Anything that changes the tabulated problem makes it a custom run.
  if (pc && (p.grid != GridSize{pc->n, pc->n, pc->n} || p.iterations != pc->itmax || p.dt != pc->dt)) {
    p.problem_class = 'U';
    p.reference.reset();
  }
  return p;
}

bool problem_from_checkpoint(const RunConfig& config) {
  const ProblemSpec& p = config.problem;
  return !config.checkpoint.restart.empty() && !p.problem_class && (!p.size || !p.iterations || !p.dt);
}

std::string describe_problem(char problem_class, const GridSize& g, int iterations, double dt) {
  return fmt::format("class {} ({}x{}x{}, {} iterations, dt {})", problem_class, g.nx, g.ny, g.nz, iterations,
                     dt);
}

Problem validate(const RunConfig& config) {
  const Problem problem = problem_from_checkpoint(config) ? Problem{} : resolve_problem(config.problem);
  check_placement(config);
  refuse_options_outside_their_mode(config);
  return problem;
}

void refuse_options_outside_their_mode(const RunConfig& config) {
  for (const auto& m : kModeOptions) {
    if (config.given.count(m.option) && !m.applies(config)) {
      throw UsageError("--" + std::string(m.option) + " only applies with " + std::string(m.needs));
    }
  }
}

void check_column_fits_a_message(const GridSize& g) {
  if (double(Field5::kComponents) * g.nx * g.nz > INT_MAX) {  // (in int64, 5 x 2^31 x 2^31 overflows)
    throw UsageError("--size " + std::to_string(g.nx) + " " + std::to_string(g.ny) + " " +
                     std::to_string(g.nz) + ": grid too large: a column of " + std::to_string(g.nx) + "x" +
                     std::to_string(g.nz) + " points exceeds MPI's message size");
  }
}

void validate_for_ranks(const RunConfig& config, const Problem& problem, int ranks) {
  const GridSize& g = problem.grid;
  check_column_fits_a_message(g);
  const int max_ranks = Partition::max_ranks(g.interior_columns());
  if (ranks > max_ranks) {
    throw UsageError("too many ranks: " + std::to_string(ranks) + " ranks cannot split " +
                     std::to_string(g.ny - 2) + " interior columns with at least " +
                     std::to_string(kMinimumColumnWidth) + " columns each (at most " +
                     counted(max_ranks, "rank") + ")");
  }
  parsed_for_option("emulate-speeds", [&] {
    config.emulation.check_ranks(ranks);
    return 0;
  });
  const auto& weights = config.placement.weights;
  if (weights.source == WeightSource::list && weights.file.empty() &&
      static_cast<int>(weights.values.size()) != ranks) {
    throw UsageError("--weights gives " + counted(int(weights.values.size()), "weight") +
                     " but the run has " + counted(ranks, "rank"));
  }
  const auto& columns = config.placement.columns;
  if (columns.empty()) return;
  if (static_cast<int>(columns.size()) != ranks) {
    throw UsageError("--columns gives " + std::to_string(columns.size()) + " widths but the run has " +
                     std::to_string(ranks) + " ranks");
  }
  parsed_for_option("columns", [&] { return Partition::from_widths(g.interior_columns(), columns); });
}

namespace {
// The first iteration after iterations_done that a cadence of `every` acts
// after: checkpoints and balancing steps both follow multiples counted from
// the run's first iteration, so that a restart acts where the first run would
// have (checkpoint_schedule.cpp; balance/balancer_session.hpp: due).
int next_multiple(int every, int iterations_done) { return (iterations_done / every + 1) * every; }

// Whether a diffusive balancer has no step to take in the iterations left: a
// step follows iterations before the last one only (after the last, nothing
// is left to balance). check_effect refuses a given cadence, effect_warnings
// warns about the default one.
bool balancer_never_steps(const RunConfig& config, const Problem& problem, int iterations_done) {
  return problem.iterations > 0 && config.balance.mode == BalanceMode::diffusive &&
         next_multiple(config.balance.diffusive.every, iterations_done) >= problem.iterations;
}
}  // namespace

void check_effect(const RunConfig& config, const Problem& problem, int iterations_done) {
  const int last = problem.iterations;
  if (last <= 0) return;  // the problem comes from a checkpoint: checked once it is read
  const auto given = [&](std::string_view o) { return config.given.count(o) > 0; };
  const int every = config.checkpoint.every;
  // A checkpoint is written after a multiple of `every` before the last iteration (the last writes the
  // report).
  const int first_checkpoint = every > 0 ? next_multiple(every, iterations_done) : 0;
  if (every > 0 && !config.checkpoint.path.empty() && first_checkpoint >= last) {
    throw UsageError(
        "--checkpoint-every " + std::to_string(every) +
        " is beyond the last iteration: the first checkpoint would follow iteration " +
        std::to_string(first_checkpoint) + ", the run ends at " + std::to_string(last) +
        (iterations_done ? " (continuing after " + std::to_string(iterations_done) + ")" : std::string()) +
        " and writes its report instead: no checkpoint would be written (" +
        (last - 1 > iterations_done
             ? "--checkpoint-every " + std::to_string(last - 1) + " writes one after iteration " +
                   std::to_string(last - 1)
             : std::string("only the last iteration is left to run: no --checkpoint-every can apply")) +
        "; a SIGTERM/SIGINT still writes one)");
  }
  if (given("emulate-speeds") && config.emulation.active() &&
      config.emulation.segments().back().from_iteration > last) {
    throw UsageError("--emulate-speeds: the segment @" +
                     std::to_string(config.emulation.segments().back().from_iteration) +
                     " starts after the last iteration (" + std::to_string(last) +
                     "): it would never take effect");
  }
  const int every_given = config.balance.diffusive.every, left = last - iterations_done;
  if (given("balance-every") && balancer_never_steps(config, problem, iterations_done)) {
    const int first = next_multiple(every_given, iterations_done);
    throw UsageError("--balance-every " + std::to_string(every_given) +
                     (first > last ? " is beyond the last iteration ("
                                   : " reaches only the last iteration, after which no step is taken (") +
                     std::to_string(last) + " iterations, " + std::to_string(left) + " to run" +
                     (iterations_done > 0
                          ? "; steps follow multiples of " + std::to_string(every_given) +
                                " counted from the first iteration: the next after iteration " +
                                std::to_string(first)
                          : std::string()) +
                     "): the balancer would never run");
  }
}

std::vector<std::string> effect_warnings(const RunConfig& config, const Problem& problem, int iterations_done,
                                         int ranks) {
  if (config.balance.mode == BalanceMode::diffusive && ranks == 1)
    return {
        "--balance diffusive on 1 rank: the one stripe holds every column, no neighbour to move columns "
        "to: the balancer takes no step"};
  const int left = problem.iterations - iterations_done, every = config.balance.diffusive.every;
  if (!balancer_never_steps(config, problem, iterations_done)) return {};
  return {"--balance diffusive balances every " + counted(every, "iteration") + " (--balance-every) and " +
          counted(left, "iteration") + (left == 1 ? " is" : " are") +
          " left to run: no balancing step will be taken"};
}

}  // namespace npblu
