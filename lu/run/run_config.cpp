#include "lu/run/run_config.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <functional>
#include <sstream>

#include "balance/parse_number.hpp"
#include "balance/partition.hpp"
#include "lu/field.hpp"
#include "lu/io/checkpoint.hpp"
#include "lu/io/output_files.hpp"
#include "lu/io/speeds_file.hpp"
#include "lu/mpi/messages.hpp"

namespace npblu {

namespace {

namespace fs = std::filesystem;

[[noreturn]] void refuse(std::string_view option, const std::string& problem) {
  throw UsageError("--" + std::string(option) + " " + problem);
}

std::string text_of(std::string_view value) { return std::string(value); }

bool to_flag(std::string_view option, std::string_view value) {
  std::string v(value);
  std::transform(v.begin(), v.end(), v.begin(), [](unsigned char c) { return std::tolower(c); });
  if (v.empty() || v == "1" || v == "true" || v == "yes" || v == "on") return true;
  if (v == "0" || v == "false" || v == "no" || v == "off") return false;
  refuse(option,
         quote_value(value) + " is not a flag value (expected nothing, 1/0, true/false, yes/no or on/off)");
}

int at_least(std::string_view option, int value, int minimum) {
  if (value < minimum)
    refuse(option, "must be at least " + std::to_string(minimum) + ", got " + std::to_string(value));
  return value;
}

std::vector<int> to_int_list(std::string_view option, std::string_view value) {
  auto values = parse_int_list(text_of(value));
  if (!values) refuse(option, quote_value(value) + " is not a comma-separated list of integers");
  return std::move(*values);
}

// Runs a parser from balance/ or lu/ (std::invalid_argument) as a UsageError
// whose message names the option.
template <class F>
auto parsed_by(std::string_view option, F&& parse) {
  try {
    return parse();
  } catch (const std::invalid_argument& e) {
    const std::string what = one_line_message(e.what());
    const std::string named = "--" + std::string(option);
    throw UsageError(what.rfind(named, 0) == 0 ? what : named + ": " + what);
  }
}

void set_size_text(RunConfig& c, std::string_view value) {
  std::string text(value);
  std::replace(text.begin(), text.end(), ',', ' ');
  std::stringstream in(text);
  std::array<std::string, 3> n;
  std::string extra;
  if (!(in >> n[0] >> n[1] >> n[2]) || (in >> extra)) refuse("size", quote_value(value) + " is not NX NY NZ");
  set_size(c, {option_int("size", n[0]), option_int("size", n[1]), option_int("size", n[2])});
}

void set_balance(RunConfig& c, std::string_view value) {
  if (value == "off")
    c.balance.mode = BalanceMode::off;
  else if (value == "static")
    c.balance.mode = BalanceMode::static_stripes;
  else if (value == "diffusive")
    c.balance.mode = BalanceMode::diffusive;
  else
    refuse("balance", quote_value(value) + " is not a mode (expected off, static or diffusive)");
}

void set_path(std::string_view option, fs::path& path, std::string_view value) {
  if (value.empty()) refuse(option, "needs a file name, got an empty one");
  path = fs::path(text_of(value));
}

using Setter = std::function<void(RunConfig&, std::string_view option, std::string_view value)>;

struct Option {
  OptionInfo info;
  Setter set;
};

// Every option, its help and its conversion: the one list both front ends use.
const std::vector<Option>& options() {
  static const std::vector<Option> table{
      {{"class", "c", false, "CLASS", "Problem class: S W A B C D E F"},
       [](RunConfig& c, auto o, auto v) {
         if (v.size() != 1)
           throw UsageError("--" + std::string(o) + ": unknown class " + quote_value(v) +
                            " (expected one of S W A B C D E F)");
         set_class(c, v[0]);
       }},
      {{"size", "", false, "NX NY NZ", "Custom grid (class U, unverified); needs --iterations and --dt"},
       [](RunConfig& c, auto, auto v) { set_size_text(c, v); }},
      {{"iterations", "", false, "N", "Number of SSOR iterations (overrides the class)"},
       [](RunConfig& c, auto o, auto v) { set_iterations(c, option_int(o, v)); }},
      {{"dt", "", false, "X", "Time step (overrides the class)"},
       [](RunConfig& c, auto o, auto v) { set_dt(c, option_number(o, v)); }},
      {{"columns", "", false, "W0,W1,...", "Column widths per rank, e.g. 3,5,2 (must sum to NY-2)"},
       [](RunConfig& c, auto o, auto v) {
         std::vector<int> widths = to_int_list(o, v);
         for (std::size_t r = 0; r < widths.size(); ++r)  // what the grid does not decide, refused when set
           if (widths[r] < kMinimumColumnWidth)
             refuse(o, "width " + std::to_string(widths[r]) + " of rank " + std::to_string(r) +
                           " is below the minimum width " + std::to_string(kMinimumColumnWidth));
         c.placement.columns = std::move(widths);
       }},
      {{"weights", "", false, "SPEC",
        "Stripe weights: equal (default), a list 2.25,1,1, @FILE, mflops, bogomips or calibrate"},
       [](RunConfig& c, auto o, auto v) {
         c.placement.weights = parsed_by(o, [&] { return WeightSpec::parse(text_of(v)); });
       }},
      {{"emulate-speeds", "", false, "SPEC",
        "Emulated relative speed per rank in [0.01, 1], e.g. 1,0.444 or '1,1;@80:1,0.5' (from iteration 80 "
        "on), or @FILE: one speed a line, a line @N before the speeds from iteration N"},
       [](RunConfig& c, auto o, auto v) {
         c.emulation_file.clear();
         if (const auto file = speeds_file_named(v)) {
           if (file->empty()) refuse(o, "'@': missing file name");
           c.emulation_file = *file;
           c.emulation = {};
           return;
         }
         c.emulation = parsed_by(o, [&] { return SpeedSchedule::parse(text_of(v)); });
       }},
      {{"calibration-iterations", "", false, "N", "SSOR iterations timed by --weights calibrate (default 5)"},
       [](RunConfig& c, auto o, auto v) {
         c.placement.calibration_iterations = at_least(o, option_int(o, v), 1);
       }},
      {{"memory-check", "", false, "on|off",
        "Refuse, before allocating, stripes that need more memory than a node has available (default on)"},
       [](RunConfig& c, auto o, auto v) {
         if (v.empty()) refuse(o, "needs a value: on or off");  // a value option, not a flag
         c.placement.check_memory = to_flag(o, v);
       }},
      {{"balance", "", false, "MODE",
        "off (equal stripes), static (stripes from --weights/--columns; default) or diffusive (adapt at run "
        "time from MPI wait times)"},
       [](RunConfig& c, auto, auto v) { set_balance(c, v); }},
      {{"balance-every", "", false, "K",
        "Diffusive balancing every K iterations (default 5; --balance diffusive)"},
       [](RunConfig& c, auto o, auto v) { c.balance.diffusive.every = at_least(o, option_int(o, v), 1); }},
      {{"balance-threshold", "", false, "F",
        "MPI wait that must confirm an imbalance before columns move: the slowest rank by cost must wait "
        "less than the most waiting rank by F of an iteration (default 0.02; --balance diffusive)"},
       [](RunConfig& c, auto o, auto v) {
         const double t = option_number(o, v);
         if (t < 0.0) refuse(o, "must be >= 0, got " + quote_value(v));
         c.balance.diffusive.threshold = t;
       }},
      {{"balance-damping", "", false, "A",
        "Fraction of the way to the balanced stripes each cut moves per step, at least one column, "
        "0 < A <= 1 (default 1; --balance diffusive)"},
       [](RunConfig& c, auto o, auto v) {
         const double a = option_number(o, v);
         if (!(a > 0.0 && a <= 1.0)) refuse(o, "must be in (0, 1], got " + quote_value(v));
         c.balance.diffusive.damping = a;
       }},
      {{"wait", "", false, "MODE",
        "How a rank waits for messages: spin (in MPI_Wait), sleep (poll, sleep between polls) or auto "
        "(default: spin, sleep while the rank's core is shared with other work, or with other ranks where "
        "the MPI library keeps the core while it polls; the report's 'waited by' says how each rank did)"},
       [](RunConfig& c, auto o, auto v) {
         c.pipeline.wait = parsed_by(o, [&] { return parse_wait_mode(text_of(v)); });
       }},
      {{"planes-per-message", "", false, "N",
        "k planes per pipeline message in the sweeps (default 1; fewer hand-offs, same result)"},
       [](RunConfig& c, auto o, auto v) {
         c.pipeline.planes_per_message = at_least(o, option_int(o, v), 1);
       }},
      {{"json", "", false, "FILE", "Write the report as JSON to this file"},
       [](RunConfig& c, auto o, auto v) { set_path(o, c.output.json, v); }},
      {{"trace", "", false, "FILE.h5", "Write a partition trace (HDF5) to this file"},
       [](RunConfig& c, auto o, auto v) { set_path(o, c.output.trace, v); }},
      {{"trace-overwrite", "", true, "", "Replace an existing trace file (with --trace)"},
       [](RunConfig& c, auto o, auto v) { c.output.trace_overwrite = to_flag(o, v); }},
      {{"trace-flush", "", false, "N", "Flush the trace every N iterations (default 10; with --trace)"},
       [](RunConfig& c, auto o, auto v) { c.output.trace_flush_every = at_least(o, option_int(o, v), 1); }},
      {{"checkpoint", "", false, "FILE.h5",
        "Write a checkpoint (HDF5) to this file every --checkpoint-every iterations and on SIGTERM/SIGINT "
        "(then stop, exit status 4); an existing checkpoint is replaced only when this run continues it "
        "(--restart) or with --checkpoint-overwrite"},
       [](RunConfig& c, auto o, auto v) { set_path(o, c.checkpoint.path, v); }},
      {{"checkpoint-every", "", false, "N",
        "Checkpoint every N iterations (with --checkpoint; without it, on a signal only)"},
       [](RunConfig& c, auto o, auto v) { c.checkpoint.every = at_least(o, option_int(o, v), 1); }},
      {{"checkpoint-overwrite", "", true, "",
        "Replace an existing checkpoint that this run does not continue with --restart (with --checkpoint)"},
       [](RunConfig& c, auto o, auto v) { c.checkpoint.overwrite = to_flag(o, v); }},
      {{"restart", "", false, "FILE.h5",
        "Continue the run saved in this checkpoint, on any ranks and stripes (the problem options may be "
        "omitted)"},
       [](RunConfig& c, auto o, auto v) { set_path(o, c.checkpoint.restart, v); }},
      {{"quiet", "q", true, "", "No progress lines"},
       [](RunConfig& c, auto o, auto v) { c.output.quiet = to_flag(o, v); }},
      {{"progress-interval", "", false, "SECONDS", "Seconds between progress lines (default 5)"},
       [](RunConfig& c, auto o, auto v) {
         const double s = option_number(o, v);
         if (s < 0.0) refuse(o, "must be >= 0, got " + quote_value(v));
         c.output.progress_interval = s;
       }},
  };
  return table;
}

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

int option_int(std::string_view option, std::string_view value) {
  const auto v = parse_int(text_of(value));
  if (!v) refuse(option, quote_value(value) + " is not an integer (or lies beyond +/-2147483647)");
  return *v;
}

double option_number(std::string_view option, std::string_view value) {
  const auto v = parse_double(text_of(value));
  if (!v) refuse(option, quote_value(value) + " is not a number");
  if (!std::isfinite(*v)) refuse(option, quote_value(value) + " must be a finite number");
  return *v;
}

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

std::span<const OptionInfo> option_table() {
  static const std::vector<OptionInfo> infos = [] {
    std::vector<OptionInfo> v;
    for (const auto& o : options()) v.push_back(o.info);
    return v;
  }();
  return infos;
}

void set_option(RunConfig& config, std::string_view name, std::string_view value) {
  const auto& table = options();
  const auto it =
      std::find_if(table.begin(), table.end(), [&](const Option& o) { return o.info.name == name; });
  if (it == table.end()) {
    std::string known;
    for (const auto& o : table) known += (known.empty() ? "" : ", ") + std::string(o.info.name);
    throw UsageError("unknown option " + quote_value(name) + " (options: " + known + ")");
  }
  RunConfig changed = config;  // unchanged on error
  it->set(changed, name, value);
  changed.given.emplace(name);
  config = std::move(changed);
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
  config.problem.iterations = at_least("iterations", iterations, 1);
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
                     std::to_string(max_ranks) + " ranks)");
  }
  parsed_by("emulate-speeds", [&] {
    config.emulation.check_ranks(ranks);
    return 0;
  });
  const auto& weights = config.placement.weights;
  if (weights.source == WeightSource::list && weights.file.empty() &&
      static_cast<int>(weights.values.size()) != ranks) {
    throw UsageError("--weights gives " + std::to_string(weights.values.size()) +
                     " weights but the run has " + std::to_string(ranks) + " ranks");
  }
  const auto& columns = config.placement.columns;
  if (columns.empty()) return;
  if (static_cast<int>(columns.size()) != ranks) {
    throw UsageError("--columns gives " + std::to_string(columns.size()) + " widths but the run has " +
                     std::to_string(ranks) + " ranks");
  }
  parsed_by("columns", [&] { return Partition::from_widths(g.interior_columns(), columns); });
}

