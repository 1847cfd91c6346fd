#pragma once
// NPB LU's setbv and setiv: boundary values from the exact solution and a
// transfinite interpolation of them as the initial interior.
#include "lu/coefficients.hpp"
#include "lu/field.hpp"

namespace npblu {

/// Sets the exact solution on every boundary point of every stored column.
void set_boundary_values(const Coefficients& c, const GridSize& g, Field5& u);
/// Sets the interpolated initial guess on every interior point of every stored column.
void set_initial_values(const Coefficients& c, const GridSize& g, Field5& u);

}  // namespace npblu
