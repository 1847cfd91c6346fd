#pragma once
// Instruction-set levels of the kernels. The hot kernels (lu/sweeps.cpp,
// lu/residual.cpp) are compiled once per level into the same binary and
// library (lu/kernel_levels.hpp); one level is chosen once per process: the
// highest this CPU has, or the one NPBLU_ISA names (baseline, v3, v4, auto).
// Bits: the FMA levels (v3, v4) fuse a*b+c into FMA in their kernels and
// compute the same bits as each other (the kernels are the same vector code at
// every width and vector lanes never mix points; rhs's contraction is chosen
// before vectorizing, CMakeLists.txt: GCC and clang contract different
// products, so each compiler has its own FMA bits; the sweeps fuse the
// products their source names, lu/sweep_formulas.hpp); baseline has no FMA and
// computes other bits in the last places (both verify). Everything outside the
// kernels is built with -ffp-contract=off. So lu and the library agree bit for
// bit at one level, on any partition, and a restart at another level of the
// same kind continues bit for bit; across kinds it continues and verifies.
#include <string>
#include <vector>

namespace npblu {

enum class IsaLevel {
  baseline,  // x86-64 (SSE2, 2 lanes); on other architectures: the build's own width
  v3,        // x86-64-v3: AVX2 + FMA, 4 lanes
  v4,        // x86-64-v4: AVX-512 F/BW/CD/DQ/VL, 8 lanes
};

/// Whether a level's kernels contract into FMA (v3, v4) or not (baseline):
/// the kind of bits it computes (above).
inline constexpr bool contracts_into_fma(IsaLevel level) { return level != IsaLevel::baseline; }

/// "baseline", "v3" or "v4": the values NPBLU_ISA takes.
const char* isa_name(IsaLevel level);

/// A longer description for reports: "v4 (x86-64-v4, AVX-512, 8 lanes)".
std::string isa_description(IsaLevel level);

/// The levels built into this program that this CPU can run, lowest first.
const std::vector<IsaLevel>& isa_levels_supported();

/// The level the kernels run at (chosen at the first call, then fixed): the
/// one NPBLU_ISA names, else the highest supported. When NPBLU_ISA is refused
/// (isa_error() is not empty) this is the highest supported level, and
/// runs are refused before they compute (lu/run/benchmark.cpp agrees on it).
IsaLevel active_isa();

/// Empty, or one line saying why NPBLU_ISA cannot be honoured, naming its value.
const std::string& isa_error();

}  // namespace npblu
