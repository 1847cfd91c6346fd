#include "lu/coefficients.hpp"

#include <algorithm>

namespace npblu {

Coefficients Coefficients::make(const GridSize& grid, double dt, double omega) {
  Coefficients c;
  c.dt = dt;
  c.omega = omega;
  c.dxi = 1.0 / (grid.nx - 1);
  c.deta = 1.0 / (grid.ny - 1);
  c.dzeta = 1.0 / (grid.nz - 1);
  c.tx1 = 1.0 / (c.dxi * c.dxi);
  c.tx2 = 1.0 / (2.0 * c.dxi);
  c.tx3 = 1.0 / c.dxi;
  c.ty1 = 1.0 / (c.deta * c.deta);
  c.ty2 = 1.0 / (2.0 * c.deta);
  c.ty3 = 1.0 / c.deta;
  c.tz1 = 1.0 / (c.dzeta * c.dzeta);
  c.tz2 = 1.0 / (2.0 * c.dzeta);
  c.tz3 = 1.0 / c.dzeta;
  c.dx.fill(0.75);
  c.dy.fill(0.75);
  c.dz.fill(1.00);
  c.dssp = std::max({c.dx[0], c.dy[0], c.dz[0]}) / 4.0;
  c.ce = {{
      {2.0, 0.0, 0.0, 4.0, 5.0, 3.0, 5.0e-01, 2.0e-02, 1.0e-02, 3.0e-02, 5.0e-01, 4.0e-01, 3.0e-01},
      {1.0, 0.0, 0.0, 0.0, 1.0, 2.0, 3.0, 1.0e-02, 3.0e-02, 2.0e-02, 4.0e-01, 3.0e-01, 5.0e-01},
      {2.0, 2.0, 0.0, 0.0, 0.0, 2.0, 3.0, 4.0e-02, 3.0e-02, 5.0e-02, 3.0e-01, 5.0e-01, 4.0e-01},
      {2.0, 2.0, 0.0, 0.0, 0.0, 2.0, 3.0, 3.0e-02, 5.0e-02, 4.0e-02, 2.0e-01, 1.0e-01, 3.0e-01},
      {5.0, 4.0, 3.0, 2.0, 1.0e-01, 4.0e-01, 3.0e-01, 5.0e-02, 4.0e-02, 3.0e-02, 1.0e-01, 3.0e-01, 2.0e-01},
  }};
  return c;
}

void exact_solution(const Coefficients& c, const GridSize& g, int i, int j, int k, double out[5]) {
  const double xi = double(i) / (g.nx - 1);
  const double eta = double(j) / (g.ny - 1);
  const double zeta = double(k) / (g.nz - 1);
  for (int m = 0; m < 5; ++m) {
    const auto& e = c.ce[m];
    // Same association as NPB: a sum of monomials, left to right.
    out[m] = e[0] + e[1] * xi + e[2] * eta + e[3] * zeta + e[4] * xi * xi + e[5] * eta * eta +
             e[6] * zeta * zeta + e[7] * xi * xi * xi + e[8] * eta * eta * eta + e[9] * zeta * zeta * zeta +
             e[10] * xi * xi * xi * xi + e[11] * eta * eta * eta * eta + e[12] * zeta * zeta * zeta * zeta;
  }
}

}  // namespace npblu
