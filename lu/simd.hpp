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

#if defined(__AVX__)
#include <immintrin.h>
#endif

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

/// a in every lane: a broadcast. (0 + a would be an addition at run time,
/// and GCC 12 builds a lane-by-lane loop at 8 lanes with a masked insert a
/// lane.)
inline vd splat(double a) {
#if NPBLU_SIMD_LANES == 8
  return (vd)_mm512_set1_pd(a);
#elif NPBLU_SIMD_LANES == 4 && defined(__AVX__)
  return (vd)_mm256_set1_pd(a);
#else
  return vd{a, a};
#endif
}

// Multiply-adds written out. The sweeps are compiled without contraction
// (CMakeLists.txt): which products fuse is said here, in the source, so that
// every width and both sweep kernels (lu/sweeps.cpp) round alike. On levels
// with FMA the operation is fused (rounded once), elsewhere a multiply and
// an add.

/// a * b + c.
inline vd fma(vd a, vd b, vd c) {
#if defined(__FMA__) && NPBLU_SIMD_LANES == 8
  return (vd)_mm512_fmadd_pd((__m512d)a, (__m512d)b, (__m512d)c);
#elif defined(__FMA__) && NPBLU_SIMD_LANES == 4
  return (vd)_mm256_fmadd_pd((__m256d)a, (__m256d)b, (__m256d)c);
#else
  return a * b + c;
#endif
}
inline double fma(double a, double b, double c) {
#if defined(__FMA__)
  return __builtin_fma(a, b, c);
#else
  return a * b + c;
#endif
}
inline vd fma(double a, vd b, vd c) { return fma(splat(a), b, c); }

/// c - a * b.
inline vd fnma(vd a, vd b, vd c) { return fma(-a, b, c); }
inline double fnma(double a, double b, double c) { return fma(-a, b, c); }
inline vd fnma(double a, vd b, vd c) { return fma(splat(-a), b, c); }

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
