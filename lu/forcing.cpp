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

/// Zeroes the points i = 0 and nx-1 of the interior planes of the owned
/// columns (f stores them), which compute_residual does not write (it writes
/// the rest of those planes). Everything else of f, the planes k = 0 and nz-1
/// and any column f stores but does not own, is zero from the field's zeroed storage
/// and never written: it is left alone, not even read, so that its pages
/// are never touched (where the kernel maps no shared zero page, reading an
/// untouched page allocates it). Checked: the forcing's bits
/// (field_checksum and the verification tests) and tests/peak_memory_check.py.
void clear_interior_ends(const GridSize& g, ColumnRange owned, Field5& f) {
  for (int j = owned.begin; j < owned.end; ++j) {
    for (int k = 1; k < g.nz - 1; ++k) {
      std::fill_n(f.point(0, k, j), Field5::kComponents, 0.0);
      std::fill_n(f.point(g.nx - 1, k, j), Field5::kComponents, 0.0);
    }
  }
}

}  // namespace

// NPB's erhs applies the very formulas of rhs to the exact solution, so the
// forcing is compute_residual's operator R applied to it with a zero
// forcing: frct = R(u_exact). Sharing the operator keeps the two consistent
// (the exact solution is an exact discrete steady state) and inherits its
// partition independence.
void compute_forcing(const Coefficients& c, const GridSize& g, ColumnRange owned, Field5& frct, Field5& exact,
                     Field5& zero, ResidualWorkspace& ws) {
  if (owned.empty()) return;
  // The exact solution is analytic: evaluate it on the columns the stencil
  // reaches instead of exchanging halos.
  const ColumnRange reach = stored_columns(g, owned, kStateHalo);
  if (!stores(exact, reach) || !stores(zero, owned) || !stores(frct, owned))
    throw std::logic_error("compute_forcing: a field does not store the columns it needs");
  clear_interior_ends(g, owned, frct);
  for (int j = reach.begin; j < reach.end; ++j) {
    for (int k = 0; k < g.nz; ++k) {
      for (int i = 0; i < g.nx; ++i) exact_solution(c, g, i, j, k, exact.point(i, k, j));
    }
  }
  // compute_residual reads the forcing at interior planes only.
  for (int j = owned.begin; j < owned.end; ++j) std::fill(zero.row(1, j), zero.row(g.nz - 1, j), 0.0);
  compute_residual(c, g, owned, exact, zero, frct, ws);
}

}  // namespace npblu
