#pragma once
// Reading one option's value, with the refusal that names the option: the
// option table (option_table.cpp), the checks of run_config.cpp and lu-sim
// read their values through these, so a bad value reads alike everywhere.
#include <stdexcept>
#include <string>
#include <string_view>

#include "lu/mpi/agreement.hpp"  // UsageError
#include "lu/mpi/messages.hpp"   // one_line_message

namespace npblu {

/// Throws UsageError "--OPTION PROBLEM".
[[noreturn]] void refuse_option(std::string_view option, const std::string& problem);

/// `value` when it is at least `minimum`; otherwise refuse_option.
int option_at_least(std::string_view option, int value, int minimum);

/// An option's number as lu reads it: decimal, no blanks, an int within
/// +/-2147483647 or a finite double; otherwise UsageError naming
/// `--option` and the value. lu-sim reads its numbers through these too.
int option_int(std::string_view option, std::string_view value);
double option_number(std::string_view option, std::string_view value);

/// Runs a parser from balance/ or lu/ (std::invalid_argument) as a UsageError
/// whose message names the option.
template <class F>
auto parsed_for_option(std::string_view option, F&& parse) {
  try {
    return parse();
  } catch (const std::invalid_argument& e) {
    const std::string what = one_line_message(e.what());
    const std::string named = "--" + std::string(option);
    throw UsageError(what.rfind(named, 0) == 0 ? what : named + ": " + what);
  }
}

}  // namespace npblu
