#include "lu/run/options.hpp"

#include <CLI/CLI.hpp>
#include <map>
#include <vector>

#include "lu/mpi/messages.hpp"

namespace npblu {

namespace {

// Whether `word` is one of our options ("--quiet", "--balance=x", "-q"), or help.
bool is_option_word(std::string_view word) {
  if (word == "-h" || word == "--help") return true;
  for (const OptionInfo& o : option_table()) {
    const std::string long_name = "--" + std::string(o.name);
    if (word == long_name || word.rfind(long_name + "=", 0) == 0) return true;
    if (!o.short_name.empty() && word == "-" + std::string(o.short_name)) return true;
  }
  return false;
}

// An option that takes a value followed by another option word: the value
// is missing (CLI11 would take "--quiet" as a file name for --json, or end
// with "argument not expected" for the word after).
void refuse_option_words_as_values(int argc, const char* const* argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view word = argv[i];
    for (const OptionInfo& o : option_table()) {
      const bool names_it = word == "--" + std::string(o.name) ||
                            (!o.short_name.empty() && word == "-" + std::string(o.short_name));
      if (!names_it || o.flag) continue;
      const int values = o.name == "size" ? 3 : 1;
      for (int v = 1; v <= values; ++v) {
        if (i + v >= argc) break;  // a missing value at the end: CLI11 says so
        if (is_option_word(argv[i + v]))
          throw UsageError("--" + std::string(o.name) + " needs a value (" + std::string(o.value_name) +
                           "), but the next word is the option " + quote_value(argv[i + v]));
      }
    }
  }
}

}  // namespace

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

ParsedCommandLine parse_command_line(int argc, const char* const* argv) {
  CLI::App app{"NPB LU (SSOR solver for the 3-D compressible Navier-Stokes equations) on columnwise stripes"};
  app.name("lu");
  const TableOptions options(app, "Problem class, positionally (lu A)");
  refuse_option_words_as_values(argc, argv);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    return {std::nullopt, app.help()};
  } catch (const CLI::ParseError& e) {
    throw UsageError(one_line_message(e.what()));
  }
  RunConfig config = options.config(app);
  (void)validate(config);
  return {config, {}};
}

}  // namespace npblu
