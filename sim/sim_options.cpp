#include "sim/sim_options.hpp"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <charconv>
#include <climits>
#include <cmath>
#include <cstdint>
#include <optional>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "balance/min_max_partition.hpp"
#include "balance/parse_number.hpp"
#include "lu/io/iteration_record.hpp"
#include "lu/io/speeds_file.hpp"
#include "lu/mpi/messages.hpp"
#include "lu/run/memory_check.hpp"
#include "lu/run/options.hpp"
#include "lu/run/run_config.hpp"
#include "lu/speed_emulation.hpp"
#include "lu/sweeps.hpp"
#include "sim/simulation.hpp"
#include "verify/class_table.hpp"

namespace npblu::sim {

namespace {

bool shared_with_lu(std::string_view name) {
  return std::any_of(std::begin(kOptionsSharedWithLu), std::end(kOptionsSharedWithLu),
                     [&](const char* s) { return name == s; });
}

// The model's own values that need converting after the parse.
struct Collected {
  std::string balance = "off", speeds, unpinned, share_pools = "on", seed, cores, core_speeds, max_columns;
};

// lu-sim's own numbers, read by lu's readers (run_config.hpp: option_int,
// option_number): the same syntax and the same refusal naming the option and
// the value; the ranges are checked with the whole command line.
template <class T>
CLI::Option* add_number(CLI::App& app, const std::string& names, T& target, const std::string& help) {
  const std::string option = names.substr(2, names.find(',') - 2);  // "--ranks,-P": "ranks"
  auto convert = [&target, option](const std::string& text) {
    if constexpr (std::is_same_v<T, int>)
      target = option_int(option, text);
    else
      target = option_number(option, text);
  };
  return app.add_option_function<std::string>(names, convert, help)
      ->type_name(std::is_same_v<T, int> ? "INT" : "FLOAT");
}

void register_model_options(CLI::App& app, SimCommandLine& out, Collected& text) {
  SimConfig& c = out.config;
  add_number(app, "--ranks,-P", c.ranks, "Modelled ranks")->required();
  app.add_option("--balance", text.balance,
                 "off | static | diffusive | best (the best partition for the true speeds; default off, "
                 "static with --columns)");
  app.add_option("--emulate-speeds", text.speeds,
                 "Speeds per rank, lu's schedule syntax ('1,0.5;@80:1,1'), or @FILE");
  add_number(app, "--noise", c.noise,
             "Relative standard deviation of each rank's compute per iteration (0.05: 5%)");
  add_number(app, "--noise-correlation", c.noise_correlation,
             "Lag-1 autocorrelation of each rank's noise in time, AR(1) with the same marginal deviation as "
             "--noise (0: independent; 0.9: slow drifts)");
  app.add_option("--seed", text.seed,
                 "Seed of the noise and of --unpinned's scheduler, a whole number from 0 to 2^64 - 1 "
                 "(default 1)");
  add_number(app, "--migration-iterations", c.migration_iterations,
             "Price of a balancing step, in modelled iterations of the widest stripe (default 1)");
  add_number(app, "--migration-column-seconds", c.migration_column_seconds,
             "Price of a balancing step per column that changes owner, seconds (default 0)");
  const CostModel defaults;  // the help's defaults, from the one home of the costs
  const auto by_default = [](double v) { return " (default " + number_text(v) + ")"; };
  add_number(app, "--latency", c.cost.latency, "Seconds per message" + by_default(defaults.latency));
  add_number(app, "--bandwidth", c.cost.bandwidth, "Bytes per second" + by_default(defaults.bandwidth));
  add_number(app, "--cost-lower", c.cost.lower,
             "Seconds per grid point, lower sweep (jacld+blts)" + by_default(defaults.lower));
  add_number(app, "--cost-upper", c.cost.upper,
             "Seconds per grid point, upper sweep (jacu+buts)" + by_default(defaults.upper));
  add_number(app, "--cost-rhs", c.cost.rhs, "Seconds per grid point, rhs" + by_default(defaults.rhs));
  add_number(app, "--cost-update", c.cost.update,
             "Seconds per grid point, update" + by_default(defaults.update));
  add_number(
      app, "--lanes", c.cost.lanes,
      "Vector lanes of lu's sweep kernels, which pipeline a stripe they sweep by hyperplanes (" +
          std::to_string(kMinHyperplaneRows) +
          " rows and twice the lanes or more, in a pipeline short enough to pay) that many planes at a "
          "time: 2 (baseline), 4 (v3), 8 (v4), 1 (every stripe plane by plane) (default " +
          std::to_string(defaults.lanes) + ")");
  app.add_option("--cores", text.cores,
                 "The core each rank runs on, e.g. 0,1,1: ranks on one core share it (default: a core each)");
  add_number(app, "--core-slice", c.core_slice,
             "With --cores or --unpinned: seconds a rank keeps a core while another rank of it is ready "
             "(default 0.006)");
  app.add_option("--unpinned", text.unpinned,
                 "RANKS:CORES: ranks the scheduler places, instead of --cores: nodes of RANKS consecutive "
                 "ranks, each free to run on any of its node's CORES cores, e.g. 3:2");
  add_number(app, "--scheduler-period", c.unpinned.scheduler_period,
             "With --unpinned: seconds between a node scheduler's moves of a rank to another core, on "
             "average (default 0.13, as measured on a 2-core VM)");
  app.add_option("--core-speeds", text.core_speeds,
                 "With --cores or --unpinned: each core's speed by its number (the unpinned nodes' cores "
                 "numbered node by node), e.g. 1,0.85, each in [0.001, 1000] (default: 1 each)");
  app.add_option("--share-pools", text.share_pools,
                 "on | off: off reads every rank at its own core share, as the balancer did before share "
                 "pools (for comparison; default on)");
  app.add_option("--max-columns", text.max_columns,
                 "The most columns each rank's memory holds, e.g. 40,40,30: the balancer keeps within them "
                 "(default: no limit)");
  app.add_flag("--history", out.history, "Put the per-iteration, per-rank history in the JSON");
}

// The problem as lu reads it: a class (its grid and iterations), a custom
// grid (250 iterations unless given), or a class with its grid or iterations
// changed, which is a custom problem (class U), as in lu.
void set_problem(SimCommandLine& out, const ProblemSpec& p) {
  if (!p.problem_class && !p.size) throw UsageError("no problem given: --class or --size NX NY NZ");
  const auto pc = p.problem_class ? find_problem_class(*p.problem_class) : std::nullopt;
  out.config.grid = p.size ? *p.size : GridSize{pc->n, pc->n, pc->n};
  out.config.iterations = p.iterations.value_or(pc ? pc->itmax : 250);
  if (pc && out.config.grid == GridSize{pc->n, pc->n, pc->n} && out.config.iterations == pc->itmax)
    out.class_name = std::string(1, pc->name);
}

// "RANKS:CORES", both whole numbers >= 1: the ranks of a node and its cores.
void parse_unpinned(const std::string& text, SimConfig::Unpinned& u) {
  const auto colon = text.find(':');
  const std::optional<int> ranks =
      colon == std::string::npos ? std::nullopt : parse_int(text.substr(0, colon));
  const std::optional<int> cores =
      colon == std::string::npos ? std::nullopt : parse_int(text.substr(colon + 1));
  if (!ranks || !cores || *ranks < 1 || *cores < 1)
    throw UsageError("--unpinned " + quote_value(text) +
                     ": expected RANKS:CORES, the ranks of a node and its cores, both >= 1 (e.g. 3:2)");
  u.node_ranks = *ranks;
  u.node_cores = *cores;
}

// A comma list as lu's --columns takes it: every item whole, none empty.
std::vector<int> int_list(const char* option, const std::string& text) {
  const std::optional<std::vector<int>> values = parse_int_list(text);
  if (!values)
    throw UsageError(std::string(option) + " " + quote_value(text) +
                     " is not a comma-separated list of integers");
  return *values;
}

std::vector<double> number_list(const char* option, const std::string& text) {
  std::vector<double> values;
  for (std::size_t start = 0;;) {
    const std::size_t comma = text.find(',', start);
    const std::optional<double> v = parse_double(text.substr(start, comma - start));
    if (!v)
      throw UsageError(std::string(option) + " " + quote_value(text) +
                       " is not a comma-separated list of numbers");
    values.push_back(*v);
    if (comma == std::string::npos) return values;
    start = comma + 1;
  }
}

// A whole number in [0, 2^64 - 1]: CLI11 would wrap -1 and saturate 2^64.
std::uint64_t parse_seed(const std::string& text) {
  std::uint64_t seed = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), seed);
  if (text.empty() || error != std::errc() || end != text.data() + text.size())
    throw UsageError("--seed " + quote_value(text) +
                     ": expected a whole number from 0 to 18446744073709551615");
  return seed;
}

