#pragma once
// Constants of the discretisation (NPB LU's setcoeff and its fixed
// parameters), derived once from the grid size and the time step.
#include <array>

#include "lu/grid.hpp"

namespace npblu {

struct Coefficients {
  // Gas constants.
  static constexpr double c1 = 1.40;
  static constexpr double c2 = 0.40;
  static constexpr double c3 = 1.00e-01;
  static constexpr double c4 = 1.00;
  static constexpr double c5 = 1.40;

  double dxi = 0, deta = 0, dzeta = 0;
  double tx1 = 0, tx2 = 0, tx3 = 0;
  double ty1 = 0, ty2 = 0, ty3 = 0;
  double tz1 = 0, tz2 = 0, tz3 = 0;
  // Second-order dissipation per direction and component (dx1..dx5 etc.).
  std::array<double, 5> dx{}, dy{}, dz{};
  double dssp = 0;  // fourth-order dissipation
  /// Coefficients of the manufactured exact solution: ce[m][0..12].
  std::array<std::array<double, 13>, 5> ce{};
  double dt = 0;
  double omega = 1.2;

  /// NPB's u += rsd / (omega (2 - omega)) after the upper sweep, as a factor.
  double ssor_update_factor() const { return 1.0 / (omega * (2.0 - omega)); }

  static Coefficients make(const GridSize& grid, double dt, double omega = 1.2);
};

/// The manufactured solution at global point (i, j, k) (0-based).
void exact_solution(const Coefficients& c, const GridSize& g, int i, int j, int k, double out[5]);

}  // namespace npblu
