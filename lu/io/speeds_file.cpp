#include "lu/io/speeds_file.hpp"

#include <algorithm>
#include <exception>
#include <filesystem>
#include <optional>
#include <sstream>

#include "balance/parse_number.hpp"
#include "lu/io/input_file.hpp"
#include "lu/mpi/agreement.hpp"  // UsageError
#include "lu/mpi/messages.hpp"
#include "lu/speed_emulation.hpp"

namespace npblu {

// (Blank lines and '#' comments are skipped.)
std::string read_speed_file(const std::string& path, int ranks) {
  std::string text;
  try {
    text = read_input_file(path, "speeds file");
  } catch (const std::exception& e) {
    throw UsageError("--emulate-speeds: " + std::string(e.what()));
  }
  const std::string file = "--emulate-speeds: speeds file " + quote_value(path);
  std::string spec, segment;
  int count = 0, segment_line = 0, previous = 0;
  // A segment ends (at line `line`, "" at the end): it holds one speed per rank.
  auto close_segment = [&](int line, const std::string& next) {
    if (count == 0)
      throw UsageError(file + ", line " + std::to_string(line) + ": " +
                       (spec.empty() ? "the initial speeds must come before " + quote_value(next)
                                     : "no speeds between @" + std::to_string(previous) + " and " +
                                           (next.empty() ? "the end" : quote_value(next))));
    if (count != ranks)
      throw UsageError(file + ", line " + std::to_string(segment_line) +
                       ": the segment starting there gives " + counted(count, "speed") + " but the run has " +
                       counted(ranks, "rank"));
    spec += segment;
    segment.clear();
    count = 0;
  };
  std::istringstream lines(text);
  std::string line;
  int number = 1;
  for (; std::getline(lines, line); ++number) {
    if (const auto hash = line.find('#'); hash != std::string::npos) line.erase(hash);
    std::istringstream words(line);
    std::string word, more;
    if (!(words >> word)) continue;
    const std::string where = file + ", line " + std::to_string(number) + ": ";
    if (words >> more)
      throw UsageError(where + "one speed (or @ITERATION) a line, got " + quote_value(word + " " + more));
    if (word[0] == '@') {
      const std::optional<int> from = parse_int(word.substr(1));
      close_segment(number, word);
      if (!from || *from <= std::max(previous, 1))
        throw UsageError(where + quote_value(word) + ": expected @ITERATION, a whole number after " +
                         (previous ? "the previous segment's @" + std::to_string(previous) : "1"));
      previous = *from;
      spec += ";" + word + ":";
    } else {
      if (const std::string problem = speed_problem(word); !problem.empty())
        throw UsageError(where + problem);
      if (count++ == 0) segment_line = number;
      segment += (segment.empty() ? "" : ",") + word;
    }
  }
  if (spec.empty() && count == 0) throw UsageError(file + " holds no speeds");
  close_segment(number - 1, "");
  return spec;
}

std::optional<std::string> speeds_file_named(std::string_view spec) {
  if (spec.empty() || spec[0] != '@') return std::nullopt;
  if (spec.size() == 1) throw UsageError("--emulate-speeds '@': missing file name");
  const std::string path(spec.substr(1));
  const std::size_t digits = path.find_first_not_of("0123456789");
  const bool segment = digits > 0 && digits != std::string::npos && path[digits] == ':';
  std::error_code ec;
  if (segment && !std::filesystem::exists(path, ec)) return std::nullopt;
  return path;
}

}  // namespace npblu
