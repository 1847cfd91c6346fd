#include "lu/run/options.hpp"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <map>
#include <regex>
#include <sstream>
#include <vector>

#include "lu/isa.hpp"
#include "lu/mpi/messages.hpp"

namespace npblu {

namespace {

// The words that name an option of `app` ("--quiet", "-q"), and help.
std::vector<std::string> option_words(const CLI::App& app) {
  std::vector<std::string> words{"-h", "--help"};
  for (const CLI::Option* o : app.get_options()) {
    for (const std::string& n : o->get_lnames()) words.push_back("--" + n);
    for (const std::string& n : o->get_snames()) words.push_back("-" + n);
  }
  return words;
}

// Whether `word` names one of the options (also as "--balance=x").
bool is_option_word(const std::vector<std::string>& words, std::string_view word) {
  return std::any_of(words.begin(), words.end(), [&](const std::string& w) {
    return word == w || (w.rfind("--", 0) == 0 && word.rfind(w + "=", 0) == 0);
  });
}

// What an option's value is called: the table's name for the table's options
// (--size's "NX NY NZ"), CLI11's type for a program's own.
std::string value_name(const CLI::Option& o) {
  for (const OptionInfo& info : option_table())
    if (o.check_lname(std::string(info.name))) return std::string(info.value_name);
  return o.get_type_name();
}

}  // namespace

void refuse_option_words_as_values(const CLI::App& app, int argc, const char* const* argv) {
  const std::vector<std::string> words = option_words(app);
  for (int i = 1; i < argc; ++i) {
    const std::string_view word = argv[i];
    for (const CLI::Option* o : app.get_options()) {
      const int values = o->get_items_expected_min();  // 0: a flag
      if (values == 0 || word.rfind("-", 0) != 0 || !o->check_name(std::string(word))) continue;
      for (int v = 1; v <= values && i + v < argc; ++v) {  // a value missing at the end: CLI11 says so
        if (is_option_word(words, argv[i + v]))
          throw UsageError(std::string(word) + " needs a value (" + value_name(*o) +
                           "), but the next word is the option " + quote_value(argv[i + v]));
      }
    }
  }
}

TableOptions::TableOptions(CLI::App& app, const std::string& positional_help, Filter wanted)
    : wanted_(std::move(wanted)) {
  for (const OptionInfo& o : option_table()) {
    if (!this->wanted(o.name)) continue;
    std::string names = "--" + std::string(o.name);
    if (!o.short_name.empty()) names += ",-" + std::string(o.short_name);
    const std::string help(o.help);
    if (o.flag) {
      app.add_flag(names, help);
    } else if (o.name == "size") {
      app.add_option(names, sizes_[o.name], help)->expected(3)->type_name("N");  // "N x 3"
    } else {
      app.add_option(names, values_[o.name], help)->type_name(std::string(o.value_name));
    }
  }
  app.add_option("class", class_positional_, positional_help);
}

RunConfig TableOptions::config(const CLI::App& app) const {
  RunConfig config;
  for (const OptionInfo& o : option_table()) {
    if (!wanted(o.name) || app.count("--" + std::string(o.name)) == 0) continue;
    if (o.flag) {
      set_option(config, o.name, "");
    } else if (o.name == "size") {
      const auto& n = sizes_.at(o.name);
      set_option(config, o.name, n[0] + " " + n[1] + " " + n[2]);
    } else {
      set_option(config, o.name, values_.at(o.name));
    }
  }
  if (app.count("class") > 0) {
    if (app.count("--class") > 0 && values_.at("class") != class_positional_) {
      throw UsageError("class given twice: " + quote_value(values_.at("class")) + " and " +
                       quote_value(class_positional_));
    }
    set_option(config, "class", class_positional_);
  }
  return config;
}

namespace {

// "y x" -> "x y" as in argv: each word at its first place on the command line.
std::string in_command_line_order(const std::string& words, int argc, const char* const* argv) {
  std::vector<std::string> list;
  std::istringstream in(words);
  for (std::string w; in >> w;) list.push_back(w);
  const auto place = [&](const std::string& w) {
    for (int i = 1; i < argc; ++i)
      if (w == argv[i]) return i;
    return argc;
  };
  std::stable_sort(list.begin(), list.end(),
                   [&](const std::string& a, const std::string& b) { return place(a) < place(b); });
  std::string out;
  for (const std::string& w : list) out += (out.empty() ? "" : " ") + w;
  return out;
}

}  // namespace

std::string command_line_error(std::string_view cli11_message, int argc, const char* const* argv) {
  const std::string message = one_line_message(cli11_message);
  static const std::regex at_most(R"(^(-[-\w]+): At Most (\d+) required but received (\d+)$)");
  static const std::regex too_few(R"(^(-[-\w]+): At least (\d+) required but received (\d+)$)");
  static const std::regex missing(R"(^(-[-\w]+): (\d+) required (\S+) missing$)");
  static const std::regex unexpected(R"(^The following arguments? (?:was|were) not expected: (.*)$)");
  std::smatch m;
  // (--size's values and the words after them are one list to CLI11: "--size 12 12 12 S" is 4 of 3.)
  if (std::regex_match(message, m, at_most) && m.str(2) == "1")
    return m.str(1) + " given more than once: give it once";
  if (std::regex_match(message, m, at_most))
    return m.str(1) + " takes " + m.str(2) + " values, got " + m.str(3) +
           " (give it once; a class name goes before it, not after)";
  if (std::regex_match(message, m, too_few))
    return m.str(1) + " needs " + m.str(2) + " values, got " + m.str(3);
  // (CLI11 counts --size's three values as one "required" item.)
  if (std::regex_match(message, m, missing) && m.str(1) == "--size")
    return "--size needs 3 values (NX NY NZ)";
  if (std::regex_match(message, m, missing)) return m.str(1) + " needs a value (" + m.str(3) + ")";
  if (std::regex_match(message, m, unexpected))
    return "unknown option or extra argument: " + in_command_line_order(m.str(1), argc, argv) +
           " (--help lists the options)";
  return message;
}

std::string version_text(std::string_view program) {
  const std::string version = std::string(program) + " (npblu) " + NPBLU_VERSION + "\n";
  if (!isa_error().empty()) return version + "kernels: none, runs are refused: " + isa_error() + "\n";
  std::string levels;
  for (const IsaLevel level : isa_levels_supported())
    levels += std::string(levels.empty() ? "" : ", ") + isa_name(level);
  return version + "kernels: " + isa_description(active_isa()) + "; this CPU runs " + levels +
         " (NPBLU_ISA chooses)\n";
}

ParsedCommandLine parse_command_line(int argc, const char* const* argv) {
  CLI::App app{"NPB LU (SSOR solver for the 3-D compressible Navier-Stokes equations) on columnwise stripes"};
  app.name("lu");
  app.set_version_flag(
      "--version", [] { return version_text("lu"); }, "Print the version and the kernels' level, and exit");
  const TableOptions options(app, "Problem class, positionally (lu A)");
  refuse_option_words_as_values(app, argc, argv);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    return {std::nullopt, app.help()};
  } catch (const CLI::CallForVersion& e) {
    return {std::nullopt, e.what()};
  } catch (const CLI::ParseError& e) {
    throw UsageError(command_line_error(e.what(), argc, argv));
  }
  RunConfig config = options.config(app);
  (void)validate(config);
  return {config, {}};
}

}  // namespace npblu
