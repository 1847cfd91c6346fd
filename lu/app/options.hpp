#pragma once
// Command-line options of the lu benchmark, parsed identically on every rank.
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "lu/grid.hpp"
#include "verify/class_table.hpp"

namespace npblu {

/// Bad command line: the message names the problem; exit status 2.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct RunOptions {
  char problem_class = 'U';  // tabulated class, or 'U' for custom
  GridSize grid;
  int iterations = 0;
  double dt = 0.0;
  std::optional<ReferenceValues> reference;  // absent for class U
  std::vector<int> columns;                  // explicit widths per rank, if given
  std::string weights = "equal";             // --weights SPEC (see balance/weights.hpp)
  std::string emulate_speeds;                // --emulate-speeds SPEC (see lu/speed_emulation.hpp)
  int calibration_iterations = 5;
  std::string balance = "static";  // off | static | diffusive
  int balance_every = 5;
  double balance_threshold = 0.02;
  double balance_damping = 1.0;
  std::string wait = "auto";   // --wait spin|sleep|auto (see lu/request_wait.hpp)
  int planes_per_message = 1;  // --planes-per-message N
  std::string json_path;
  std::string trace_path;  // --trace FILE.h5
  bool trace_overwrite = false;
  int trace_flush_every = 10;
  bool quiet = false;
  double progress_interval = 5.0;  // seconds between progress lines
};

/// Smallest number of points per direction: the boundary stencils of the
/// fourth-order dissipation (two points in from each side) must not overlap.
inline constexpr int kMinimumGridPoints = 6;

/// Either RunOptions, or a help text to print (and exit 0).
struct ParsedCommandLine {
  std::optional<RunOptions> options;
  std::string help;
};

/// Throws UsageError on any problem.
ParsedCommandLine parse_command_line(int argc, const char* const* argv);

/// "3,5,2" -> {3,5,2}; throws UsageError naming `what` on anything else.
std::vector<int> parse_int_list(const std::string& text, const std::string& what);

}  // namespace npblu
