#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <limits>
#include <set>
#include <string_view>
#include <vector>

#include "lu/io/decision_record.hpp"
#include "lu/io/report.hpp"

using namespace npblu;

namespace {

RunReport sample_report() {
  const auto s = *find_problem_class('S');
  RunReport r;
  r.run.problem_class = "S";
  r.run.grid = {12, 12, 12};
  r.run.iterations = r.iterations_run = 50;
  r.run.dt = 0.5;
  r.run.ranks = 3;
  r.columns = {3, 5, 2};
  r.seconds = 0.125;
  r.mops = lu_mops(12, 12, 12, 50, 0.125);
  r.computed = {s.reference.xcr, s.reference.xce, s.reference.xci};
  r.computed.xcr[0] = std::nextafter(r.computed.xcr[0], 1.0);  // one ulp: must survive the JSON
  r.verification = verify(r.computed, s.reference);
  r.field_checksum = "0123456789abcdef";
  r.phases[static_cast<int>(Phase::rhs)] = {0.01, 0.03, 0.02};
  return r;
}

}  // namespace

TEST(Report, JsonHasTheDocumentedFieldsAtFullPrecision) {
  const RunReport r = sample_report();
  const auto j = to_json(r);
  EXPECT_EQ(j.at("class"), "S");
  EXPECT_EQ(j.at("verified"), true);
  EXPECT_EQ(j.at("ranks"), 3);
  EXPECT_EQ(j.at("columns"), (std::vector<int>{3, 5, 2}));
  EXPECT_EQ(j.at("field_checksum"), "0123456789abcdef");
  EXPECT_DOUBLE_EQ(j.at("time_s").get<double>(), 0.125);
  EXPECT_DOUBLE_EQ(j.at("mops").get<double>(), r.mops);
  // Round trip through text keeps every bit.
  const auto back = nlohmann::json::parse(j.dump());
  for (int m = 0; m < 5; ++m) {
    EXPECT_EQ(back.at("xcr")[m].get<double>(), r.computed.xcr[m]);
    EXPECT_EQ(back.at("xce")[m].get<double>(), r.computed.xce[m]);
  }
  EXPECT_EQ(back.at("xci").get<double>(), r.computed.xci);
  EXPECT_DOUBLE_EQ(back.at("timers").at("rhs").at("max").get<double>(), 0.03);
  EXPECT_EQ(back.at("verification").at("checks").size(), 11u);
}

TEST(Report, JsonHasEveryFieldOfTheRunIdentity) {
  RunReport r = sample_report();
  r.run.emulated_speeds = "1,0.5,1;@20:1,1,1";
  const auto j = to_json(r);
  for (const RunIdentityField& f : run_identity_fields()) EXPECT_TRUE(j.contains(f.name)) << f.name;
  // The same object in lu's and lu-sim's reports (both from the table), null without emulation.
  EXPECT_EQ(j.at("emulated_speeds").at("spec"), "1,0.5,1;@20:1,1,1");
  EXPECT_EQ(j.at("emulated_speeds").at("schedule")[1].at("from_iteration"), 20);
  EXPECT_TRUE(to_json(sample_report()).at("emulated_speeds").is_null());
}

// The decision log's entries carry every row of the table, integers as
// integers, each value the record's own at full precision (the table and
// the generator are what both reports write).
TEST(Report, JsonDecisionLogHasEveryFieldOfTheTable) {
  RunReport r = sample_report();
  DecisionRecord d;
  d.iteration = 35;
  d.moved_columns = 4;
  d.predicted_before = 1.25;
  d.predicted_after = std::nextafter(1.0, 2.0);
  d.predicted_quality_before = 1.5;
  d.predicted_quality_after = 1.0;
  d.measured_before = 1.2;
  d.gain = 1e-3;
  d.horizon = 100;
  d.price = 2e-3;
  d.price_paid = 3e-3;
  r.decisions = {d};
  const auto back = nlohmann::json::parse(to_json(r).dump());
  const auto& entry = back.at("decisions").at(0);
  EXPECT_EQ(entry.size(), decision_record_fields().size());
  for (const DecisionFieldInfo& f : decision_record_fields()) {
    ASSERT_TRUE(entry.contains(f.json_name)) << f.json_name;
    EXPECT_EQ(entry.at(f.json_name).is_number_integer(), f.type == RecordType::integer) << f.json_name;
    EXPECT_EQ(entry.at(f.json_name).get<double>(), f.read(d)) << f.json_name;
  }
  EXPECT_EQ(entry.at("iteration"), 35);
  EXPECT_EQ(entry.at("predicted_imbalance_after").get<double>(), std::nextafter(1.0, 2.0));
  EXPECT_EQ(entry.at("predicted_bottleneck_ratio_before").get<double>(), 1.5);
  EXPECT_TRUE(to_json(sample_report()).at("decisions").empty());  // no step, no entry
}

