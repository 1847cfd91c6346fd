#pragma once
// Partition: which contiguous range of interior columns each rank owns.
// A value computed identically on every rank from the same inputs; the solver
// is handed one and never decides placement itself.
#include <span>
#include <string>
#include <vector>

#include "balance/column_range.hpp"

namespace npblu {

/// The narrowest stripe we allow. The fourth-order dissipation reaches two
/// columns each way and halos come only from the two neighbouring stripes, so
/// a stripe must hold at least two columns to fill its neighbour's halo.
inline constexpr int kMinimumColumnWidth = 2;

class Partition {
 public:
  /// Equal widths; the remainder goes one column each to the lowest ranks.
  static Partition equal(ColumnRange interior, int ranks, int min_width = kMinimumColumnWidth);
  /// Widths proportional to weights, largest-remainder rounding (ties to the
  /// lower rank), then any stripe below min_width raised to it by taking
  /// columns from the rank furthest over its share (largest width / weight); then the best whole-column
  /// partition for per-column costs 1 / weight (min-max, balance/min_max_partition) nearest those widths,
  /// which keeps them wherever they are already optimal. Throws std::invalid_argument on bad weights.
  static Partition from_weights(ColumnRange interior, std::span<const double> weights,
                                int min_width = kMinimumColumnWidth);
  /// Explicit widths, one per rank, in rank order. Throws
  /// std::invalid_argument unless they tile `interior` with every width >= min_width.
  static Partition from_widths(ColumnRange interior, std::span<const int> widths,
                               int min_width = kMinimumColumnWidth);

  /// Most ranks `interior` can be split over.
  static int max_ranks(ColumnRange interior, int min_width = kMinimumColumnWidth);

  [[nodiscard]] int ranks() const { return static_cast<int>(ranges_.size()); }
  [[nodiscard]] ColumnRange interior() const { return interior_; }
  [[nodiscard]] ColumnRange operator[](int rank) const { return ranges_.at(rank); }
  [[nodiscard]] const std::vector<ColumnRange>& ranges() const { return ranges_; }
  [[nodiscard]] std::vector<int> widths() const;
  /// Rank owning interior column j.
  [[nodiscard]] int owner_of(int j) const;
  /// "3,5,2": the widths as --columns takes them.
  [[nodiscard]] std::string to_string() const;

  friend bool operator==(const Partition&, const Partition&) = default;

 private:
  Partition(ColumnRange interior, std::span<const int> widths);
  ColumnRange interior_{};
  std::vector<ColumnRange> ranges_;
};

}  // namespace npblu
