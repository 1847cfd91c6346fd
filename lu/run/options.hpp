#pragma once
// The lu command line: one way to fill a RunConfig (run_config.hpp), parsed
// identically on every rank.
#include <optional>
#include <string>

#include "lu/run/run_config.hpp"

namespace npblu {

/// Either a validated RunConfig, or a help text to print (and exit 0).
struct ParsedCommandLine {
  std::optional<RunConfig> options;
  std::string help;
};

/// Throws UsageError on any problem (stages 1 and 2 of run_config.hpp).
ParsedCommandLine parse_command_line(int argc, const char* const* argv);

}  // namespace npblu
