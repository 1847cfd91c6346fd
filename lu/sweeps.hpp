#pragma once
// The two triangular sweeps of one SSOR iteration, one k plane at a time
// (NPB LU's jacld + blts and jacu + buts). The solver pipelines planes
// between neighbouring stripes; these kernels only compute.
#include <vector>

#include "lu/coefficients.hpp"
#include "lu/field.hpp"

namespace npblu {

/// Seconds spent forming the block Jacobians, in the block triangular solves
/// and in the SSOR updates the sweeps apply row by row; accumulated by the
/// sweep kernels.
struct SweepTimes {
  double jacobian = 0.0;
  double solve = 0.0;
  double update = 0.0;
};

/// Per-row scratch (the 5x5 blocks of one row of i), sized once.
class SweepWorkspace {
 public:
  SweepWorkspace() = default;
  explicit SweepWorkspace(const GridSize& g);
  /// The doubles one holds for grid g (the chosen level's row blocking).
  [[nodiscard]] static std::size_t doubles(const GridSize& g);

  std::vector<double> blocks;  // layout private to sweeps.cpp
};

/// Lower sweep of plane k (1 <= k <= nz-2) over the owned columns, j
/// ascending, i ascending: rsd(k) <- dt * rsd(k) (NPB's rsd *= dt, row by
/// row just before the row is read), then rsd(k) <- solution of the lower
/// block-triangular system, using rsd plane k-1 (already swept) and rsd row (k, owned.begin-1)
/// (the previous stripe's result, or the zero boundary). Reads u on owned
/// columns widened by one below.
void lower_sweep_plane(const Coefficients& c, const GridSize& g, ColumnRange owned, int k, Field5& u,
                       Field5& rsd, SweepWorkspace& ws, SweepTimes& times);

/// Upper sweep of plane k (nz-2 >= k >= 1) over the owned columns, j
/// descending, i descending, using rsd plane k+1 (already swept) and rsd row
/// (k, owned.end) (the next stripe's result, or the zero boundary). Reads u
/// on owned columns widened by one above. Once a row of plane k+1 has been
/// read for the last time (k+1 <= nz-2), it applies NPB's final update to it:
/// u(k+1) += rsd(k+1) * c.ssor_update_factor(); at k = 1, to plane 1 too,
/// row by row once the row is solved. So after k = 1, u is updated everywhere.
void upper_sweep_plane(const Coefficients& c, const GridSize& g, ColumnRange owned, int k, Field5& u,
                       Field5& rsd, SweepWorkspace& ws, SweepTimes& times);

}  // namespace npblu
