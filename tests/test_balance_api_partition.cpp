// npblu_partition_from_weights (the C API, through the shared library) gives
// exactly Partition::from_weights's placement, and refuses what it refuses.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "balance/diffusive_balancer.hpp"
#include "balance/partition.hpp"
#include "interop/c/npblu_balance.h"

namespace {

std::vector<int> c_cuts(int columns, const std::vector<double>& weights, int min_width, int* status,
                        std::string* message = nullptr) {
  std::vector<int> cuts(weights.size() + 1, -1);
  char text[256] = "";
  *status = npblu_partition_from_weights(columns, static_cast<int>(weights.size()), weights.data(), min_width,
                                         cuts.data(), text, sizeof text);
  if (message) *message = text;
  return cuts;
}

std::vector<int> cpp_cuts(int columns, const std::vector<double>& weights, int min_width) {
  const npblu::Partition p = npblu::Partition::from_weights({0, columns}, weights, min_width);
  std::vector<int> cuts;
  for (const auto& r : p.ranges()) cuts.push_back(r.begin);
  cuts.push_back(columns);
  return cuts;
}

TEST(BalanceApiPartition, MatchesPartitionFromWeights) {
  const std::vector<std::vector<double>> cases = {
      {1, 1}, {3, 1}, {1, 2.5, 1}, {4, 1, 1.5, 1, 2}, {1e-9, 1e-9, 3e-9}, {1, 0.444}, {7, 1, 1, 1, 1, 1, 1}};
  for (int columns : {14, 61, 160, 1001}) {
    for (int min_width : {1, 2, 3}) {
      for (const auto& w : cases) {
        if (static_cast<int>(w.size()) * min_width > columns) continue;
        int status = -1;
        EXPECT_EQ(c_cuts(columns, w, min_width, &status), cpp_cuts(columns, w, min_width));
        EXPECT_EQ(status, NPBLU_OK);
      }
    }
  }
}

TEST(BalanceApiPartition, RefusesWhatPartitionRefuses) {
  int status = -1;
  std::string message;
  c_cuts(5, {1, 1, 1}, 2, &status, &message);
  EXPECT_EQ(status, NPBLU_ERROR_ARGUMENT);
  EXPECT_NE(message.find("too many ranks"), std::string::npos) << message;
  c_cuts(50, {1, 0, 1}, 2, &status, &message);
  EXPECT_EQ(status, NPBLU_ERROR_ARGUMENT);
  EXPECT_NE(message.find("weight of rank 1"), std::string::npos) << message;
  c_cuts(50, {1, 1}, 0, &status, &message);
  EXPECT_EQ(status, NPBLU_ERROR_ARGUMENT);
  c_cuts(0, {1}, 1, &status, &message);
  EXPECT_EQ(status, NPBLU_ERROR_ARGUMENT);
  int cuts[3];
  EXPECT_EQ(npblu_partition_from_weights(10, 2, nullptr, 2, cuts, nullptr, 0), NPBLU_ERROR_ARGUMENT);
  const double w[2] = {1, 1};
  EXPECT_EQ(npblu_partition_from_weights(10, 2, w, 2, nullptr, nullptr, 0), NPBLU_ERROR_ARGUMENT);
  EXPECT_EQ(npblu_partition_from_weights(10, 0, w, 2, cuts, nullptr, 0), NPBLU_ERROR_ARGUMENT);
}

TEST(BalanceApiPartition, DefaultSettingsAreTheSolvers) {
  npblu_balance_settings s{};
  ASSERT_EQ(npblu_balance_settings_default(&s), NPBLU_OK);
  const npblu::BalancerSettings d;
  EXPECT_EQ(s.every, d.every);
  EXPECT_EQ(s.threshold, d.threshold);
  EXPECT_EQ(s.damping, d.damping);
  EXPECT_EQ(s.min_width, d.min_width);
  EXPECT_EQ(s.persistence, d.persistence);
  EXPECT_EQ(s.core_share, 1);
  EXPECT_EQ(npblu_balance_settings_default(nullptr), NPBLU_ERROR_ARGUMENT);
}

}  // namespace
