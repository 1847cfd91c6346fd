#pragma once
// Global problem geometry. Indices are 0-based: i in [0,nx), j in [0,ny),
// k in [0,nz); the first and last index of each direction are boundary points.
#include "balance/column_range.hpp"

namespace npblu {

struct GridSize {
  int nx = 0;
  int ny = 0;
  int nz = 0;
  friend constexpr bool operator==(const GridSize&, const GridSize&) = default;

  /// Interior columns j in [1, ny-1): what the stripes partition.
  [[nodiscard]] constexpr ColumnRange interior_columns() const { return {1, ny - 1}; }
  [[nodiscard]] constexpr long long interior_points() const {
    return static_cast<long long>(nx - 2) * (ny - 2) * (nz - 2);
  }
};

/// The columns a rank stores for a field whose stencil reaches `depth`
/// columns beyond the owned ones (clipped to the grid).
[[nodiscard]] constexpr ColumnRange stored_columns(const GridSize& g, ColumnRange owned, int depth) {
  return owned.widened(depth, 0, g.ny);
}

/// Halo depths: u is read two columns out by the fourth-order dissipation in
/// rhs; rsd one column out by the triangular sweeps.
inline constexpr int kStateHalo = 2;
inline constexpr int kResidualHalo = 1;

}  // namespace npblu
