#include "lu/initial_state.hpp"

namespace npblu {

void set_boundary_values(const Coefficients& c, const GridSize& g, Field5& u) {
  const ColumnRange cols = u.columns();
  for (int j = cols.begin; j < cols.end; ++j) {
    const bool boundary_column = (j == 0 || j == g.ny - 1);
    for (int k = 0; k < g.nz; ++k) {
      const bool boundary_plane = (k == 0 || k == g.nz - 1);
      for (int i = 0; i < g.nx; ++i) {
        if (boundary_column || boundary_plane || i == 0 || i == g.nx - 1) {
          exact_solution(c, g, i, j, k, u.point(i, k, j));
        }
      }
    }
  }
}

void set_initial_values(const Coefficients& c, const GridSize& g, Field5& u) {
  const ColumnRange cols = u.columns();
  double e_xlo[5], e_xhi[5], e_ylo[5], e_yhi[5], e_zlo[5], e_zhi[5];
  for (int j = cols.begin; j < cols.end; ++j) {
    if (j == 0 || j == g.ny - 1) continue;
    const double eta = double(j) / (g.ny - 1);
    for (int k = 1; k < g.nz - 1; ++k) {
      const double zeta = double(k) / (g.nz - 1);
      for (int i = 1; i < g.nx - 1; ++i) {
        const double xi = double(i) / (g.nx - 1);
        exact_solution(c, g, 0, j, k, e_xlo);
        exact_solution(c, g, g.nx - 1, j, k, e_xhi);
        exact_solution(c, g, i, 0, k, e_ylo);
        exact_solution(c, g, i, g.ny - 1, k, e_yhi);
        exact_solution(c, g, i, j, 0, e_zlo);
        exact_solution(c, g, i, j, g.nz - 1, e_zhi);
        double* p = u.point(i, k, j);
        for (int m = 0; m < 5; ++m) {
          const double pxi = (1.0 - xi) * e_xlo[m] + xi * e_xhi[m];
          const double peta = (1.0 - eta) * e_ylo[m] + eta * e_yhi[m];
          const double pzeta = (1.0 - zeta) * e_zlo[m] + zeta * e_zhi[m];
          p[m] = pxi + peta + pzeta - pxi * peta - peta * pzeta - pzeta * pxi + pxi * peta * pzeta;
        }
      }
    }
  }
}

}  // namespace npblu