bool parse_share_pools(const std::string& text) {
  if (text == "on") return true;
  if (text == "off") return false;
  throw UsageError("--share-pools " + quote_value(text) + ": expected on or off");
}

BalanceMode model_balance(const std::string& text) {
  if (text == "best") return BalanceMode::best;
  RunConfig rc;
  try {
    set_option(rc, "balance", text);  // lu's modes
  } catch (const UsageError&) {
    throw UsageError("--balance " + quote_value(text) +
                     " is not a mode (expected off, static, diffusive or best)");
  }
  switch (rc.balance.mode) {
    case npblu::BalanceMode::off:
      return BalanceMode::off;
    case npblu::BalanceMode::static_stripes:
      return BalanceMode::fixed;
    case npblu::BalanceMode::diffusive:
      return BalanceMode::diffusive;
  }
  return BalanceMode::off;
}

// The model's costs: finite, a time >= 0, a bandwidth > 0 (a negative or NaN
// cost would give negative or NaN times with exit status 0).
void check_costs(const CostModel& cost) {
  const std::pair<const char*, double> times[] = {{"--cost-lower", cost.lower},
                                                  {"--cost-upper", cost.upper},
                                                  {"--cost-rhs", cost.rhs},
                                                  {"--cost-update", cost.update},
                                                  {"--latency", cost.latency}};
  for (const auto& [option, value] : times) {
    if (!std::isfinite(value) || value < 0.0)
      throw UsageError(std::string(option) + " " + number_text(value) +
                       ": must be a finite number of seconds >= 0");
  }
  if (!std::isfinite(cost.bandwidth) || cost.bandwidth <= 0.0)
    throw UsageError("--bandwidth " + number_text(cost.bandwidth) +
                     ": must be a finite number of bytes per second > 0");
  if (cost.lanes != 1 && cost.lanes != 2 && cost.lanes != 4 && cost.lanes != 8)
    throw UsageError("--lanes " + std::to_string(cost.lanes) + ": must be 1, 2, 4 or 8");
}

