#pragma once
// The lu command line: one way to fill a RunConfig (run_config.hpp), parsed
// identically on every rank.
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lu/run/run_config.hpp"

namespace CLI {
class App;
}

namespace npblu {

/// Options of run_config's table on a CLI11 command line: registered with
/// their names and help, then handed to run_config's setters (the same
/// conversion, checks and messages). lu's command line takes them all;
/// lu-sim's the ones it shares with lu (`wanted`).
class TableOptions {
 public:
  using Filter = std::function<bool(std::string_view name)>;
  /// Registers the wanted options (all when `wanted` is empty) and the
  /// class as a positional word (`positional_help`).
  TableOptions(CLI::App& app, const std::string& positional_help, Filter wanted = {});
  /// After app.parse: a RunConfig with every wanted option given set, in the
  /// table's order. Throws UsageError as the setters do.
  [[nodiscard]] RunConfig config(const CLI::App& app) const;

 private:
  [[nodiscard]] bool wanted(std::string_view name) const { return !wanted_ || wanted_(name); }
  Filter wanted_;
  std::map<std::string_view, std::string> values_;
  std::map<std::string_view, std::vector<std::string>> sizes_;  // --size takes three words
  std::string class_positional_;
};

/// Refuses an option that takes a value followed by another option's word
/// where its value should be ("--json --quiet": CLI11 would write a file
/// named "--quiet", or end with "argument not expected" for the word after).
/// Every option of `app` counts, the table's and a program's own.
void refuse_option_words_as_values(const CLI::App& app, int argc, const char* const* argv);

/// CLI11's refusal in the words of the other refusals: an option given twice,
/// or without its values, named as such ("--iterations: At Most 1 required but
/// received 2" reads "--iterations given more than once: give it once").
/// Extra words are named in the order the command line gives them (CLI11 lists
/// them last first) when `argv` is given.
std::string command_line_error(std::string_view cli11_message, int argc = 0,
                               const char* const* argv = nullptr);

/// What `PROGRAM --version` prints: the version and the kernels this CPU runs.
std::string version_text(std::string_view program);

/// Either a validated RunConfig, or a help (or --version) text to print (and exit 0).
struct ParsedCommandLine {
  std::optional<RunConfig> options;
  std::string help;
};

/// Throws UsageError on any problem (stages 1 and 2 of run_config.hpp).
ParsedCommandLine parse_command_line(int argc, const char* const* argv);

}  // namespace npblu
