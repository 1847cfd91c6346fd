#pragma once
// Local parts of NPB LU's l2norm and error: per-component sums of squares
// over the interior points of the owned columns. The caller reduces them
// over ranks and takes rms_from_sums.
#include <array>

#include "lu/coefficients.hpp"
#include "lu/field.hpp"

namespace npblu {

using Vector5 = std::array<double, 5>;

/// sum of v(m)^2 over interior points of the owned columns.
Vector5 local_sum_of_squares(const GridSize& g, ColumnRange owned, const Field5& v);
/// sum of (exact(m) - u(m))^2 over interior points of the owned columns.
Vector5 local_error_sum_of_squares(const Coefficients& c, const GridSize& g, ColumnRange owned,
                                   const Field5& u);
/// sqrt(sum / number of interior points), per component.
Vector5 rms_from_sums(const GridSize& g, const Vector5& sums);

}  // namespace npblu
