#pragma once
// Whole-string numbers for the command line's comma lists. std::stod and
// std::stoi accept a numeric prefix ("3x" is 3) and throw on garbage; these
// accept exactly one number (std::stod / std::stoi syntax) or give nothing,
// and each caller words its own error; number_text is the way back, for
// those errors.
#include <cstddef>
#include <cstdlib>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace npblu {

namespace detail {
template <class T, class Convert>
std::optional<T> parse_whole(const std::string& text, Convert convert) {
  if (text.empty()) return std::nullopt;
  try {
    std::size_t used = 0;
    const T value = convert(text, &used);
    if (used == text.size()) return value;
  } catch (const std::exception&) {  // not a number, or out of range
  }
  return std::nullopt;
}
}  // namespace detail

/// A number beyond double's range gives +/-infinity (and one below its
/// smallest, the nearest representable value, 0 or subnormal) rather than
/// nothing, so that callers' range checks name it ("must be finite") instead
/// of calling "1e400" not a number. Decimal only: strtod's hexadecimal
/// floats ("0x10" read as 16) give nothing, as parse_int's "0x10" does.
inline std::optional<double> parse_double(const std::string& text) {
  if (text.find_first_of("xX") != std::string::npos) return std::nullopt;
  return detail::parse_whole<double>(text, [](const std::string& s, std::size_t* used) {
    const char* begin = s.c_str();
    char* end = nullptr;
    const double value = std::strtod(begin, &end);  // std::stod's syntax; ERANGE ignored
    if (end == begin) throw std::invalid_argument("not a number");
    *used = static_cast<std::size_t>(end - begin);
    return value;
  });
}

inline std::optional<int> parse_int(const std::string& text) {
  return detail::parse_whole<int>(text,
                                  [](const std::string& s, std::size_t* used) { return std::stoi(s, used); });
}

/// A double for a message, as a user would write it back (1.5, -1e-09,
/// 1e+300, inf): std::to_string's six fixed decimals show -1e-9 as
/// -0.000000 and 1e300 as 301 digits.
inline std::string number_text(double x) {
  std::ostringstream out;
  out << x;
  return out.str();
}

/// "3,5,2" -> {3,5,2}: every comma-separated item a whole integer, no empty
/// item (so "" and "5," give nothing).
inline std::optional<std::vector<int>> parse_int_list(const std::string& text) {
  std::vector<int> values;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    const std::optional<int> v = parse_int(item);
    if (!v) return std::nullopt;
    values.push_back(*v);
  }
  // getline yields no item for "" or after a trailing comma.
  if (values.empty() || text.back() == ',') return std::nullopt;
  return values;
}

}  // namespace npblu
