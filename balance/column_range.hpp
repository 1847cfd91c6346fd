#pragma once
// A contiguous range of global j columns, [begin, end). The unit of ownership
// for columnwise stripes: every rank owns all i and k of its range.
#include <algorithm>

namespace npblu {

struct ColumnRange {
  int begin = 0;
  int end = 0;

  [[nodiscard]] constexpr int width() const { return end - begin; }
  [[nodiscard]] constexpr bool empty() const { return end <= begin; }
  [[nodiscard]] constexpr bool contains(int j) const { return j >= begin && j < end; }
  /// The range widened by `depth` on both sides, clipped to [lo, hi).
  [[nodiscard]] constexpr ColumnRange widened(int depth, int lo, int hi) const {
    return {std::max(lo, begin - depth), std::min(hi, end + depth)};
  }
  friend constexpr bool operator==(const ColumnRange&, const ColumnRange&) = default;
};

}  // namespace npblu
