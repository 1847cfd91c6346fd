#pragma once
// NPB self-verification: every computed quantity within a relative epsilon
// of its reference. Unlike NPB's Fortran, a NaN never passes.
#include <array>
#include <string>
#include <vector>

#include "verify/class_table.hpp"

namespace npblu {

/// The quantities a run produces that NPB verifies.
struct VerifiedQuantities {
  std::array<double, 5> xcr{};
  std::array<double, 5> xce{};
  double xci = 0.0;
};

struct QuantityCheck {
  std::string name;  // "xcr[1]" .. "xci"
  double computed = 0.0;
  double reference = 0.0;
  double relative_difference = 0.0;
  bool passed = false;
};

struct VerificationResult {
  bool performed = false;  // false for a custom (class U) run
  bool passed = false;
  double epsilon = kVerificationEpsilon;
  std::vector<QuantityCheck> checks;
};

/// Relative difference |computed - reference| / |reference| (absolute when
/// the reference is zero); NaN whenever either side is NaN.
double relative_difference(double computed, double reference);

/// Compares all eleven quantities; passes only if every one is within epsilon.
VerificationResult verify(const VerifiedQuantities& computed, const ReferenceValues& reference,
                          double epsilon = kVerificationEpsilon);

/// NPB LU's operation count model, in Mop/s.
double lu_mops(int nx, int ny, int nz, int iterations, double seconds);

}  // namespace npblu