// The cores the model numbers: every core of every node under --unpinned (a
// node is --unpinned's RANKS consecutive ranks), else one past the highest
// --cores names (none without either). In 64 bits: an int overflowed.
long long modelled_cores(const SimConfig& c) {
  const SimConfig::Unpinned& u = c.unpinned;
  if (u.node_ranks > 0) return (c.ranks + u.node_ranks - 1LL) / u.node_ranks * u.node_cores;
  return c.cores.empty() ? 0 : *std::max_element(c.cores.begin(), c.cores.end()) + 1LL;
}

// A speed for every core the ranks run on, and none for a core they do not:
// within a million to one of each other (the model steps time by work over
// speed, and beyond that the steps fall below a double's resolution).
constexpr double kMinCoreSpeed = 1e-3, kMaxCoreSpeed = 1e3;
void check_core_speeds(const SimConfig& c) {
  if (c.core_speeds.empty()) return;
  const long long modelled = modelled_cores(c);
  if (modelled == 0) throw UsageError("--core-speeds needs --cores or --unpinned");
  if (static_cast<long long>(c.core_speeds.size()) != modelled)
    throw UsageError("--core-speeds gives " + counted(long(c.core_speeds.size()), "speed") + " for " +
                     counted(modelled, "core"));
  for (const double s : c.core_speeds)
    if (!(s >= kMinCoreSpeed && s <= kMaxCoreSpeed))
      throw UsageError("--core-speeds: a speed must be in [0.001, 1000], got " + number_text(s));
}

constexpr double kMinClockStep = 1e-6;

