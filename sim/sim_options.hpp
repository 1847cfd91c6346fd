#pragma once
// lu-sim's command line. The options it shares with lu (the problem, the
// starting stripes, the balancer's settings, the outputs) are lu's own: taken
// from lu's option table (lu/run/run_config.hpp) and converted by its setters,
// so they have one spelling, one help text, one validation and one message.
// The model's own options (ranks, speeds with @FILE, noise, costs, the price of
// a step, the "best" partition) are declared here.
#include <string>
#include <vector>

#include "sim/simulation.hpp"

namespace npblu::sim {

struct SimCommandLine {
  SimConfig config;
  std::string class_name;  // the class run as tabulated (the identity's); "" for a custom problem
  std::string json_path, trace_path;
  bool history = false, trace_overwrite = false, quiet = false;
  double progress_interval = 5.0;     // seconds of the model's own run between progress lines (0: none)
  std::string help;                   // non-empty: --help or --version was given; print it and exit 0
  std::vector<std::string> warnings;  // lu's effect_warnings for the shared options ("lu-sim: warning: ...")
};

/// Throws UsageError naming the option and the value on any problem.
SimCommandLine parse_sim_command_line(int argc, const char* const* argv);

/// The options lu-sim takes from lu's table.
inline constexpr const char* kOptionsSharedWithLu[] = {
    "class",           "size", "iterations", "columns",         "balance-every", "balance-threshold",
    "balance-damping", "json", "trace",      "trace-overwrite", "quiet",         "progress-interval"};

}  // namespace npblu::sim
