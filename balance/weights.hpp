#pragma once
// Where per-rank weights come from (--weights SPEC). Parsing only: measuring
// a weight (probes, calibration) happens elsewhere, and turning weights into
// stripes is Partition::from_weights.
#include <string>
#include <vector>

namespace npblu {

enum class WeightSource { equal, list, mflops, bogomips, calibrate };

struct WeightSpec {
  WeightSource source = WeightSource::equal;
  std::vector<double> values;  // for `list` (from the command line or @FILE)
  std::string file;            // the @FILE it came from, if any

  /// "equal", "mflops", "bogomips", "calibrate", "2.25,1,1" or "@FILE".
  /// A file is not read here (see parse_weight_file). Throws
  /// std::invalid_argument naming the problem and the value, never a
  /// command-line flag (front ends prefix their option's name).
  static WeightSpec parse(const std::string& spec);
  [[nodiscard]] std::string describe() const;
};

/// "2.25,1,1" -> {2.25, 1, 1}; every value finite and > 0. Errors are
/// prefixed with `where` (none when empty).
std::vector<double> parse_weight_list(const std::string& text, const std::string& where);
/// One weight per line; blank lines and '#' comments are ignored.
std::vector<double> parse_weight_file(const std::string& contents, const std::string& path);

/// Weight of a rank measured by running its stripe: columns per compute second.
double weight_from_timing(int columns, double compute_seconds);

}  // namespace npblu
