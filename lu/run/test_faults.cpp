#include "lu/run/test_faults.hpp"

#include <csignal>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <string_view>

namespace npblu {

namespace {

std::string_view asked_fault() {
  const char* fault = std::getenv("NPBLU_TEST_FAULT");
  return fault ? fault : "";
}

}  // namespace

void apply_test_fault_to_norms(VerifiedQuantities& computed) {
  if (asked_fault() != "wrong-norms") return;
  // Far outside NPB's epsilon (1e-8), as any wrong field is.
  for (double& x : computed.xcr) x *= 1.0 + 1e-6;
}

void apply_test_fault_on_rank(int rank) {
  if (asked_fault() == "throw-on-rank-1" && rank == 1)
    throw std::runtime_error("test fault injection: rank 1 alone failed (NPBLU_TEST_FAULT)");
}

void apply_test_fault_signal(std::string_view where) {
  constexpr std::string_view key = "sigterm-at=";
  const std::string_view fault = asked_fault();
  if (fault.substr(0, key.size()) == key && fault.substr(key.size()) == where) std::raise(SIGTERM);
}

std::optional<std::uint64_t> test_fault_available_memory() {
  constexpr std::string_view key = "available-memory=";
  const std::string_view fault = asked_fault();
  if (fault.substr(0, key.size()) != key) return std::nullopt;
  return std::stoull(std::string(fault.substr(key.size())));
}

}  // namespace npblu
