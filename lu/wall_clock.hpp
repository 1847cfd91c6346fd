#pragma once
#include <chrono>

namespace npblu {

/// Monotonic wall-clock seconds; cheap enough (vDSO) to call per row.
inline double wall_seconds() {
  using clock = std::chrono::steady_clock;
  return std::chrono::duration<double>(clock::now().time_since_epoch()).count();
}

}  // namespace npblu
