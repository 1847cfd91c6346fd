#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include "lu/mpi/messages.hpp"
#include "lu/run/run_config.hpp"
#include "lu/run/run_files.hpp"

using namespace npblu;

namespace {

std::string error_setting(RunConfig& c, std::string_view name, std::string_view value) {
  try {
    set_option(c, name, value);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}

std::string error_validating(const RunConfig& c) {
  try {
    (void)validate(c);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

RunConfig class_s() {
  RunConfig c;
  set_class(c, 'S');
  return c;
}

std::filesystem::path scratch_dir() {
  auto dir = std::filesystem::temp_directory_path() / ("npblu_run_config_" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  return dir;
}

}  // namespace

TEST(RunConfig, EveryOptionHasHelpAndIsSettable) {
  ASSERT_GE(option_table().size(), 18u);
  for (const OptionInfo& o : option_table()) {
    EXPECT_FALSE(o.help.empty()) << o.name;
    RunConfig c;
    // A value of the wrong kind is refused with the option's name, never as an unknown option.
    const std::string e = error_setting(c, o.name, o.flag ? "maybe" : "");
    EXPECT_TRUE(contains(e, "--" + std::string(o.name))) << o.name << ": " << e;
  }
}

// The C API refuses a run whose ranks set an option differently: each
// option's agreed setting must follow its value (and only its own), and a
// new option needs a sample here.
TEST(RunConfig, EveryOptionsSettingIsAgreedOn) {
  const std::map<std::string_view, std::string_view> sample{
      {"class", "W"},
      {"size", "12 13 14"},
      {"iterations", "7"},
      {"dt", "0.1"},
      {"columns", "3,5"},
      {"weights", "2,1"},
      {"emulate-speeds", "1,0.5"},
      {"calibration-iterations", "3"},
      {"memory-check", "off"},
      {"balance", "diffusive"},
      {"balance-every", "7"},
      {"balance-threshold", "0.25"},
      {"balance-damping", "0.5"},
      {"wait", "sleep"},
      {"planes-per-message", "3"},
      {"json", "r.json"},
      {"trace", "t.h5"},
      {"trace-overwrite", ""},
      {"trace-flush", "3"},
      {"checkpoint", "c.h5"},
      {"checkpoint-every", "3"},
      {"checkpoint-overwrite", ""},
      {"restart", "c.h5"},
      {"quiet", ""},
      {"progress-interval", "2"},
  };
  const std::vector<OptionSetting> defaults = option_settings(RunConfig{});
  ASSERT_EQ(defaults.size(), option_table().size());
  for (const OptionInfo& o : option_table()) {
    ASSERT_TRUE(sample.count(o.name)) << "no sample value for --" << o.name;
    RunConfig c;
    set_option(c, o.name, sample.at(o.name));
    const std::vector<OptionSetting> settings = option_settings(c);
    for (std::size_t i = 0; i < settings.size(); ++i) {
      EXPECT_EQ(settings[i].name, option_table()[i].name);
      EXPECT_EQ(settings[i].text != defaults[i].text, settings[i].name == o.name)
          << "--" << o.name << " " << sample.at(o.name) << " changes the setting of --" << settings[i].name
          << " to '" << settings[i].text << "'";
    }
  }
  // Files are rank 0's: which file each rank names need not agree, whether one is given must.
  RunConfig a, b;
  set_option(a, "json", "rank0.json"), set_option(b, "json", "other.json");
  EXPECT_EQ(option_settings(a), option_settings(b));
}

TEST(RunConfig, UnknownNameRefusedAtTheCallAndConfigUnchanged) {
  RunConfig c = class_s();
  set_option(c, "iterations", "7");
  EXPECT_TRUE(contains(error_setting(c, "iteration", "3"), "unknown option 'iteration'"));
  EXPECT_TRUE(contains(error_setting(c, "iterations", "3x"), "--iterations '3x' is not an integer"));
  EXPECT_EQ(c.problem.iterations, 7);
  EXPECT_EQ(c.given.count("iteration"), 0u);
}

TEST(RunConfig, FlagSpellings) {
  RunConfig c;
  for (const char* yes : {"", "1", "true", "yes", "on", "YES", "True"}) {
    c.output.quiet = false;
    set_option(c, "quiet", yes);
    EXPECT_TRUE(c.output.quiet) << yes;
  }
  for (const char* no : {"0", "false", "no", "off"}) {
    c.output.quiet = true;
    set_option(c, "quiet", no);
    EXPECT_FALSE(c.output.quiet) << no;
  }
  EXPECT_TRUE(contains(error_setting(c, "quiet", "S"), "--quiet 'S' is not a flag value"));
  EXPECT_FALSE(c.problem.problem_class);  // never mistaken for a class
}

TEST(RunConfig, DtKeptExactly) {
  for (const double dt : {2.5e-7, 1.23456789e-3, 0.1, 5e-300}) {
    RunConfig c;
    set_size(c, {12, 12, 12});
    set_iterations(c, 3);
    set_dt(c, dt);
    EXPECT_EQ(std::memcmp(&*c.problem.dt, &dt, sizeof dt), 0);
    EXPECT_EQ(resolve_problem(c.problem).dt, dt);
  }
  RunConfig c;
  set_option(c, "dt", "1.23456789e-3");
  EXPECT_EQ(*c.problem.dt, 1.23456789e-3);
  EXPECT_THROW(set_dt(c, 0.0), UsageError);
  EXPECT_THROW(set_dt(c, std::nan("")), UsageError);
  EXPECT_THROW(set_dt(c, INFINITY), UsageError);
}

TEST(RunConfig, ClassLetters) {
  RunConfig c;
  set_class(c, 'w');
  EXPECT_EQ(resolve_problem(c.problem).problem_class, 'W');
  try {
    set_class(c, '\0');
    FAIL();
  } catch (const UsageError& e) {
    EXPECT_TRUE(contains(e.what(), "unknown class (character code 0)")) << e.what();
  }
  EXPECT_THROW(set_class(c, 'U'), UsageError);  // U is what a custom size reports, not a class to ask for
}

TEST(RunConfig, EmulationSpeedFloorAndSyntax) {
  RunConfig c;
  set_option(c, "emulate-speeds", "1,0.01");
  EXPECT_EQ(c.emulation.speed(1, 1), 0.01);
  EXPECT_TRUE(contains(error_setting(c, "emulate-speeds", "1,0.0099"), "outside [0.01, 1]"));
  EXPECT_TRUE(contains(error_setting(c, "emulate-speeds", "1e-300,1"), "outside [0.01, 1]"));
  EXPECT_TRUE(contains(error_setting(c, "emulate-speeds", "1,1;"), "ends with ';'"));
  EXPECT_TRUE(contains(error_setting(c, "emulate-speeds", "1,1;@5:1"), "gives 1 speed, the first 2"));
  EXPECT_TRUE(contains(error_setting(c, "emulate-speeds", ""), "--emulate-speeds"));
  EXPECT_EQ(c.emulation.spec(), "1,0.01");  // unchanged by the refused ones
}

TEST(RunConfig, EmptyValuesAreErrors) {
  for (const char* option : {"columns", "weights", "emulate-speeds", "json", "trace", "balance", "iterations",
                             "dt", "size", "class", "balance-every", "trace-flush"}) {
    RunConfig c;
    EXPECT_TRUE(contains(error_setting(c, option, ""), "--" + std::string(option))) << option;
  }
}

TEST(RunConfig, WeightsNanAndInfGetAPreciseMessage) {
  RunConfig c;
  EXPECT_TRUE(contains(error_setting(c, "weights", "nan"), "weight 'nan' must be a positive finite number"));
  EXPECT_TRUE(
      contains(error_setting(c, "weights", "inf,1"), "weight 'inf' must be a positive finite number"));
  EXPECT_TRUE(contains(error_setting(c, "weights", "-inf,1"), "must be a positive finite number"));
}

TEST(RunConfig, NumbersBeyondRangeAreNamedSo) {
  // Not "is not a number": the value is one, too large (or too small) to hold.
  RunConfig c;
  EXPECT_TRUE(
      contains(error_setting(c, "weights", "1,1e400"), "weight '1e400' must be a positive finite number"));
  EXPECT_TRUE(
      contains(error_setting(c, "weights", "1e-400,1"), "weight '1e-400' must be a positive finite number"));
  EXPECT_TRUE(contains(error_setting(c, "dt", "-1e999"), "--dt '-1e999' must be a finite number"));
  EXPECT_TRUE(contains(error_setting(c, "iterations", "99999999999"), "lies beyond +/-2147483647"));
}

TEST(RunConfig, OptionsOfAnotherModeRefused) {
  RunConfig c = class_s();
  set_option(c, "balance-every", "3");
  EXPECT_TRUE(contains(error_validating(c), "--balance-every only applies with --balance diffusive"));
  set_option(c, "balance", "diffusive");
  EXPECT_EQ(error_validating(c), "");
  set_option(c, "trace-flush", "4");
  EXPECT_TRUE(contains(error_validating(c), "--trace-flush only applies with --trace FILE"));
  set_option(c, "trace", "t.h5");
  EXPECT_EQ(error_validating(c), "");
  set_option(c, "calibration-iterations", "2");
  EXPECT_TRUE(
      contains(error_validating(c), "--calibration-iterations only applies with --weights calibrate"));
  set_option(c, "weights", "calibrate");
  EXPECT_EQ(error_validating(c), "");
}

TEST(RunConfig, RankCountChecks) {
  RunConfig c = class_s();
  const Problem p = validate(c);
  EXPECT_NO_THROW(validate_for_ranks(c, p, 5));
  EXPECT_THROW(validate_for_ranks(c, p, 6), UsageError);
  set_option(c, "emulate-speeds", "1,0.5");
  EXPECT_NO_THROW(validate_for_ranks(c, p, 2));
  EXPECT_THROW(validate_for_ranks(c, p, 3), UsageError);
  RunConfig w = class_s();
  set_option(w, "columns", "3,5,2");
  EXPECT_NO_THROW(validate_for_ranks(w, p, 3));
  set_option(w, "columns", "3,4,2");
  try {
    validate_for_ranks(w, p, 3);
    FAIL();
  } catch (const UsageError& e) {
    EXPECT_TRUE(contains(e.what(), "--columns")) << e.what();
  }
}

TEST(RunConfig, OutputProbes) {
  // No device node is touched: a FIFO and a directory stand for non-regular files.
  const auto dir = scratch_dir();
  RunConfig c;
  EXPECT_EQ(probe_outputs(c), "");
  const auto fifo = dir / "fifo";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  c.output.json = fifo;
  EXPECT_TRUE(contains(probe_outputs(c), "not a regular file")) << probe_outputs(c);
  c.output.json = dir;
  EXPECT_TRUE(contains(probe_outputs(c), "is a directory"));
  c.output.json = dir / "missing" / "r.json";
  EXPECT_TRUE(contains(probe_outputs(c), "does not exist"));
  // Nothing is created or changed by the probe.
  c.output.json = dir / "r.json";
  EXPECT_EQ(probe_outputs(c), "");
  EXPECT_FALSE(std::filesystem::exists(c.output.json));
  // An existing file is replaced only by a report of its own kind: a JSON
  // report of ours, never a text file or an HDF5 file named by mistake.
  std::ofstream(c.output.json) << "old";
  EXPECT_TRUE(contains(probe_outputs(c), "--json '" + c.output.json.string() +
                                             "': exists and is not a JSON report: not replaced"))
      << probe_outputs(c);
  std::ofstream(c.output.json) << R"({"not": "a report"})";
  EXPECT_TRUE(contains(probe_outputs(c), "is not a JSON report")) << probe_outputs(c);
  const std::string report = R"({"program": "lu", "program_version": "0.1.0", "class": "S"})";
  std::ofstream(c.output.json) << report;
  EXPECT_EQ(probe_outputs(c), "");
  EXPECT_EQ(std::filesystem::file_size(c.output.json), report.size());
  // Two outputs, or an output and an input, on one file.
  c.output.trace = dir / "." / "r.json";
  EXPECT_TRUE(contains(probe_outputs(c), "are the same file")) << probe_outputs(c);
  c.output.trace.clear();
  c.checkpoint.restart = c.output.json;
  EXPECT_TRUE(contains(probe_outputs(c), "--json")) << probe_outputs(c);
  c.output.json.clear();
  c.checkpoint.path = c.checkpoint.restart;  // continue a checkpoint and replace it: allowed (checkpoints)
  EXPECT_TRUE(contains(probe_outputs(c), "exists and is not an npblu checkpoint: not replaced"))
      << probe_outputs(c);  // but a report is no checkpoint: someone's file, never replaced
  EXPECT_EQ(std::filesystem::file_size(c.checkpoint.path), report.size());
  // A name whose aside name would be too long.
  c = RunConfig{};
  c.output.json = dir / std::string(250, 'j');
  EXPECT_TRUE(contains(probe_outputs(c), "give a shorter name")) << probe_outputs(c);
  std::filesystem::remove_all(dir);
}

TEST(RunConfig, TracePathAdvice) {
  const auto dir = scratch_dir();
  const std::string on_dir = check_trace_path(dir, false);
  EXPECT_TRUE(contains(on_dir, "is a directory; give a file name")) << on_dir;
  EXPECT_FALSE(contains(on_dir, "--trace-overwrite"));
  EXPECT_TRUE(contains(check_trace_path(dir, true), "is a directory"));
  ASSERT_EQ(mkfifo((dir / "fifo").c_str(), 0600), 0);
  EXPECT_TRUE(contains(check_trace_path(dir / "fifo", true), "not a regular file"));
  std::ofstream(dir / "t.h5") << "x";
  EXPECT_TRUE(contains(check_trace_path(dir / "t.h5", false), "use --trace-overwrite"));
  // --trace-overwrite replaces a trace (or an empty file), never another file.
  EXPECT_TRUE(contains(check_trace_path(dir / "t.h5", true), "exists and is not a partition trace"));
  std::ofstream(dir / "empty.h5").close();
  EXPECT_EQ(check_trace_path(dir / "empty.h5", true), "");
  EXPECT_EQ(check_trace_path(dir / "new.h5", false), "");
  std::filesystem::remove_all(dir);
}

TEST(Messages, EchoedValuesCapped) {
  const std::string huge(100000, 'x');
  const std::string q = quote_value(huge);
  EXPECT_LT(q.size(), kEchoedValueLength + 30);
  EXPECT_TRUE(contains(q, "...' (100000 characters)"));
  EXPECT_EQ(quote_value("abc"), "'abc'");
  EXPECT_EQ(quote_value(std::string("a\nb", 3)), "'a\\x0ab'");
  const std::string line = one_line_message("--weights: '" + huge + "' is not a number\nsecond line");
  EXPECT_LT(line.size(), kEchoedValueLength + 80);
  EXPECT_TRUE(contains(line, "is not a number second line"));
  EXPECT_LE(one_line_message(std::string(5000, 'y')).size(), kMessageLength + 30);
  // Prose between an apostrophe and a quote is left alone.
  const std::string prose = "the rank's stripe is narrower than the minimum width of two columns for 'x'";
  EXPECT_EQ(one_line_message(prose), prose);
  // A binary file read as text (an HDF5 file given as a weights file): its bytes as \xNN, never raw;
  // UTF-8 (a folder with accents) as it is, in values and in the message around them.
  EXPECT_EQ(one_line_message("line 1: '\x89HDF' is not a number"), "line 1: '\\x89HDF' is not a number");
  EXPECT_EQ(quote_value("/tmp/d\xc3\xa9/r.json"), "'/tmp/d\xc3\xa9/r.json'");
  EXPECT_EQ(one_line_message("in d\xc3\xa9: \xc3"), "in d\xc3\xa9: \\xc3");  // a sequence cut short
}

// A restart's balancer steps after multiples of --balance-every counted from
// the run's first iteration (balance/balancer_session.hpp: due), so a
// cadence is judged by its next multiple, not by the iterations left.
TEST(RunConfig, BalanceEveryOnARestartJudgedByItsNextMultiple) {
  RunConfig c;
  set_option(c, "balance", "diffusive");
  Problem p;
  p.iterations = 50;
  const auto refusal = [&](const char* every, int done) {
    set_option(c, "balance-every", every);
    try {
      check_effect(c, p, done);
    } catch (const UsageError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_EQ(refusal("4", 46), "");  // a step after iteration 48, with 4 left
  EXPECT_EQ(refusal("3", 46), "");  // after 48
  EXPECT_EQ(
      refusal("5", 46),
      "--balance-every 5 reaches only the last iteration, after which no step is taken (50 iterations, 4 "
      "to run; steps follow multiples of 5 counted from the first iteration: the next after iteration 50): "
      "the balancer would never run");
  EXPECT_EQ(refusal("7", 46), "");  // after 49, more than the iterations left
  EXPECT_EQ(
      refusal("9", 46),
      "--balance-every 9 is beyond the last iteration (50 iterations, 4 to run; steps follow multiples of 9 "
      "counted from the first iteration: the next after iteration 54): the balancer would never run");
  EXPECT_EQ(refusal("49", 0), "");
  EXPECT_EQ(
      refusal("50", 0),
      "--balance-every 50 reaches only the last iteration, after which no step is taken (50 iterations, 50 "
      "to run): the balancer would never run");
  // The default cadence is warned about by the same rule: 5 after 46 never steps, after 44 it does (45).
  c = RunConfig{};
  set_option(c, "balance", "diffusive");
  EXPECT_EQ(effect_warnings(c, p, 46, 2).size(), 1u);
  EXPECT_TRUE(effect_warnings(c, p, 44, 2).empty());
  EXPECT_EQ(effect_warnings(c, p, 0, 1).size(), 1u);  // 1 rank: nothing to balance
}
