#pragma once
// NPB LU's erhs: the forcing term frct that makes the manufactured exact
// solution a steady state of the discrete equations.
#include "lu/coefficients.hpp"
#include "lu/field.hpp"
#include "lu/residual.hpp"

namespace npblu {

/// Fills frct at every interior point (i in [1,nx-1), k in [1,nz-1)) of the
/// owned columns and zeroes the points i = 0 and nx-1 of those planes. The
/// rest of frct (planes k = 0 and nz-1, columns not owned) must be zero, as
/// a new Field5 is and as this leaves it: it is not touched (its pages stay
/// free, lu/forcing.cpp). The exact
/// solution it differentiates is analytic, so halo columns are evaluated
/// locally: no communication. The result at a point does not depend on
/// `owned` (bitwise), so any partition yields the same forcing.
///
/// It allocates nothing: it works in fields the caller has anyway. `exact`
/// must store stored_columns(g, owned, kStateHalo) (the state u before it is
/// initialised) and holds the exact solution there on return; `zero` must
/// store the owned columns (the residual before it is computed), whose
/// interior planes (1 <= k < nz-1) are zero on return. Temporaries of their size would add a fifth to the
/// stripe's memory at its peak (class C: 21 MB a rank).
void compute_forcing(const Coefficients& c, const GridSize& g, ColumnRange owned, Field5& frct, Field5& exact,
                     Field5& zero, ResidualWorkspace& ws);

}  // namespace npblu
