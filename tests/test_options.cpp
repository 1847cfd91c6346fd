#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "lu/run/options.hpp"
#include "sim/sim_options.hpp"

using namespace npblu;

namespace {

ParsedCommandLine parse(std::vector<std::string> args) {
  args.insert(args.begin(), "lu");
  std::vector<const char*> argv;
  for (const auto& a : args) argv.push_back(a.c_str());
  return parse_command_line(static_cast<int>(argv.size()), argv.data());
}

Problem problem_of(std::vector<std::string> args) {
  return resolve_problem(parse(std::move(args)).options->problem);
}

std::string error_of(std::vector<std::string> args) {
  try {
    parse(std::move(args));
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(Options, ClassByFlagOrPosition) {
  for (const auto& args : {std::vector<std::string>{"--class", "A"}, {"A"}, {"a"}, {"-c", "A"}}) {
    const auto p = problem_of(args);
    EXPECT_EQ(p.problem_class, 'A');
    EXPECT_EQ(p.grid, (GridSize{64, 64, 64}));
    EXPECT_EQ(p.iterations, 250);
    EXPECT_EQ(p.dt, 2.0);
    EXPECT_TRUE(p.reference.has_value());
  }
}

TEST(Options, CustomSizeIsClassU) {
  const auto p = problem_of({"--size", "10", "14", "8", "--iterations", "5", "--dt", "0.5"});
  EXPECT_EQ(p.problem_class, 'U');
  EXPECT_EQ(p.grid, (GridSize{10, 14, 8}));
  EXPECT_EQ(p.iterations, 5);
  EXPECT_FALSE(p.reference);
}

TEST(Options, OverridingAClassMakesItCustom) {
  const auto p = problem_of({"S", "--iterations", "3"});
  EXPECT_EQ(p.problem_class, 'U');
  EXPECT_EQ(p.grid, (GridSize{12, 12, 12}));
  EXPECT_EQ(p.iterations, 3);
  EXPECT_FALSE(p.reference);
  // Restating the class's own values keeps it verifiable.
  EXPECT_EQ(problem_of({"S", "--iterations", "50"}).problem_class, 'S');
}

TEST(Options, TypedValues) {
  const auto o = *parse({"S", "--columns", "3,5,2", "--json", "out.json", "--quiet", "--balance", "diffusive",
                         "--balance-every", "3", "--emulate-speeds", "1,1;@4:1,0.5", "--trace", "t.h5",
                         "--trace-flush", "2"})
                      .options;
  EXPECT_EQ(o.placement.columns, (std::vector<int>{3, 5, 2}));
  EXPECT_EQ(o.output.json, "out.json");
  EXPECT_EQ(o.output.trace, "t.h5");
  EXPECT_EQ(o.output.trace_flush_every, 2);
  EXPECT_TRUE(o.output.quiet);
  EXPECT_EQ(o.balance.mode, BalanceMode::diffusive);
  EXPECT_EQ(o.balance.diffusive.every, 3);
  ASSERT_TRUE(o.emulation.active());
  EXPECT_EQ(o.emulation.speed(1, 4), 0.5);
  EXPECT_EQ(o.placement.weights.source, WeightSource::equal);
}

TEST(Options, HelpIsNotAnError) {
  const auto p = parse({"--help"});
  EXPECT_FALSE(p.options);
  EXPECT_NE(p.help.find("--columns"), std::string::npos);
  EXPECT_NE(p.help.find("--emulate-speeds"), std::string::npos);
}

TEST(Options, BadInputNamesTheProblem) {
  EXPECT_NE(error_of({"--class", "Q"}).find("unknown class 'Q'"), std::string::npos);
  EXPECT_NE(error_of({"AA"}).find("unknown class 'AA'"), std::string::npos);
  EXPECT_NE(error_of({"--size", "0", "5", "5", "--iterations", "3", "--dt", "1"}).find("--size 0 5 5"),
            std::string::npos);
  EXPECT_NE(error_of({"--size", "12", "12", "12"}).find("needs --iterations"), std::string::npos);
  EXPECT_NE(error_of({"S", "--iterations", "-3"}).find("--iterations must be at least 1"), std::string::npos);
  EXPECT_NE(error_of({"S", "--dt", "-1"}).find("--dt must be a positive"), std::string::npos);
  EXPECT_NE(error_of({"S", "--columns", "3,,2"}).find("not a comma-separated list"), std::string::npos);
  EXPECT_NE(error_of({"S", "--columns", "3,5,"}).find("not a comma-separated list"), std::string::npos);
  EXPECT_NE(error_of({"S", "--columns", "3.5"}).find("not a comma-separated list"), std::string::npos);
  EXPECT_NE(error_of({"S", "--columns", ""}).find("--columns"), std::string::npos);
  EXPECT_NE(error_of({}).find("no problem given"), std::string::npos);
  // CLI11's own refusals in the same words as the others.
  EXPECT_EQ(error_of({"S", "--bogus"}),
            "unknown option or extra argument: --bogus (--help lists the options)");
  EXPECT_EQ(error_of({"S", "--bogus", "3", "z"}),  // as given (CLI11 lists them last first)
            "unknown option or extra argument: --bogus 3 z (--help lists the options)");
  EXPECT_EQ(error_of({"S", "--iterations", "3", "--iterations", "4"}),
            "--iterations given more than once: give it once");
  EXPECT_EQ(error_of({"--size", "12", "12"}), "--size needs 3 values, got 2");
  EXPECT_EQ(error_of({"--size", "12", "12", "12", "S"}),
            "--size takes 3 values, got 4 (give it once; a class name goes before it, not after)");
  EXPECT_EQ(error_of({"--size"}), "--size needs 3 values (NX NY NZ)");
  EXPECT_EQ(error_of({"S", "--json"}), "--json needs a value (FILE)");
  EXPECT_NE(error_of({"--class", "S", "W"}).find("class given twice"), std::string::npos);
  EXPECT_NE(
      error_of({"S", "--balance-every", "2"}).find("--balance-every only applies with --balance diffusive"),
      std::string::npos);
  // Decimal numbers only: strtod read "0x1p-1" as 0.5 where integers refuse "0x10".
  EXPECT_EQ(error_of({"S", "--dt", "0x1p-1"}), "--dt '0x1p-1' is not a number");
  EXPECT_EQ(error_of({"S", "--weights", "0x10"}), "--weights: '0x10' is not a number");
}

namespace {

// lu-sim's parse of `args` (after "lu-sim -P 2"): its UsageError's message, or "".
std::string sim_error_of(std::vector<std::string> args) {
  std::vector<std::string> words{"lu-sim"};
  if (std::find(args.begin(), args.end(), "-P") == args.end()) words.insert(words.end(), {"-P", "2"});
  words.insert(words.end(), args.begin(), args.end());
  std::vector<const char*> argv;
  for (const auto& w : words) argv.push_back(w.c_str());
  try {
    npblu::sim::parse_sim_command_line(static_cast<int>(argv.size()), argv.data());
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

// The options lu-sim shares with lu are lu's: the same value gives the same refusal from both.
TEST(Options, SharedOptionsRefusedAlikeByLuAndLuSim) {
  const std::vector<std::vector<std::string>> bad{{"S", "--balance-every", "0"},
                                                  {"S", "--balance-threshold", "-1"},
                                                  {"S", "--balance-damping", "1.5"},
                                                  {"S", "--iterations", "-3"},
                                                  {"--class", "Q"},
                                                  {"--size", "5", "64", "64"},
                                                  {"S", "--columns", "3,x"},
                                                  {"S", "--json", ""},
                                                  {"S", "--json", "--quiet"},
                                                  {"S", "--balance-every", "two"},
                                                  {"S", "--iterations", "3", "--iterations", "4"},
                                                  {"S", "--no-such-option"},
                                                  {"S", "--emulate-speeds", "@80:1,0.5"},
                                                  {"S", "--emulate-speeds", "@"},
                                                  {"S", "--progress-interval", "-1"}};
  for (const auto& args : bad) {
    const std::string lu = error_of(args), sim = sim_error_of(args);
    EXPECT_FALSE(lu.empty()) << args.back();
    EXPECT_EQ(lu, sim) << "lu and lu-sim differ on " << args.back();
  }
  EXPECT_EQ(sim_error_of({"S", "--balance", "diffusive", "--balance-every", "5"}), "");  // good values taken
  // lu refuses this at the run's start (check_effect, run_config.hpp): lu-sim calls the same check.
  EXPECT_EQ(sim_error_of({"S", "--balance", "diffusive", "--balance-every", "51"}),
            "--balance-every 51 is beyond the last iteration (50 iterations, 50 to run): the balancer would "
            "never run");
  // Stripes given to a mode that places its own: lu's words (lu-sim has no --weights; best is the model's).
  EXPECT_EQ(error_of({"S", "--balance", "off", "--columns", "5,5"}),
            "--balance off uses equal stripes: drop --weights/--columns or use --balance static");
  EXPECT_EQ(sim_error_of({"S", "--balance", "off", "--columns", "5,5"}),
            "--balance off uses equal stripes: drop --columns or use --balance static");
}

// lu-sim's own options are not lu's: lu refuses them, naming them.
TEST(Options, LuSimOnlyOptionsRefusedByLu) {
  for (const char* option : {"--noise", "--cost-rhs", "--migration-iterations", "--ranks"}) {
    const std::string lu = error_of({"S", option, "1"});
    EXPECT_NE(lu.find(option), std::string::npos) << lu;
    EXPECT_EQ(sim_error_of({"S", option, "0.5"}).find("not expected"), std::string::npos) << option;
  }
}

// lu-sim's own options refuse what the model cannot honour, naming the
// option: each case a way a user once got a hang, a silent wrong answer or a
// setting ignored.
TEST(Options, LuSimRefusesWhatTheModelCannotHonour) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases{
      {{"S", "--cores", "0,1", "--core-speeds", "1,1e7"}, "--core-speeds: a speed must be in [0.001, 1000]"},
      {{"S", "--cores", "0,1", "--core-slice", "1e-9"},
       "--core-slice must be a finite number of seconds >= 1e-06"},
      {{"S", "--unpinned", "2:1", "--scheduler-period", "1e-9"}, "--scheduler-period must be"},
      {{"S", "--max-columns", "4,6"}, "--max-columns: rank 0 starts with 5 columns, more than its 4"},
      {{"S", "--balance", "static", "--columns", "3,7", "--max-columns", "8,4"},
       "rank 1 starts with 7 columns"},
      {{"S", "--balance", "static", "--columns", "4,5"}, "--columns: column widths sum to 9"},
      {{"S", "--seed", "-1"}, "--seed '-1': expected a whole number"},
      {{"S", "--seed", "18446744073709551616"}, "--seed '18446744073709551616'"},
      {{"S", "--balance-every", "5"}, "--balance-every only applies with --balance diffusive"},
      {{"S", "--history"}, "--history only applies with --json FILE"},
      {{"S", "--trace-overwrite"}, "--trace-overwrite only applies with --trace FILE"},
      {{"S", "--quiet"}, "--quiet only applies with --json FILE or --trace FILE (it would leave no result)"},
      {{"S", "--core-slice", "0.01"}, "--core-slice only applies with --cores or --unpinned"},
      {{"S", "--noise-correlation", "0.5"}, "--noise-correlation only applies with --noise > 0"},
      {{"S", "--migration-iterations", "2"}, "--migration-iterations only applies with --balance diffusive"},
      {{"S", "--emulate-speeds", ""}, "--emulate-speeds: empty schedule"},
      {{"S", "--emulate-speeds", "--balance", "diffusive"}, "--emulate-speeds needs a value"},
      {{"S", "--cores", "0,1", "--cores", "1"}, "--cores"},
      {{"S", "--cores", "0,,1"}, "--cores '0,,1' is not a comma-separated list of integers"},
      {{"S", "--max-columns", "6,"}, "--max-columns '6,' is not a comma-separated list of integers"},
      {{"S", "--cores", "0,0", "--core-speeds", "1,0.5"}, "--core-speeds gives 2 speeds for 1 core"},
      {{"S", "--balance", "sideways"}, "expected off, static, diffusive or best"},
      {{"S", "--iterations", "2000000000"},
       "2 ranks x 2000000000 iterations x 12 planes: the model needs about 320000 MB"},
      {{"--size", "6", "3002", "71000000", "--iterations", "1", "-P", "1000"}, "give a smaller NZ"},
      {{"--size", "2147483647", "6", "2147483647"}, "grid too large: a column of 2147483647x2147483647"},
      {{"S", "--seed", "5"}, "--seed only applies with --noise > 0 or --unpinned"},
      {{"S", "-P", "-3"}, "--ranks must be at least 1, got -3"},
      {{"S", "-P", "nan"}, "--ranks 'nan' is not an integer"},
      {{"S", "--noise", "0x1p-2"}, "--noise '0x1p-2' is not a number"},
      {{"S", "--unpinned", "1:2147483647"},
       "--unpinned 1:2147483647: 2 nodes of 2147483647 cores each: more"},
      {{"S", "--cores", "0,2147483647"}, "--cores: a core number must be in [0, 2147483646], got 2147483647"},
      {{"S", "--iterations", "2000000000", "--json", "never.json", "--history"},
       "their copy in the JSON (--history)"},
      {{"S", "--cost-rhs", "1e-9x"}, "--cost-rhs '1e-9x' is not a number"},
  };
  for (const auto& [args, expected] : cases) {
    const std::string error = sim_error_of(args);
    EXPECT_NE(error.find(expected), std::string::npos) << "got: " << error;
  }
  EXPECT_EQ(sim_error_of({"S", "--seed", "18446744073709551615", "--noise", "0.05"}), "");
  EXPECT_EQ(sim_error_of({"S", "--seed", "3", "--unpinned", "2:1"}), "");  // the scheduler's moves
  EXPECT_EQ(sim_error_of({"S", "--cores", "0,1", "--core-speeds", "1,0.5", "--core-slice", "0.01"}), "");
  EXPECT_EQ(sim_error_of({"S", "--quiet", "--trace", "quiet.h5"}), "");
}

// A speeds file holds one speed (or @ITERATION) a line, the initial speeds
// first, one speed per rank a segment; a refusal names the file's line, and
// a byte-order mark an editor wrote first is no speed.
TEST(Options, LuSimSpeedsFileNamesTheLine) {
  const auto path = std::filesystem::temp_directory_path() / "npblu_test_speeds.txt";
  std::string at_file = "@";
  at_file += path.string();  // (operator+ on a literal trips GCC 12's -Wrestrict, a false positive)
  const std::vector<std::pair<std::string, std::string>> cases{
      {"1 0.5\n0.3\n", "line 1: one speed"},
      {"@5\n1\n0.5\n", "line 1: the initial speeds must come before '@5'"},
      {"1\n1\n@5\n", "line 3: no speeds between @5 and the end"},
      {"1\n1\n@5\n@6\n1\n1\n", "line 4: no speeds between @5 and '@6'"},
      {"1\n1\n@5\n1\n@3\n1\n", "line 4: the segment starting there gives 1 speed but the run has 2 ranks"},
      {"# two ranks\n1\n1\n1\n", "line 2: the segment starting there gives 3 speeds"},
      {"1\n1\n@5\n1\n0\n", "line 5: speed '0' is outside [0.01, 1]"},
      {"1\n1\n@x5\n1\n1\n", "line 3: '@x5': expected @ITERATION, a whole number after 1"},
      {"1\n0x1p-1\n", "line 2: '0x1p-1' is not a number"},
      {"# none\n\n", "holds no speeds"},
  };
  for (const auto& [text, expected] : cases) {
    std::ofstream(path) << text;
    const std::string error = sim_error_of({"S", "--emulate-speeds", at_file});
    EXPECT_NE(error.find(expected), std::string::npos) << text << " gave: " << error;
  }
  std::ofstream(path) << "\xEF\xBB\xBF"
                      << "1\n0.5 # rank 1\n@5\n0.5\n1\n";
  EXPECT_EQ(sim_error_of({"S", "--emulate-speeds", at_file}), "");
  std::filesystem::remove(path);
  EXPECT_NE(sim_error_of({"S", "--emulate-speeds", at_file}).find(": No such file or directory"),
            std::string::npos);
}

// A speeds file's name may hold ':' (a schedule never starts with '@'); lu and lu-sim read it alike.
TEST(Options, SpeedsFileNameWithColon) {
  const auto path = std::filesystem::temp_directory_path() / "npblu:speeds@80:1.txt";
  std::ofstream(path) << "1\n0.5\n";
  std::string at_file = "@";
  at_file += path.string();
  EXPECT_EQ(sim_error_of({"S", "--emulate-speeds", at_file}), "");
  RunConfig c;
  set_option(c, "emulate-speeds", at_file);
  EXPECT_EQ(c.emulation_file, path);
  std::filesystem::remove(path);
}

// lu-sim reads a problem as lu does: a class with its grid changed is a custom problem.
// lu's --columns runs as given (its default balance is static): lu-sim's too, unless --balance says
// otherwise.
TEST(Options, LuSimColumnsWithoutBalanceAreStatic) {
  const char* argv[] = {"lu-sim", "-P", "3", "S", "--columns", "2,2,6"};
  const auto cl = npblu::sim::parse_sim_command_line(6, argv);
  EXPECT_EQ(cl.config.balance, npblu::sim::BalanceMode::fixed);
  EXPECT_EQ(cl.config.columns, (std::vector<int>{2, 2, 6}));
  EXPECT_EQ(
      sim_error_of({"S", "--columns", "5,5", "--balance", "best"}),
      "--balance best places the best stripes for the true speeds: drop --columns or use --balance static");
}

TEST(Options, LuSimClassWithSizeIsCustom) {
  const char* argv[] = {"lu-sim", "-P", "2", "S", "--size", "14", "14", "14"};
  const auto cl = npblu::sim::parse_sim_command_line(8, argv);
  EXPECT_EQ(cl.config.grid, (GridSize{14, 14, 14}));
  EXPECT_EQ(cl.config.iterations, 50);  // class S's
  EXPECT_EQ(cl.class_name, "");
  const char* same[] = {"lu-sim", "-P", "2", "S", "--size", "12", "12", "12"};
  EXPECT_EQ(npblu::sim::parse_sim_command_line(8, same).class_name, "S");
}