TEST(Report, FailedVerificationIsUnsuccessful) {
  RunReport r = sample_report();
  r.computed.xci = std::nan("");
  r.verification = verify(r.computed, find_problem_class('S')->reference);
  EXPECT_FALSE(r.successful());
  EXPECT_EQ(to_json(r).at("verified"), false);
  const std::string text = format_report(r);
  EXPECT_NE(text.find("UNSUCCESSFUL"), std::string::npos);
  EXPECT_NE(text.find("FAILURE"), std::string::npos);
}

// A custom run that diverged says why its verdict is UNSUCCESSFUL though nothing was verified; a
// finished one does not.
TEST(Report, DivergedCustomRunSaysItDiverged) {
  RunReport r = sample_report();
  r.run.problem_class = std::string(1, 'U');
  r.verification = {};
  const std::string said = "the run diverged (its time step, --dt, may be too large for this grid)";
  EXPECT_EQ(format_report(r).find(said), std::string::npos);
  r.computed.xcr[2] = std::numeric_limits<double>::infinity();
  EXPECT_FALSE(r.successful());
  const std::string text = format_report(r);
  EXPECT_NE(text.find("UNSUCCESSFUL"), std::string::npos) << text;
  EXPECT_NE(text.find(said), std::string::npos) << text;
}

TEST(Report, UnfinishedRunIsUnsuccessful) {
  RunReport r = sample_report();
  r.iterations_run = 20;
  EXPECT_FALSE(r.successful());
}

TEST(Report, TextLooksLikeNpb) {
  const std::string text = format_report(sample_report());
  for (const char* s : {"LU Benchmark Completed.", "Class", "Mop/s total", "Mop/s/process", "SUCCESSFUL",
                        "Time in seconds", "3,5,2", "pipeline_wait", "halo_exchange"}) {
    EXPECT_NE(text.find(s), std::string::npos) << s;
  }
}

TEST(Report, CustomRunIsNotCalledVerified) {
  RunReport r = sample_report();
  r.run.problem_class = std::string(1, 'U');  // (not = "U": a GCC 12 -Wrestrict false positive)
  r.verification = {};
  EXPECT_TRUE(r.successful());
  EXPECT_EQ(to_json(r).at("verified"), false);
  EXPECT_NE(format_report(r).find("NOT PERFORMED"), std::string::npos);
}

TEST(Report, EveryPhaseHasItsOwnName) {
  std::set<std::string_view> names;
  for (int p = 0; p < PhaseTimers::kCount; ++p) {
    const auto name = PhaseTimers::name(static_cast<Phase>(p));
    EXPECT_FALSE(name.empty()) << p;
    names.insert(name);
  }
  EXPECT_EQ(names.size(), std::size_t(PhaseTimers::kCount));
}

TEST(Report, SaysHowEachRankWaited) {
  RunReport r = sample_report();
  r.run.waits = {"auto/own-cores", "sleep", "auto/own-cores"};
  const int iterations = 200;
  r.history = RunHistory(3, iterations);
  for (int it = 0; it < iterations; ++it) {
    for (int rank = 0; rank < 3; ++rank) {
      IterationRecord rec;
      rec.owned = {1 + 3 * rank, 4 + 3 * rank};
      // rank 0 never slept, rank 1 always, rank 2 in 199 of 200 iterations
      rec.slept = rank == 1 || (rank == 2 && it > 0);
      r.history.set(it, rank, rec);
    }
  }
  const std::string text = format_report(r);
  EXPECT_NE(text.find("waited by"), std::string::npos) << text;
  // 99.5% is "sleep 99%", not "sleep 100%": a mixed record never reads as a pure one.
  for (const char* row :
       {"auto/own-cores on 2 ranks, sleep on 1 rank", "  spin\n", "  sleep\n", "  sleep 99%\n"})
    EXPECT_NE(text.find(row), std::string::npos) << row << "\n" << text;
  const auto j = to_json(r);
  EXPECT_EQ(j.at("waits"), (std::vector<std::string>{"auto/own-cores", "sleep", "auto/own-cores"}));
  EXPECT_EQ(j.at("rank_loads")[2].at("slept_iterations"), 199);
  EXPECT_EQ(j.at("history").at("slept")[0], (std::vector<int>{0, 1, 0}));
}

