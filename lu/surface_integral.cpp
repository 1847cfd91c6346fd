#include "lu/surface_integral.hpp"

#include <algorithm>

namespace npblu {

namespace {

double phi(const double* p) {
  return Coefficients::c2 * (p[4] - 0.50 * (p[1] * p[1] + p[2] * p[2] + p[3] * p[3]) / p[0]);
}

// Sum over cells [a, a+1] x [b, b+1] of the four corner values of f(a, b).
template <class F>
double cell_corner_sum(int a_lo, int a_hi, int b_lo, int b_hi, F f) {
  double s = 0.0;
  for (int b = b_lo; b < b_hi; ++b) {
    for (int a = a_lo; a < a_hi; ++a) s += f(a, b) + f(a + 1, b) + f(a, b + 1) + f(a + 1, b + 1);
  }
  return s;
}

}  // namespace

std::array<double, 3> local_surface_sums(const GridSize& g, ColumnRange owned, const Field5& u) {
  // NPB's integration box (0-based): i in [1, nx-2], j in [1, ny-3], k in [2, nz-2].
  const int i1 = 1, i2 = g.nx - 2;
  const int j1 = 1, j2 = g.ny - 3;
  const int k1 = 2, k2 = g.nz - 2;
  // Cells whose lower j corner this rank owns.
  const int jlo = std::max(owned.begin, j1);
  const int jhi = std::min(owned.end, j2);

  std::array<double, 3> sums{};
  // Constant-k faces at k1 and k2; cells in (i, j).
  for (int kf : {k1, k2}) {
    sums[0] += cell_corner_sum(i1, i2, jlo, jhi, [&](int i, int j) { return phi(u.point(i, kf, j)); });
  }
  // Constant-j faces at j1 and j2, summed by the rank owning that column; cells in (i, k).
  for (int jf : {j1, j2}) {
    if (owned.contains(jf)) {
      sums[1] += cell_corner_sum(i1, i2, k1, k2, [&](int i, int k) { return phi(u.point(i, k, jf)); });
    }
  }
  // Constant-i faces at i1 and i2; cells in (j, k).
  for (int iface : {i1, i2}) {
    sums[2] += cell_corner_sum(jlo, jhi, k1, k2, [&](int j, int k) { return phi(u.point(iface, k, j)); });
  }
  return sums;
}

double surface_integral(const Coefficients& c, const std::array<double, 3>& s) {
  return 0.25 * (c.dxi * c.deta * s[0] + c.dxi * c.dzeta * s[1] + c.deta * c.dzeta * s[2]);
}

}  // namespace npblu
