#include <gtest/gtest.h>

#include <chrono>
#include <ctime>
#include <filesystem>
#include <fstream>

#include "balance/node_probes.hpp"
#include "balance/weights.hpp"
#include "lu/io/input_file.hpp"
#include "lu/speed_emulation.hpp"

using namespace npblu;

TEST(WeightSpec, Sources) {
  EXPECT_EQ(WeightSpec::parse("equal").source, WeightSource::equal);
  EXPECT_EQ(WeightSpec::parse("mflops").source, WeightSource::mflops);
  EXPECT_EQ(WeightSpec::parse("bogomips").source, WeightSource::bogomips);
  EXPECT_EQ(WeightSpec::parse("calibrate").source, WeightSource::calibrate);
  const auto list = WeightSpec::parse("2.25,1,1");
  EXPECT_EQ(list.source, WeightSource::list);
  EXPECT_EQ(list.values, (std::vector<double>{2.25, 1.0, 1.0}));
  const auto file = WeightSpec::parse("@w.txt");
  EXPECT_EQ(file.source, WeightSource::list);
  EXPECT_EQ(file.file, "w.txt");
}

TEST(WeightSpec, BadWeightsNameTheProblem) {
  auto message = [](const std::string& spec) {
    try {
      WeightSpec::parse(spec);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_NE(message("1,0").find("must be a positive"), std::string::npos);
  EXPECT_NE(message("1,-2").find("must be a positive"), std::string::npos);
  EXPECT_NE(message("1,nan").find("must be a positive"), std::string::npos);
  EXPECT_NE(message("1,inf").find("must be a positive"), std::string::npos);
  EXPECT_NE(message("1,x").find("is not a number"), std::string::npos);
  EXPECT_NE(message("1,,2").find("is not a number"), std::string::npos);
  EXPECT_NE(message("1,2,").find("empty weight"), std::string::npos);
  EXPECT_NE(message("fastest").find("expected equal, mflops"), std::string::npos);
  EXPECT_NE(message("@").find("missing file name"), std::string::npos);
}

TEST(WeightFile, OnePerLineWithComments) {
  EXPECT_EQ(parse_weight_file("# node powers\n2.25\n\n1  # slow\n1\n", "f"),
            (std::vector<double>{2.25, 1, 1}));
  EXPECT_THROW(parse_weight_file("# nothing\n", "f"), std::invalid_argument);
  EXPECT_THROW(parse_weight_file("1\nfast\n", "f"), std::invalid_argument);
  EXPECT_THROW(parse_weight_file("1\n0\n", "f"), std::invalid_argument);
}

TEST(WeightFile, ListsOnALine) {
  // A list copied from the command line, blanks, CRLF: each weight checked alone, named by its line.
  EXPECT_EQ(parse_weight_file("2.25,1,1\r\n", "f"), (std::vector<double>{2.25, 1, 1}));
  EXPECT_EQ(parse_weight_file("2 1\t0.5\n3, 4 # two\n", "f"), (std::vector<double>{2, 1, 0.5, 3, 4}));
  const auto message = [](const std::string& text) {
    try {
      parse_weight_file(text, "f");
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_EQ(message("1\n1,-2\n"), "weights file 'f' line 2: weight '-2' must be a positive finite number");
  EXPECT_EQ(message("1,,2\n"), "weights file 'f' line 1: empty weight in '1,,2'");
  EXPECT_EQ(message("1,2,\n"), "weights file 'f' line 1: empty weight in '1,2,'");
  EXPECT_EQ(message("1 fast\n"), "weights file 'f' line 1: 'fast' is not a number");
}

// A user's file as the parse sees it: no byte-order mark (an editor's, invisible in a message, made the
// first line "not a number"), and the system's reason when it cannot be read.
TEST(InputFile, ByteOrderMarkDroppedReasonsNamed) {
  const auto path = std::filesystem::temp_directory_path() / "npblu_test_input_file.txt";
  std::ofstream(path) << "\xEF\xBB\xBF"
                      << "2.25\n1\n";
  const std::string text = read_input_file(path.string(), "weights file", 1 << 20);
  EXPECT_EQ(text, "2.25\n1\n");
  EXPECT_EQ(parse_weight_file(text, "f"), (std::vector<double>{2.25, 1}));
  const auto message = [&](const std::string& p, std::size_t max) {
    try {
      (void)read_input_file(p, "weights file", max);
    } catch (const std::runtime_error& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_EQ(message(path.string(), 4), "'" + path.string() + "' is larger than 4 bytes");
  std::filesystem::remove(path);
  EXPECT_EQ(message(path.string(), 1 << 20),
            "cannot read weights file '" + path.string() + "': No such file or directory");
  EXPECT_EQ(message(path.parent_path().string(), 1 << 20),
            "'" + path.parent_path().string() + "' is a directory, not a weights file");
}

TEST(WeightFromTiming, ColumnsPerSecond) {
  EXPECT_DOUBLE_EQ(weight_from_timing(31, 2.0), 15.5);
  EXPECT_THROW(weight_from_timing(31, 0.0), std::invalid_argument);
}

TEST(NodeProbes, BogomipsFromCpuinfo) {
  const std::string x86 =
      "processor\t: 0\nmodel name\t: X\nbogomips\t: 5200.00\n\nprocessor\t: 1\nbogomips\t: 4800.50\n";
  EXPECT_DOUBLE_EQ(*bogomips_for_cpu(x86, 0), 5200.0);
  EXPECT_DOUBLE_EQ(*bogomips_for_cpu(x86, 1), 4800.5);
  EXPECT_FALSE(bogomips_for_cpu(x86, 2));
  const std::string arm = "processor\t: 0\nBogoMIPS\t: 50.00\n";
  EXPECT_DOUBLE_EQ(*bogomips_for_cpu(arm, 0), 50.0);
  EXPECT_FALSE(bogomips_for_cpu("model name : nothing here\n", 0));
}

// The probe's budget bounds the work it does: counted in this thread's CPU time, which a
// loaded machine does not stretch (a wall-clock bound would fail whenever the test is descheduled).
double thread_cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return double(t.tv_sec) + 1e-9 * double(t.tv_nsec);
}

TEST(NodeProbes, MflopsProbeIsPositiveAndBounded) {
  const double t0 = thread_cpu_seconds();
  const double rate = measure_mflops(0.05);
  EXPECT_GT(rate, 10.0);
  EXPECT_LT(thread_cpu_seconds() - t0, 0.5);
}

TEST(SpeedSchedule, ListAndSchedule) {
  const auto flat = SpeedSchedule::parse("1,0.444", 2);
  EXPECT_TRUE(flat.active());
  EXPECT_DOUBLE_EQ(flat.speed(1, 1), 0.444);
  EXPECT_DOUBLE_EQ(flat.speed(0, 250), 1.0);
  const auto steps = SpeedSchedule::parse("1,1;@80:1,0.5;@150:0.25,1", 2);
  EXPECT_DOUBLE_EQ(steps.speed(1, 79), 1.0);
  EXPECT_DOUBLE_EQ(steps.speed(1, 80), 0.5);
  EXPECT_DOUBLE_EQ(steps.speed(0, 149), 1.0);
  EXPECT_DOUBLE_EQ(steps.speed(0, 150), 0.25);
  EXPECT_DOUBLE_EQ(steps.speed(1, 150), 1.0);
  EXPECT_FALSE(SpeedSchedule().active());
  EXPECT_DOUBLE_EQ(SpeedSchedule().speed(3, 10), 1.0);
}

TEST(SpeedSchedule, Rejected) {
  EXPECT_THROW(SpeedSchedule::parse("1,0.5", 3), std::invalid_argument);       // count
  EXPECT_THROW(SpeedSchedule::parse("1,1.5", 2), std::invalid_argument);       // faster than real
  EXPECT_THROW(SpeedSchedule::parse("1,0", 2), std::invalid_argument);         // zero
  EXPECT_THROW(SpeedSchedule::parse("1,x", 2), std::invalid_argument);         // text
  EXPECT_THROW(SpeedSchedule::parse("@5:1,1", 2), std::invalid_argument);      // no initial
  EXPECT_THROW(SpeedSchedule::parse("1,1;80:1,1", 2), std::invalid_argument);  // missing @
  EXPECT_THROW(SpeedSchedule::parse("1,1;@0:1,1", 2), std::invalid_argument);  // not after the start
  EXPECT_THROW(SpeedSchedule::parse("1,1;@9:1,1;@9:1,1", 2), std::invalid_argument);
  EXPECT_THROW(SpeedSchedule::parse("", 2), std::invalid_argument);
  const auto message = [](const std::string& spec) {
    try {
      (void)SpeedSchedule::parse(spec, 2);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_EQ(message("1,1;@1e2:1,1"),
            "--emulate-speeds '1,1;@1e2:1,1': '@1e2': expected a whole iteration number (e.g. @80)");
  EXPECT_EQ(message("1,1;@1:1,1"),
            "--emulate-speeds '1,1;@1:1,1': '@1' must start after the first segment, which applies from "
            "iteration 1: give @2 or later");
  EXPECT_EQ(
      message("1,1;@9:1,1;@9:1,1"),
      "--emulate-speeds '1,1;@9:1,1;@9:1,1': '@9' must start after the previous segment's @9: give @10 or "
      "later");
}

TEST(SpeedSchedule, SpinTakesTheTimeAsked) {
  const auto t0 = std::chrono::steady_clock::now();
  spin_for(0.02);
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_GE(elapsed, 0.02);
}
