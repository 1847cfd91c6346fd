#include "lu/norms.hpp"

#include <cmath>

namespace npblu {

Vector5 local_sum_of_squares(const GridSize& g, ColumnRange owned, const Field5& v) {
  Vector5 sum{};
  for (int j = owned.begin; j < owned.end; ++j) {
    for (int k = 1; k < g.nz - 1; ++k) {
      const double* row = v.row(k, j);
      for (int i = 1; i < g.nx - 1; ++i) {
        for (int m = 0; m < 5; ++m) sum[m] += row[5 * i + m] * row[5 * i + m];
      }
    }
  }
  return sum;
}

Vector5 local_error_sum_of_squares(const Coefficients& c, const GridSize& g, ColumnRange owned,
                                   const Field5& u) {
  Vector5 sum{};
  double exact[5];
  for (int j = owned.begin; j < owned.end; ++j) {
    for (int k = 1; k < g.nz - 1; ++k) {
      for (int i = 1; i < g.nx - 1; ++i) {
        exact_solution(c, g, i, j, k, exact);
        const double* p = u.point(i, k, j);
        for (int m = 0; m < 5; ++m) {
          const double d = exact[m] - p[m];
          sum[m] += d * d;
        }
      }
    }
  }
  return sum;
}

Vector5 rms_from_sums(const GridSize& g, const Vector5& sums) {
  Vector5 rms{};
  const double points = double(g.nx - 2) * (g.ny - 2) * (g.nz - 2);
  for (int m = 0; m < 5; ++m) rms[m] = std::sqrt(sums[m] / points);
  return rms;
}

}  // namespace npblu
