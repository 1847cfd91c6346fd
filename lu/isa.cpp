#include "lu/isa.hpp"

#include <cstdlib>
#include <string_view>

#include "lu/kernel_levels.hpp"

namespace npblu {

namespace {

#if NPBLU_KERNELS_X86
bool cpu_has(IsaLevel level) {
  __builtin_cpu_init();
  switch (level) {
    case IsaLevel::baseline:
      return true;
    case IsaLevel::v3:
      return __builtin_cpu_supports("avx") && __builtin_cpu_supports("avx2") &&
             __builtin_cpu_supports("fma") && __builtin_cpu_supports("bmi") && __builtin_cpu_supports("bmi2");
    case IsaLevel::v4:
      return cpu_has(IsaLevel::v3) && __builtin_cpu_supports("avx512f") &&
             __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512cd") &&
             __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl");
  }
  return false;
}
#else
bool cpu_has(IsaLevel level) { return level == IsaLevel::baseline; }  // one level: the build's own
#endif

std::string supported_names() {
  std::string s;
  for (const IsaLevel l : isa_levels_supported()) s += std::string(s.empty() ? "" : ", ") + isa_name(l);
  return s;
}

struct IsaChoice {
  IsaLevel level = IsaLevel::baseline;
  std::string error;
};

IsaChoice choose() {
  const IsaLevel best = isa_levels_supported().back();
  const char* env = std::getenv("NPBLU_ISA");
  const std::string_view asked = env ? env : "";
  if (asked.empty() || asked == "auto") return {best, ""};
  for (const IsaLevel l : {IsaLevel::baseline, IsaLevel::v3, IsaLevel::v4}) {
    if (asked != isa_name(l)) continue;
    if (cpu_has(l) && (NPBLU_KERNELS_X86 || l == IsaLevel::baseline)) return {l, ""};
    return {best, "NPBLU_ISA='" + std::string(asked) + "': this CPU (or this build) does not have level " +
                      isa_description(l) + "; it has " + supported_names()};
  }
  return {best, "NPBLU_ISA='" + std::string(asked.substr(0, 40)) +
                    "' is not a level: give baseline, v3, v4 or auto (this CPU has " + supported_names() +
                    ")"};
}

const IsaChoice& choice() {
  static const IsaChoice c = choose();
  return c;
}

}  // namespace

const char* isa_name(IsaLevel level) {
  switch (level) {
    case IsaLevel::baseline:
      return "baseline";
    case IsaLevel::v3:
      return "v3";
    case IsaLevel::v4:
      return "v4";
  }
  return "?";
}

std::string isa_description(IsaLevel level) {
  if (!NPBLU_KERNELS_X86) return "baseline (this architecture's own vector width)";
  switch (level) {
    case IsaLevel::baseline:
      return "baseline (x86-64, SSE2, 2 lanes)";
    case IsaLevel::v3:
      return "v3 (x86-64-v3, AVX2+FMA, 4 lanes)";
    case IsaLevel::v4:
      return "v4 (x86-64-v4, AVX-512, 8 lanes)";
  }
  return "?";
}

const std::vector<IsaLevel>& isa_levels_supported() {
  static const std::vector<IsaLevel> levels = [] {
    std::vector<IsaLevel> v{IsaLevel::baseline};
    if (NPBLU_KERNELS_X86) {
      for (const IsaLevel l : {IsaLevel::v3, IsaLevel::v4})
        if (cpu_has(l)) v.push_back(l);
    }
    return v;
  }();
  return levels;
}

IsaLevel active_isa() { return choice().level; }

const std::string& isa_error() { return choice().error; }

}  // namespace npblu
