#pragma once
// NPB LU's erhs: the forcing term frct that makes the manufactured exact
// solution a steady state of the discrete equations.
#include "lu/coefficients.hpp"
#include "lu/field.hpp"

namespace npblu {

/// Fills frct at every interior point (i in [1,nx-1), k in [1,nz-1)) of the
/// owned columns and sets every other entry of frct to zero. The exact
/// solution it differentiates is analytic, so halo columns are evaluated
/// locally: no communication. The result at a point does not depend on
/// `owned` (bitwise), so any partition yields the same forcing.
void compute_forcing(const Coefficients& c, const GridSize& g, ColumnRange owned, Field5& frct);

}  // namespace npblu
