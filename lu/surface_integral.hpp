#pragma once
// NPB LU's pintgr: an integral of the pressure-like quantity
// phi = c2*(u5 - |u2..u4|^2 / (2 u1)) over three pairs of surfaces.
#include <array>

#include "lu/coefficients.hpp"
#include "lu/field.hpp"

namespace npblu {

/// Unscaled local sums over the surface cells whose lower-j corner lies in
/// the owned columns: [0] the two constant-k faces, [1] the two constant-j
/// faces, [2] the two constant-i faces. Reads u one column above `owned`.
std::array<double, 3> local_surface_sums(const GridSize& g, ColumnRange owned, const Field5& u);
/// The surface integral from the sums reduced over all ranks.
double surface_integral(const Coefficients& c, const std::array<double, 3>& global_sums);

}  // namespace npblu
