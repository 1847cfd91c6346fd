#include "verify/verification.hpp"

#include <cmath>

namespace npblu {

double relative_difference(double computed, double reference) {
  const double diff = std::fabs(computed - reference);
  return reference != 0.0 ? diff / std::fabs(reference) : diff;
}

VerificationResult verify(const VerifiedQuantities& computed, const ReferenceValues& reference,
                          double epsilon) {
  VerificationResult result;
  result.performed = true;
  result.epsilon = epsilon;
  auto check = [&](std::string name, double value, double ref) {
    QuantityCheck q{std::move(name), value, ref, relative_difference(value, ref), false};
    q.passed = q.relative_difference <= epsilon;  // false for NaN
    result.checks.push_back(q);
  };
  for (int m = 0; m < 5; ++m) check("xcr[" + std::to_string(m + 1) + "]", computed.xcr[m], reference.xcr[m]);
  for (int m = 0; m < 5; ++m) check("xce[" + std::to_string(m + 1) + "]", computed.xce[m], reference.xce[m]);
  check("xci", computed.xci, reference.xci);
  result.passed = true;
  for (const auto& q : result.checks) result.passed = result.passed && q.passed;
  return result;
}

double lu_mops(int nx, int ny, int nz, int iterations, double seconds) {
  const double n3 = double(nx) * ny * nz;
  const double mean = double(nx + ny + nz) / 3.0;
  return 1.0e-6 * iterations * (1984.77 * n3 - 10923.3 * mean * mean + 27770.9 * mean - 144010.0) / seconds;
}

}  // namespace npblu
