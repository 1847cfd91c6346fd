#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "lu/app/options.hpp"

using namespace npblu;

namespace {

ParsedCommandLine parse(std::vector<std::string> args) {
  args.insert(args.begin(), "lu");
  std::vector<const char*> argv;
  for (const auto& a : args) argv.push_back(a.c_str());
  return parse_command_line(static_cast<int>(argv.size()), argv.data());
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
    const auto o = *parse(args).options;
    EXPECT_EQ(o.problem_class, 'A');
    EXPECT_EQ(o.grid, (GridSize{64, 64, 64}));
    EXPECT_EQ(o.iterations, 250);
    EXPECT_EQ(o.dt, 2.0);
    EXPECT_TRUE(o.reference.has_value());
  }
}

TEST(Options, CustomSizeIsClassU) {
  const auto o = *parse({"--size", "10", "14", "8", "--iterations", "5", "--dt", "0.5"}).options;
  EXPECT_EQ(o.problem_class, 'U');
  EXPECT_EQ(o.grid, (GridSize{10, 14, 8}));
  EXPECT_EQ(o.iterations, 5);
  EXPECT_FALSE(o.reference);
}

TEST(Options, OverridingAClassMakesItCustom) {
  const auto o = *parse({"S", "--iterations", "3"}).options;
  EXPECT_EQ(o.problem_class, 'U');
  EXPECT_EQ(o.grid, (GridSize{12, 12, 12}));
  EXPECT_EQ(o.iterations, 3);
  EXPECT_FALSE(o.reference);
  // Restating the class's own values keeps it verifiable.
  EXPECT_EQ(parse({"S", "--iterations", "50"}).options->problem_class, 'S');
}

TEST(Options, ColumnsJsonQuiet) {
  const auto o = *parse({"S", "--columns", "3,5,2", "--json", "out.json", "--quiet"}).options;
  EXPECT_EQ(o.columns, (std::vector<int>{3, 5, 2}));
  EXPECT_EQ(o.json_path, "out.json");
  EXPECT_TRUE(o.quiet);
}

TEST(Options, HelpIsNotAnError) {
  const auto p = parse({"--help"});
  EXPECT_FALSE(p.options);
  EXPECT_NE(p.help.find("--columns"), std::string::npos);
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
  EXPECT_NE(error_of({}).find("no problem given"), std::string::npos);
  EXPECT_NE(error_of({"S", "--bogus"}), "");
  EXPECT_NE(error_of({"--class", "S", "W"}).find("class given twice"), std::string::npos);
}

TEST(Options, IntList) {
  EXPECT_EQ(parse_int_list("7", "x"), (std::vector<int>{7}));
  EXPECT_EQ(parse_int_list("1,-2,30", "x"), (std::vector<int>{1, -2, 30}));
  EXPECT_THROW(parse_int_list("", "x"), UsageError);
  EXPECT_THROW(parse_int_list("1 ,2", "x"), UsageError);
}
