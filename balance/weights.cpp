#include "balance/weights.hpp"

#include <cmath>
#include <sstream>
#include <stdexcept>

#include "balance/parse_number.hpp"

namespace npblu {

namespace {

double parse_weight(const std::string& item, const std::string& where) {
  const std::optional<double> w = parse_double(item);
  const std::string prefix = where.empty() ? "" : where + ": ";
  if (!w) throw std::invalid_argument(prefix + "'" + item + "' is not a number");
  if (!std::isfinite(*w) || *w <= 0.0) {
    throw std::invalid_argument(prefix + "weight '" + item + "' must be a positive finite number");
  }
  return *w;
}

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return {};
  return s.substr(b, s.find_last_not_of(" \t\r") - b + 1);
}

}  // namespace

std::vector<double> parse_weight_list(const std::string& text, const std::string& where) {
  std::vector<double> weights;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) weights.push_back(parse_weight(item, where));
  if (weights.empty() || text.back() == ',')
    throw std::invalid_argument((where.empty() ? "" : where + ": ") + "empty weight in '" + text + "'");
  return weights;
}

std::vector<double> parse_weight_file(const std::string& contents, const std::string& path) {
  std::vector<double> weights;
  std::stringstream in(contents);
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    line = trim(line.substr(0, line.find('#')));
    if (line.empty()) continue;
    // A line holds one weight or several, separated by commas or blanks: a list copied from the
    // command line (2.25,1,1) or a column of numbers read the same.
    const std::string where = "weights file '" + path + "' line " + std::to_string(number);
    std::stringstream items(line);
    std::string item;
    while (std::getline(items, item, ',')) {
      std::stringstream words(item);
      std::string word;
      if (trim(item).empty()) throw std::invalid_argument(where + ": empty weight in '" + line + "'");
      while (words >> word) weights.push_back(parse_weight(word, where));
    }
    if (line.back() == ',') throw std::invalid_argument(where + ": empty weight in '" + line + "'");
  }
  if (weights.empty()) throw std::invalid_argument("weights file '" + path + "' holds no weights");
  return weights;
}

WeightSpec WeightSpec::parse(const std::string& spec) {
  WeightSpec w;
  if (spec == "equal") return w;
  if (spec == "mflops") {
    w.source = WeightSource::mflops;
  } else if (spec == "bogomips") {
    w.source = WeightSource::bogomips;
  } else if (spec == "calibrate") {
    w.source = WeightSource::calibrate;
  } else if (!spec.empty() && spec[0] == '@') {
    w.source = WeightSource::list;
    w.file = spec.substr(1);
    if (w.file.empty()) throw std::invalid_argument("missing file name after '@'");
  } else if (!spec.empty() &&
             (std::isdigit(static_cast<unsigned char>(spec[0])) || spec[0] == '.' || spec[0] == '-' ||
              spec[0] == '+' ||
              parse_double(spec.substr(0, spec.find(','))))) {  // nan, inf: a list, refused below
    w.source = WeightSource::list;
    w.values = parse_weight_list(spec, "");
  } else {
    throw std::invalid_argument(
        "unknown weight source '" + spec +
        "': expected equal, mflops, bogomips, calibrate, a list like 2.25,1,1 or @FILE");
  }
  return w;
}

std::string WeightSpec::describe() const {
  switch (source) {
    case WeightSource::equal:
      return "equal";
    case WeightSource::list:
      return file.empty() ? "list" : "file " + file;
    case WeightSource::mflops:
      return "mflops probe";
    case WeightSource::bogomips:
      return "bogomips";
    case WeightSource::calibrate:
      return "calibration run";
  }
  return "?";
}

double weight_from_timing(int columns, double compute_seconds) {
  if (!(compute_seconds > 0.0) || !std::isfinite(compute_seconds)) {
    throw std::invalid_argument("calibration measured no compute time");
  }
  return columns / compute_seconds;
}

}  // namespace npblu