TEST(Report, NamesTheRanksReadAtTheirPoolsShare) {
  RunReport r = sample_report();
  EXPECT_EQ(format_report(r).find("time-share cores"), std::string::npos);
  EXPECT_EQ(to_json(r).at("share_pools"), std::vector<int>{});
  r.run.ranks = 5;
  r.columns = {2, 2, 2, 2, 2};
  r.share_pools = {-1, 1, 1, 3, 3};
  const std::string text = format_report(r);
  EXPECT_NE(text.find(" Ranks 1,2 and ranks 3,4 time-share cores as the scheduler places them: the balancer "
                      "read each group at its mean core share\n"),
            std::string::npos)
      << text;
  EXPECT_EQ(to_json(r).at("share_pools"), (std::vector<int>{-1, 1, 1, 3, 3}));
}

namespace {

// 2 ranks on 10 columns: rank 0 takes 1 ms a column, rank 1 `slow` ms, on `widths`.
RunHistory two_rank_history(int iterations, std::array<int, 2> widths, double slow) {
  RunHistory h(2, iterations);
  for (int it = 0; it < iterations; ++it) {
    for (int rank = 0; rank < 2; ++rank) {
      IterationRecord rec;
      rec.owned = rank == 0 ? ColumnRange{1, 1 + widths[0]} : ColumnRange{1 + widths[0], 11};
      rec.compute = 1e-3 * rec.owned.width() * (rank == 0 ? 1.0 : slow);
      h.set(it, rank, rec);
    }
  }
  return h;
}

}  // namespace

// Balance quality against the best whole-column partition at the measured per-column costs: rank 1
// at a third of rank 0's speed is best on 8,2 (8 ms, rank 0's 8 columns; 7,3 takes 9 ms, rank 1's 3);
// equal stripes 5,5 take 15 ms, 15/8 of the best.
TEST(Report, BottleneckRatioIsAgainstTheBestWholeColumnPartition) {
  EXPECT_DOUBLE_EQ(two_rank_history(4, {5, 5}, 3.0).window_bottleneck_ratio(0, 4), 15.0 / 8.0);
  EXPECT_DOUBLE_EQ(two_rank_history(4, {8, 2}, 3.0).window_bottleneck_ratio(0, 4), 1.0);
  EXPECT_DOUBLE_EQ(two_rank_history(4, {7, 3}, 3.0).window_bottleneck_ratio(1, 3), 9.0 / 8.0);
  // A memory limit of 7 columns on rank 0 makes 7,3 the best partition.
  const std::vector<int> limits{7, 10};
  EXPECT_DOUBLE_EQ(two_rank_history(4, {7, 3}, 3.0).window_bottleneck_ratio(0, 4, limits), 1.0);
  const std::vector<double> each = two_rank_history(3, {5, 5}, 3.0).bottleneck_ratio_by_iteration();
  EXPECT_EQ(each, (std::vector<double>(3, 15.0 / 8.0)));
  // No compute measured: no ratio.
  EXPECT_TRUE(std::isnan(two_rank_history(2, {5, 5}, 0.0).window_bottleneck_ratio(0, 2)));
  EXPECT_TRUE(std::isnan(RunHistory(2, 0).window_bottleneck_ratio(0, 1)));
}

TEST(Report, SaysHowFarTheStripesWereFromTheBest) {
  RunReport r = sample_report();
  r.run.ranks = 2;
  r.history = two_rank_history(50, {5, 5}, 3.0);
  EXPECT_NE(format_report(r).find("bottleneck / best whole-column partition = 1.8750"), std::string::npos)
      << format_report(r);
  const auto j = to_json(r);
  EXPECT_DOUBLE_EQ(j.at("bottleneck_ratio").get<double>(), 15.0 / 8.0);
  EXPECT_EQ(j.at("bottleneck_ratio_by_iteration").size(), 50u);
  r.run.balance = "diffusive";
  r.run.balance_every = 5;
  EXPECT_NE(format_report(r).find("bottleneck / best 1.8750 and 1.8750"), std::string::npos)
      << format_report(r);
  EXPECT_EQ(format_report(r).find("of its core"), std::string::npos);
  // Rank 1 ran half of the time it was ready: the ratio is qualified.
  IterationRecord shared;
  shared.owned = {6, 11};
  shared.compute = 15e-3;
  shared.on_cpu = 10e-3;
  shared.run_delay = 10e-3;
  for (int it = 0; it < 50; ++it) r.history.set(it, 1, shared);
  EXPECT_DOUBLE_EQ(r.history.lowest_core_share(), 0.5);
  EXPECT_NE(format_report(r).find("(a rank had 50% of its core"), std::string::npos) << format_report(r);
}