// The cores are numbered in an int: one --cores gives per rank, or every
// node's under --unpinned (node * its cores + the core: 1:1000000000 on 4
// ranks overflowed to a "core number -1294967296").
void check_core_numbers(const SimConfig& c) {
  if (!c.cores.empty()) {
    if (static_cast<int>(c.cores.size()) != c.ranks)
      throw UsageError("--cores gives " + counted(long(c.cores.size()), "core") + " for " +
                       counted(c.ranks, "rank"));
    for (const int core : c.cores)
      if (core < 0 || core == INT_MAX)
        throw UsageError("--cores: a core number must be in [0, 2147483646], got " + std::to_string(core));
  }
  const SimConfig::Unpinned& u = c.unpinned;
  if (u.node_ranks > 0 && modelled_cores(c) > INT_MAX)
    throw UsageError("--unpinned " + std::to_string(u.node_ranks) + ":" + std::to_string(u.node_cores) +
                     ": " + counted((c.ranks + u.node_ranks - 1LL) / u.node_ranks, "node") + " of " +
                     counted(u.node_cores, "core") +
                     " each: more cores in all than the model can number (2147483647)");
}

// The problem as lu's checks take it (run_config.hpp): the model's grid and iterations.
Problem lu_problem(const SimConfig& c) {
  Problem problem;
  problem.grid = c.grid;
  problem.iterations = c.iterations;
  return problem;
}

// What only the whole command line can tell: ranks against the grid, stripes
// against ranks, settings that could never take effect.
void check_model(const SimConfig& c, const RunConfig& shared) {
  if (c.ranks < 1) throw UsageError("--ranks must be at least 1, got " + std::to_string(c.ranks));
  // lu's own checks of the rank count (run_config.hpp): a column fits a message, not too many ranks,
  // --columns one width per rank tiling the interior; the same messages.
  validate_for_ranks(shared, lu_problem(c), c.ranks);
  if (!c.columns.empty() && (c.balance == BalanceMode::off || c.balance == BalanceMode::best))
    throw UsageError(
        c.balance == BalanceMode::off
            ? "--balance off uses equal stripes: drop --columns or use --balance static"
            : "--balance best places the best stripes for the true speeds: drop --columns or use "
              "--balance static");
  check_core_numbers(c);
  try {
    check_max_widths(c.max_columns, c.ranks, c.grid.interior_columns().width(), c.settings.min_width);
  } catch (const std::invalid_argument& e) {
    throw UsageError(std::string("--max-columns: ") + e.what());
  }
  if (c.unpinned.node_ranks > 0 && !c.cores.empty()) throw UsageError("give --cores or --unpinned, not both");
  check_core_speeds(c);
  // At least a microsecond: each is a step of the modelled clock, and shorter
  // ones only make the model crawl (a class A iteration is milliseconds).
  if (!(c.unpinned.scheduler_period >= kMinClockStep) || !std::isfinite(c.unpinned.scheduler_period)) {
    throw UsageError("--scheduler-period must be a finite number of seconds >= 1e-06, got " +
                     number_text(c.unpinned.scheduler_period));
  }
  if (!(c.core_slice >= kMinClockStep) || !std::isfinite(c.core_slice)) {
    throw UsageError("--core-slice must be a finite number of seconds >= 1e-06, got " +
                     number_text(c.core_slice));
  }
  check_costs(c.cost);
  if (!(c.noise >= 0.0 && c.noise < 1.0))
    throw UsageError("--noise must be in [0, 1), got " + number_text(c.noise));
  if (!(c.noise_correlation >= 0.0 && c.noise_correlation < 1.0))
    throw UsageError("--noise-correlation must be in [0, 1), got " + number_text(c.noise_correlation));
  if (!(c.migration_iterations >= 0.0) || !std::isfinite(c.migration_iterations))
    throw UsageError("--migration-iterations must be a finite number >= 0, got " +
                     number_text(c.migration_iterations));
  if (!(c.migration_column_seconds >= 0.0) || !std::isfinite(c.migration_column_seconds))
    throw UsageError("--migration-column-seconds must be a finite number of seconds >= 0, got " +
                     number_text(c.migration_column_seconds));
  if (c.speeds.active() && c.speeds.segments().back().from_iteration > c.iterations)
    throw UsageError("--emulate-speeds: the segment @" +
                     std::to_string(c.speeds.segments().back().from_iteration) +
                     " starts after the last iteration (" + std::to_string(c.iterations) +
                     "): it would never take effect");
}

