#pragma once
// Vectors of kW doubles for the sweeps, in GNU vector extensions: GCC and
// clang accept them (and so do the compilers built on clang: icpx, AOCC, Cray
// CCE, AMD/ROCm). Arithmetic, loads and stores are the same code for all;
// only lane permutations are spelled differently (GCC: __builtin_shuffle with
// a mask vector; clang: __builtin_shufflevector with constant indices), so a
// permutation is given as a mask type whose lane(t) says where lane t comes
// from, and shuffle/permute spell it for the compiler at hand.
#include <cstddef>
#include <cstdint>
#include <utility>

#if !defined(__GNUC__) && !defined(__clang__)
#error "lu/simd.hpp needs GNU vector extensions (GCC, clang or a clang-based compiler)"
#endif

// The lanes of the level this source is compiled for, as a macro too, for
// code that exists at one width only (lu/simd_points.hpp).
#if defined(__AVX512F__)
#define NPBLU_SIMD_LANES 8
#elif defined(__AVX__)
#define NPBLU_SIMD_LANES 4
#else
#define NPBLU_SIMD_LANES 2
#endif

// In a level's namespace (lu/kernel_levels.hpp): kW differs between levels.
namespace npblu::NPBLU_KERNEL_NS::simd {

constexpr int kW = NPBLU_SIMD_LANES;
using vd = double __attribute__((vector_size(kW * sizeof(double))));

inline vd load(const double* p) {
  vd v;
  __builtin_memcpy(&v, p, sizeof v);
  return v;
}
inline void store(double* p, vd v) { __builtin_memcpy(p, &v, sizeof v); }

namespace detail {
#if !defined(__clang__)
using vi = std::int64_t __attribute__((vector_size(kW * sizeof(std::int64_t))));
#endif

template <class Mask, std::size_t... T>
inline vd shuffle(vd a, vd b, std::index_sequence<T...>) {
#if defined(__clang__)
  return __builtin_shufflevector(a, b, Mask::lane(int(T))...);
#else
  constexpr vi mask{Mask::lane(int(T))...};
  return __builtin_shuffle(a, b, mask);
#endif
}

template <class Mask, std::size_t... T>
inline vd permute(vd a, std::index_sequence<T...>) {
#if defined(__clang__)
  return __builtin_shufflevector(a, a, Mask::lane(int(T))...);
#else
  constexpr vi mask{Mask::lane(int(T))...};
  return __builtin_shuffle(a, mask);
#endif
}
}  // namespace detail

/// Lane t of the result is lane Mask::lane(t) of the 2*kW lanes (a, b).
template <class Mask>
inline vd shuffle(vd a, vd b) {
  return detail::shuffle<Mask>(a, b, std::make_index_sequence<kW>{});
}

/// Lane t of the result is lane Mask::lane(t) (< kW) of a.
template <class Mask>
inline vd permute(vd a) {
  return detail::permute<Mask>(a, std::make_index_sequence<kW>{});
}

}  // namespace npblu::NPBLU_KERNEL_NS::simd
