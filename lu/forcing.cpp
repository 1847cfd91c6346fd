#include "lu/forcing.hpp"

#include <algorithm>

#include "lu/grid.hpp"
#include "lu/residual.hpp"

namespace npblu {

// The forcing is the steady-state operator applied to the exact solution,
// so it reuses compute_residual with a zero forcing: rsd = -0 + R(u_exact).
// One operator for both keeps erhs and rhs consistent by construction.
void compute_forcing(const Coefficients& c, const GridSize& g, ColumnRange owned, Field5& frct) {
  std::fill(frct.data(), frct.data() + frct.size(), 0.0);
  if (owned.empty()) return;

  // The exact solution is analytic: evaluate it on the columns the stencil
  // reaches instead of exchanging halos.
  const ColumnRange reach = stored_columns(g, owned, kStateHalo);
  Field5 exact(g.nx, g.nz, reach);
  for (int j = reach.begin; j < reach.end; ++j) {
    for (int k = 0; k < g.nz; ++k) {
      for (int i = 0; i < g.nx; ++i) exact_solution(c, g, i, j, k, exact.point(i, k, j));
    }
  }

  const Field5 no_forcing(g.nx, g.nz, owned);
  ResidualWorkspace workspace(g, owned);
  compute_residual(c, g, owned, exact, no_forcing, frct, workspace);
}

}  // namespace npblu