// Values the parse collected as text, converted and set on the config.
void convert_model_options(const CLI::App& app, const Collected& text, const RunConfig& rc,
                           SimCommandLine& out) {
  SimConfig& c = out.config;
  c.balance = model_balance(text.balance);
  c.settings = rc.balance.diffusive;
  c.columns = rc.placement.columns;
  // lu's default keeps given stripes (static): so does the model's, rather than refusing lu's command line.
  if (!c.columns.empty() && app.count("--balance") == 0) c.balance = BalanceMode::fixed;
  if (app.count("--unpinned")) parse_unpinned(text.unpinned, c.unpinned);
  c.share_pools = parse_share_pools(text.share_pools);
  if (app.count("--seed")) c.seed = parse_seed(text.seed);
  if (app.count("--cores")) c.cores = int_list("--cores", text.cores);
  if (app.count("--core-speeds")) c.core_speeds = number_list("--core-speeds", text.core_speeds);
  if (app.count("--max-columns")) c.max_columns = int_list("--max-columns", text.max_columns);
  if (app.count("--emulate-speeds")) {
    const auto file = speeds_file_named(text.speeds);
    const std::string spec = file ? read_speed_file(*file, c.ranks) : text.speeds;
    try {
      c.speeds = SpeedSchedule::parse(spec, c.ranks);
    } catch (const std::invalid_argument& e) {  // its messages name --emulate-speeds
      throw UsageError(e.what());
    }
  }
  out.json_path = rc.output.json.string();
  out.trace_path = rc.output.trace.string();
  out.trace_overwrite = rc.output.trace_overwrite;
  out.quiet = rc.output.quiet;
  out.progress_interval = rc.output.progress_interval;
}

// Settings that could never take effect, refused rather than ignored (as lu
// refuses its own): the option, whether it applies, and what it needs.
struct ModelModeOption {
  const char* option;
  bool (*applies)(const SimCommandLine&);
  const char* needs;
};

bool balancing(const SimCommandLine& s) { return s.config.balance == BalanceMode::diffusive; }
bool cores_modelled(const SimCommandLine& s) {
  return !s.config.cores.empty() || s.config.unpinned.node_ranks > 0;
}

// (The options lu-sim shares with lu, --balance-every or --trace-overwrite,
// are refused by lu's own rows: refuse_settings_without_effect.)
constexpr ModelModeOption kModelModeOptions[] = {
    {"--migration-iterations", balancing, "--balance diffusive"},  // the oracle (best) moves for free
    {"--migration-column-seconds", balancing, "--balance diffusive"},
    {"--history", [](const SimCommandLine& s) { return !s.json_path.empty(); }, "--json FILE"},
    // Quiet with nothing written would run and leave no result anywhere.
    {"--quiet", [](const SimCommandLine& s) { return !s.json_path.empty() || !s.trace_path.empty(); },
     "--json FILE or --trace FILE (it would leave no result)"},
    {"--core-slice", cores_modelled, "--cores or --unpinned"},
    {"--share-pools", cores_modelled, "--cores or --unpinned"},
    {"--scheduler-period", [](const SimCommandLine& s) { return s.config.unpinned.node_ranks > 0; },
     "--unpinned"},
    {"--noise-correlation", [](const SimCommandLine& s) { return s.config.noise > 0.0; }, "--noise > 0"},
    {"--seed",
     [](const SimCommandLine& s) { return s.config.noise > 0.0 || s.config.unpinned.node_ranks > 0; },
     "--noise > 0 or --unpinned (what it seeds)"},
};

// lu's rows for the options both programs have, the model's modes mapped to
// lu's (only diffusive balances; best is the oracle), then the model's own.
// Then lu's checks of settings that could have no effect (a given --balance-every
// beyond the run: refused; the default one: lu's warning, in `out.warnings`).
void refuse_settings_without_effect(const CLI::App& app, RunConfig shared, SimCommandLine& out) {
  shared.balance.mode = balancing(out) ? npblu::BalanceMode::diffusive : npblu::BalanceMode::off;
  refuse_options_outside_their_mode(shared);
  for (const ModelModeOption& m : kModelModeOptions)
    if (app.count(m.option) && !m.applies(out))
      throw UsageError(std::string(m.option) + " only applies with " + m.needs);
  check_effect(shared, lu_problem(out.config), 0);
  out.warnings = effect_warnings(shared, lu_problem(out.config), 0, out.config.ranks);
}

