#pragma once
// NPB LU's rhs: the steady-state residual rsd = R(u) - frct (flux
// differences in xi, eta, zeta, viscous terms and fourth-order dissipation).
#include <vector>

#include "lu/coefficients.hpp"
#include "lu/field.hpp"

namespace npblu {

/// Scratch space for compute_residual, sized once per owned range so the
/// hot loop allocates nothing.
class ResidualWorkspace {
 public:
  ResidualWorkspace() = default;
  ResidualWorkspace(const GridSize& g, ColumnRange owned);
  /// The doubles one holds for grid g (the chosen level's blocking).
  [[nodiscard]] static std::size_t doubles(const GridSize& g);

 private:
  friend void compute_residual(const Coefficients&, const GridSize&, ColumnRange, const Field5&,
                               const Field5&, Field5&, ResidualWorkspace&);
  std::vector<double> scratch_;
};

/// Writes rsd at every interior point (i in [1,nx-1), k in [1,nz-1)) of the
/// owned columns and touches no other entry of rsd. Reads u on
/// stored_columns(g, owned, kStateHalo) (halos must be current) and frct on
/// the owned columns. The value at a point does not depend on `owned`
/// (bitwise): the same operations in the same order on every partition.
void compute_residual(const Coefficients& c, const GridSize& g, ColumnRange owned, const Field5& u,
                      const Field5& frct, Field5& rsd, ResidualWorkspace& ws);

}  // namespace npblu
