#include "lu/run/option_values.hpp"

#include <cmath>

#include "balance/parse_number.hpp"

namespace npblu {

void refuse_option(std::string_view option, const std::string& problem) {
  throw UsageError("--" + std::string(option) + " " + problem);
}

int option_at_least(std::string_view option, int value, int minimum) {
  if (value < minimum)
    refuse_option(option, "must be at least " + std::to_string(minimum) + ", got " + std::to_string(value));
  return value;
}

int option_int(std::string_view option, std::string_view value) {
  const auto v = parse_int(std::string(value));
  if (!v) refuse_option(option, quote_value(value) + " is not an integer (or lies beyond +/-2147483647)");
  return *v;
}

double option_number(std::string_view option, std::string_view value) {
  const auto v = parse_double(std::string(value));
  if (!v) refuse_option(option, quote_value(value) + " is not a number");
  if (!std::isfinite(*v)) refuse_option(option, quote_value(value) + " must be a finite number");
  return *v;
}

}  // namespace npblu