namespace {
// Whether a diffusive balancer has no step to take in the iterations left: a
// step follows iterations before the last one only (after the last, nothing
// is left to balance). check_effect refuses a given cadence, effect_warnings
// warns about the default one.
bool balancer_never_steps(const RunConfig& config, const Problem& problem, int iterations_done) {
  return problem.iterations > 0 && config.balance.mode == BalanceMode::diffusive &&
         config.balance.diffusive.every >= problem.iterations - iterations_done;
}
}  // namespace

void check_effect(const RunConfig& config, const Problem& problem, int iterations_done) {
  const int last = problem.iterations;
  if (last <= 0) return;  // the problem comes from a checkpoint: checked once it is read
  const auto given = [&](std::string_view o) { return config.given.count(o) > 0; };
  const int every = config.checkpoint.every;
  // A checkpoint is written after a multiple of `every` before the last iteration (the last writes the
  // report).
  const int first_checkpoint = every > 0 ? (iterations_done / every + 1) * every : 0;
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
    throw UsageError("--balance-every " + std::to_string(every_given) +
                     (every_given > left
                          ? " is beyond the last iteration ("
                          : " reaches only the last iteration, after which no step is taken (") +
                     std::to_string(last) + " iterations, " + std::to_string(left) +
                     " to run): the balancer would never run");
  }
}

std::vector<std::string> effect_warnings(const RunConfig& config, const Problem& problem,
                                         int iterations_done) {
  const int left = problem.iterations - iterations_done, every = config.balance.diffusive.every;
  if (!balancer_never_steps(config, problem, iterations_done)) return {};
  return {"--balance diffusive balances every " + counted(every, "iteration") + " (--balance-every) and " +
          counted(left, "iteration") + (left == 1 ? " is" : " are") +
          " left to run: no balancing step will be taken"};
}

}  // namespace npblu
