// The option table: every option of lu, the C API and Fortran, its help, its
// conversion into RunConfig and how the ranks of one run agree on it.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <functional>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "balance/parse_number.hpp"
#include "lu/io/speeds_file.hpp"
#include "lu/run/option_values.hpp"
#include "lu/run/run_config.hpp"

namespace npblu {

namespace {

namespace fs = std::filesystem;

std::string text_of(std::string_view value) { return std::string(value); }

// A flag's words; an option that needs its value (--memory-check on|off) says so in its refusal.
bool to_flag(std::string_view option, std::string_view value, bool needs_value = false) {
  std::string v(value);
  std::transform(v.begin(), v.end(), v.begin(), [](unsigned char c) { return std::tolower(c); });
  if (v.empty() || v == "1" || v == "true" || v == "yes" || v == "on") return true;
  if (v == "0" || v == "false" || v == "no" || v == "off") return false;
  refuse_option(option, quote_value(value) + (needs_value ? " is not on or off (or 1/0, true/false, yes/no)"
                                                          : " is not a flag value (expected nothing, 1/0, "
                                                            "true/false, yes/no or on/off)"));
}

std::vector<int> to_int_list(std::string_view option, std::string_view value) {
  auto values = parse_int_list(text_of(value));
  if (!values) refuse_option(option, quote_value(value) + " is not a comma-separated list of integers");
  return std::move(*values);
}

void set_size_text(RunConfig& c, std::string_view value) {
  std::string text(value);
  std::replace(text.begin(), text.end(), ',', ' ');
  std::stringstream in(text);
  std::array<std::string, 3> n;
  std::string extra;
  if (!(in >> n[0] >> n[1] >> n[2]) || (in >> extra))
    refuse_option("size", quote_value(value) + " is not NX NY NZ");
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
    refuse_option("balance", quote_value(value) + " is not a mode (expected off, static or diffusive)");
}

void set_path(std::string_view option, fs::path& path, std::string_view value) {
  if (value.empty()) refuse_option(option, "needs a file name, got an empty one");
  path = fs::path(text_of(value));
}

using Setter = std::function<void(RunConfig&, std::string_view option, std::string_view value)>;

// The setting as the ranks of one run must agree on it (option_settings).
using Shown = std::function<std::string(const RunConfig&)>;

struct Option {
  OptionInfo info;
  Setter set;
  Shown shown;
};

std::string shown(int v) { return std::to_string(v); }
std::string shown(double v) { return fmt::format("{}", v); }  // (the shortest text that reads back the same)
std::string shown_flag(bool v) { return v ? "on" : "off"; }
std::string shown_file(const fs::path& path) { return path.empty() ? "" : "given"; }
template <class T>
std::string shown_if(const std::optional<T>& v) {
  return v ? shown(*v) : "";
}
template <class T>
std::string shown_list(const std::vector<T>& values) {
  std::string text;
  for (const T& v : values) {
    if (!text.empty()) text += ',';
    text += shown(v);
  }
  return text;
}
std::string shown_weights(const WeightSpec& w) {
  if (!w.file.empty()) return "@ a file";
  return w.source == WeightSource::list ? shown_list(w.values) : w.describe();
}

// Rows whose setting is one field of RunConfig: `field(c)` names it once, for
// the setter and for the agreed setting alike (a generic lambda returning
// `auto&`, so that it serves a RunConfig& and a const RunConfig&).
template <class Field>
Option file_option(OptionInfo info, Field field) {
  return {info, [field](RunConfig& c, auto o, auto v) { set_path(o, field(c), v); },
          [field](const RunConfig& c) { return shown_file(field(c)); }};
}
template <class Field>
Option flag_option(OptionInfo info, Field field) {
  return {info, [field](RunConfig& c, auto o, auto v) { field(c) = to_flag(o, v); },
          [field](const RunConfig& c) { return shown_flag(field(c)); }};
}
// A whole number, at least 1.
template <class Field>
Option count_option(OptionInfo info, Field field) {
  return {info, [field](RunConfig& c, auto o, auto v) { field(c) = option_at_least(o, option_int(o, v), 1); },
          [field](const RunConfig& c) { return shown(field(c)); }};
}

// Every option, its help, its conversion and its agreed setting: the one list
// lu's command line, the C API and Fortran use.
const std::vector<Option>& options() {
  static const std::vector<Option> table{
      {{"class", "c", false, "CLASS", "Problem class: S W A B C D E F"},
       [](RunConfig& c, auto, auto v) { set_class_name(c, v); },
       [](const RunConfig& c) -> std::string {
         return c.problem.problem_class ? std::string(1, *c.problem.problem_class) : "";
       }},
      {{"size", "", false, "NX NY NZ", "Custom grid (class U, unverified); needs --iterations and --dt"},
       [](RunConfig& c, auto, auto v) { set_size_text(c, v); },
       [](const RunConfig& c) -> std::string {
         return c.problem.size
                    ? fmt::format("{} {} {}", c.problem.size->nx, c.problem.size->ny, c.problem.size->nz)
                    : "";
       }},
      {{"iterations", "", false, "N", "Number of SSOR iterations (overrides the class)"},
       [](RunConfig& c, auto o, auto v) { set_iterations(c, option_int(o, v)); },
       [](const RunConfig& c) -> std::string { return shown_if(c.problem.iterations); }},
      {{"dt", "", false, "X", "Time step (overrides the class)"},
       [](RunConfig& c, auto o, auto v) { set_dt(c, option_number(o, v)); },
       [](const RunConfig& c) -> std::string { return shown_if(c.problem.dt); }},
      {{"columns", "", false, "W0,W1,...", "Column widths per rank, e.g. 3,5,2 (must sum to NY-2)"},
       [](RunConfig& c, auto o, auto v) {
         std::vector<int> widths = to_int_list(o, v);
         for (std::size_t r = 0; r < widths.size(); ++r)  // what the grid does not decide, refused when set
           if (widths[r] < kMinimumColumnWidth)
             refuse_option(o, "width " + std::to_string(widths[r]) + " of rank " + std::to_string(r) +
                                  " is below the minimum width " + std::to_string(kMinimumColumnWidth));
         c.placement.columns = std::move(widths);
       },
       [](const RunConfig& c) -> std::string { return shown_list(c.placement.columns); }},
      {{"weights", "", false, "SPEC",
        "Stripe weights: equal (default), a list 2.25,1,1, @FILE, mflops, bogomips or calibrate"},
       [](RunConfig& c, auto o, auto v) {
         c.placement.weights = parsed_for_option(o, [&] { return WeightSpec::parse(text_of(v)); });
       },
       [](const RunConfig& c) -> std::string { return shown_weights(c.placement.weights); }},
      {{"emulate-speeds", "", false, "SPEC",
        "Emulated relative speed per rank in [0.01, 1], e.g. 1,0.444 or '1,1;@80:1,0.5' (from iteration 80 "
        "on), or @FILE: one speed a line, a line @N before the speeds from iteration N"},
       [](RunConfig& c, auto o, auto v) {
         c.emulation_file.clear();
         if (const auto file = speeds_file_named(v)) {
           c.emulation_file = *file;
           c.emulation = {};
           return;
         }
         c.emulation = parsed_for_option(o, [&] { return SpeedSchedule::parse(text_of(v)); });
       },
       [](const RunConfig& c) -> std::string {
         return c.emulation_file.empty() ? c.emulation.spec() : "@ a file";
       }},
      count_option(
          {"calibration-iterations", "", false, "N",
           "SSOR iterations timed by --weights calibrate (default 5)"},
          [](auto& c) -> auto& { return c.placement.calibration_iterations; }),
      {{"memory-check", "", false, "on|off",
        "Refuse, before allocating, stripes that need more memory than a node has available (default on)"},
       [](RunConfig& c, auto o, auto v) {
         if (v.empty()) refuse_option(o, "needs a value: on or off");  // a value option, not a flag
         c.placement.check_memory = to_flag(o, v, true);
       },
       [](const RunConfig& c) -> std::string { return shown_flag(c.placement.check_memory); }},
      {{"balance", "", false, "MODE",
        "off (equal stripes), static (stripes from --weights/--columns; default) or diffusive (adapt at run "
        "time from MPI wait times)"},
       [](RunConfig& c, auto, auto v) { set_balance(c, v); },
       [](const RunConfig& c) -> std::string { return to_string(c.balance.mode); }},
      count_option(
          {"balance-every", "", false, "K",
           "Diffusive balancing every K iterations (default 5; --balance diffusive)"},
          [](auto& c) -> auto& { return c.balance.diffusive.every; }),
      {{"balance-threshold", "", false, "F",
        "MPI wait that must confirm an imbalance before columns move: the slowest rank by cost must wait "
        "less than the most waiting rank by F of an iteration (default 0.02; --balance diffusive)"},
       [](RunConfig& c, auto o, auto v) {
         const double t = option_number(o, v);
         if (t < 0.0) refuse_option(o, "must be >= 0, got " + quote_value(v));
         c.balance.diffusive.threshold = t;
       },
       [](const RunConfig& c) -> std::string { return shown(c.balance.diffusive.threshold); }},
      {{"balance-damping", "", false, "A",
        "Fraction of the way to the balanced stripes each cut moves per step, at least one column, "
        "0 < A <= 1 (default 1; --balance diffusive)"},
       [](RunConfig& c, auto o, auto v) {
         const double a = option_number(o, v);
         if (!(a > 0.0 && a <= 1.0)) refuse_option(o, "must be in (0, 1], got " + quote_value(v));
         c.balance.diffusive.damping = a;
       },
       [](const RunConfig& c) -> std::string { return shown(c.balance.diffusive.damping); }},
      {{"wait", "", false, "MODE",
        "How a rank waits for messages: spin (in MPI_Wait), sleep (poll, sleep between polls) or auto "
        "(default: spin, sleep while the rank's core is shared with other work, or with other ranks where "
        "the MPI library keeps the core while it polls; the report's 'waited by' says how each rank did)"},
       [](RunConfig& c, auto o, auto v) {
         c.pipeline.wait = parsed_for_option(o, [&] { return parse_wait_mode(text_of(v)); });
       },
       [](const RunConfig& c) -> std::string { return to_string(c.pipeline.wait); }},
      count_option(
          {"planes-per-message", "", false, "N",
           "k planes per pipeline message in the sweeps (default 1; fewer hand-offs, same result)"},
          [](auto& c) -> auto& { return c.pipeline.planes_per_message; }),
      file_option(
          {"json", "", false, "FILE", "Write the report as JSON to this file"},
          [](auto& c) -> auto& { return c.output.json; }),
      file_option(
          {"trace", "", false, "FILE.h5", "Write a partition trace (HDF5) to this file"},
          [](auto& c) -> auto& { return c.output.trace; }),
      flag_option(
          {"trace-overwrite", "", true, "", "Replace an existing trace file (with --trace)"},
          [](auto& c) -> auto& { return c.output.trace_overwrite; }),
      count_option(
          {"trace-flush", "", false, "N", "Flush the trace every N iterations (default 10; with --trace)"},
          [](auto& c) -> auto& { return c.output.trace_flush_every; }),
      file_option(
          {"checkpoint", "", false, "FILE.h5",
           "Write a checkpoint (HDF5) to this file every --checkpoint-every iterations and on SIGTERM/SIGINT "
           "(then stop, exit status 4); an existing checkpoint is replaced only when this run continues it "
           "(--restart) or with --checkpoint-overwrite"},
          [](auto& c) -> auto& { return c.checkpoint.path; }),
      count_option(
          {"checkpoint-every", "", false, "N",
           "Checkpoint every N iterations (with --checkpoint; without it, on a signal only)"},
          [](auto& c) -> auto& { return c.checkpoint.every; }),
      flag_option(
          {"checkpoint-overwrite", "", true, "",
           "Replace an existing checkpoint that this run does not continue with --restart (with "
           "--checkpoint)"},
          [](auto& c) -> auto& { return c.checkpoint.overwrite; }),
      file_option(
          {"restart", "", false, "FILE.h5",
           "Continue the run saved in this checkpoint, on any ranks and stripes (the problem options may be "
           "omitted)"},
          [](auto& c) -> auto& { return c.checkpoint.restart; }),
      flag_option(
          {"quiet", "q", true, "", "No progress lines"}, [](auto& c) -> auto& { return c.output.quiet; }),
      {{"progress-interval", "", false, "SECONDS", "Seconds between progress lines (default 5)"},
       [](RunConfig& c, auto o, auto v) {
         const double s = option_number(o, v);
         if (s < 0.0) refuse_option(o, "must be >= 0, got " + quote_value(v));
         c.output.progress_interval = s;
       },
       [](const RunConfig& c) -> std::string { return shown(c.output.progress_interval); }},
  };
  return table;
}

}  // namespace

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

std::vector<OptionSetting> option_settings(const RunConfig& config) {
  std::vector<OptionSetting> settings;
  for (const auto& o : options()) settings.push_back({o.info.name, o.shown(config)});
  return settings;
}

}  // namespace npblu
