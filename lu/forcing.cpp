#include "lu/forcing.hpp"

#include <algorithm>
#include <stdexcept>

#include "lu/grid.hpp"

namespace npblu {

namespace {

bool stores(const Field5& f, ColumnRange c) {
  const ColumnRange s = f.columns();
  return c.empty() || (s.begin <= c.begin && c.end <= s.end);
}

}  // namespace

// NPB's erhs applies the very formulas of rhs to the exact solution, so the
// forcing is compute_residual's operator R applied to it with a zero
// forcing: frct = R(u_exact). Sharing the operator keeps the two consistent
// (the exact solution is an exact discrete steady state) and inherits its
// partition independence.
void compute_forcing(const Coefficients& c, const GridSize& g, ColumnRange owned, Field5& frct, Field5& exact,
                     Field5& zero, ResidualWorkspace& ws) {
  std::fill(frct.data(), frct.data() + frct.size(), 0.0);
  if (owned.empty()) return;
  // The exact solution is analytic: evaluate it on the columns the stencil
  // reaches instead of exchanging halos.
  const ColumnRange reach = stored_columns(g, owned, kStateHalo);
  if (!stores(exact, reach) || !stores(zero, owned) || !stores(frct, owned))
    throw std::logic_error("compute_forcing: a field does not store the columns it needs");
  for (int j = reach.begin; j < reach.end; ++j) {
    for (int k = 0; k < g.nz; ++k) {
      for (int i = 0; i < g.nx; ++i) exact_solution(c, g, i, j, k, exact.point(i, k, j));
    }
  }
  std::fill(zero.column(owned.begin), zero.column(owned.end), 0.0);
  compute_residual(c, g, owned, exact, zero, frct, ws);
}

}  // namespace npblu