// The model keeps every rank's record of every iteration (the history its
// JSON and trace report, a double a field), two figures an iteration and the
// time each rank finished each plane: a run this node cannot hold is refused
// before allocating (--iterations 100000000, or NZ 2^31 - 1, ended in
// std::bad_alloc or the kernel's OOM killer), as lu refuses stripes beyond a
// node's memory.
// With --history the JSON holds every record again: a JSON node a value (16
// bytes, up to twice that in an array as it grows) and its text (up to 24
// characters) when written (a run accepted at 5.9 GB grew to 24 GB).
constexpr double kHistoryBytesPerValue = 2 * 16 + 24;
void check_model_memory(const SimConfig& c, bool history) {
  const double values = double(iteration_record_fields().size()) * c.ranks * c.iterations;
  const double records = values * sizeof(double) + 2 * sizeof(double) * c.iterations;
  const double in_json = history ? values * kHistoryBytesPerValue : 0.0;
  const double planes = double(c.ranks) * std::max(0, c.grid.nz - 2) * sizeof(double);
  const std::optional<AvailableMemory> available = available_memory();
  if (!available || records + in_json + planes <= 0.5 * double(available->bytes)) return;
  throw UsageError(
      std::to_string(c.ranks) + " ranks x " + std::to_string(c.iterations) + " iterations x " +
      std::to_string(c.grid.nz) + " planes: the model needs about " +
      std::to_string(static_cast<long long>((records + in_json + planes) / 1e6)) +
      " MB (its per-iteration records" + (history ? ", their copy in the JSON (--history)" : "") +
      " and each rank's plane times), more than half of the " + std::to_string(available->bytes / 1000000) +
      " MB available (" + available->source + "): give " +
      (records + in_json >= planes ? (history ? "fewer --iterations or no --history" : "fewer --iterations")
                                   : "a smaller NZ"));
}

// The stripes the run starts on within --max-columns (as lu refuses stripes
// a node's memory cannot hold): a start beyond them is no run of that machine.
void check_starting_stripes(const SimConfig& c) {
  if (c.max_columns.empty() || c.balance == BalanceMode::best) return;  // the oracle keeps within them
  const std::vector<int> widths = starting_partition(c).widths();
  for (int r = 0; r < c.ranks; ++r)
    if (widths[r] > c.max_columns[r])
      throw UsageError("--max-columns: rank " + std::to_string(r) + " starts with " +
                       std::to_string(widths[r]) + " columns, more than its " +
                       std::to_string(c.max_columns[r]) + " (give --columns within them)");
}

}  // namespace

SimCommandLine parse_sim_command_line(int argc, const char* const* argv) {
  CLI::App app{
      "lu-sim: a model of LU on columnwise stripes (pipelined sweeps, halo exchange) driving the real "
      "diffusive balancer"};
  app.name("lu-sim");
  app.set_version_flag(
      "--version", [] { return version_text("lu-sim"); }, "Print the version and exit");
  SimCommandLine out;
  Collected text;
  const TableOptions lu_options(app, "Problem class, positionally (lu-sim -P 4 A)", shared_with_lu);
  app.get_option("--size")->description(
      "Custom grid NX NY NZ (with a class, the class's iterations; without, 250; --iterations sets "
      "them; each dimension >= 6)");
  app.get_option("--quiet")->description(
      "No summary or progress lines on standard output (with --json or --trace)");
  app.get_option("--progress-interval")
      ->description(
          "Seconds of the model's own run between progress lines (default 5; a model that runs for less "
          "prints none)");
  register_model_options(app, out, text);
  refuse_option_words_as_values(app, argc, argv);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    out.help = app.help();
    return out;
  } catch (const CLI::CallForVersion& e) {
    out.help = e.what();
    return out;
  } catch (const CLI::ParseError& e) {
    throw UsageError(command_line_error(e.what(), argc, argv));
  }
  const RunConfig rc = lu_options.config(app);
  set_problem(out, rc.problem);
  convert_model_options(app, text, rc, out);
  check_model(out.config, rc);
  refuse_settings_without_effect(app, rc, out);
  check_starting_stripes(out.config);
  check_model_memory(out.config, out.history);
  return out;
}

}  // namespace npblu::sim
