#pragma once
// NPB 3.4 LU problem classes and their self-verification reference values
// (from shared/npb/lu_classes.json, compiled in: nothing is read at run time).
#include <array>
#include <optional>
#include <span>

namespace npblu {

struct ReferenceValues {
  std::array<double, 5> xcr{};  // RMS norms of the steady-state residual
  std::array<double, 5> xce{};  // RMS norms of the solution error
  double xci = 0.0;             // surface integral
};

struct ProblemClass {
  char name = 'U';  // S W A B C D E F, or U for a custom size
  int n = 0;        // points per direction (cubic grids)
  int itmax = 0;
  double dt = 0.0;
  ReferenceValues reference;
};

inline constexpr double kVerificationEpsilon = 1.0e-8;

/// All tabulated classes, S first.
std::span<const ProblemClass> problem_classes();
/// The class called `name` (upper or lower case), if tabulated.
std::optional<ProblemClass> find_problem_class(char name);

}  // namespace npblu
