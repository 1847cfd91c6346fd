#pragma once
// One point of kW rows to and from one vector per component, lane t holding
// row t's value: the sweeps by hyperplanes (lu/sweeps.cpp) put a row of each
// of kW planes in the lanes. Per level (lu/kernel_levels.hpp), like
// lu/simd.hpp. Only the shuffles differ between widths; the values moved are
// the same, so the sweeps' bits do not depend on which version ran.
#include "lu/simd.hpp"

#if defined(__AVX__)
#include <immintrin.h>
#endif

namespace npblu::NPBLU_KERNEL_NS::simd {

namespace lanes_detail {

constexpr int kM = 5;  // components of a point

/// A shuffle mask spelt as its lanes.
template <int... L>
struct Lanes {
  static constexpr int lane(int t) {
    constexpr int lanes[] = {L...};
    return lanes[t];
  }
};

#if NPBLU_SIMD_LANES == 4

/// 4 x 4 transpose: lane t of out[m] is lane m of in[t] (four unpacks within
/// 128-bit halves, four swaps of halves).
inline void transpose4(const vd in[4], vd out[4]) {
  const vd ab_even = shuffle<Lanes<0, 4, 2, 6>>(in[0], in[1]);  // a0 b0 a2 b2
  const vd ab_odd = shuffle<Lanes<1, 5, 3, 7>>(in[0], in[1]);   // a1 b1 a3 b3
  const vd cd_even = shuffle<Lanes<0, 4, 2, 6>>(in[2], in[3]);
  const vd cd_odd = shuffle<Lanes<1, 5, 3, 7>>(in[2], in[3]);
  out[0] = shuffle<Lanes<0, 1, 4, 5>>(ab_even, cd_even);
  out[1] = shuffle<Lanes<0, 1, 4, 5>>(ab_odd, cd_odd);
  out[2] = shuffle<Lanes<2, 3, 6, 7>>(ab_even, cd_even);
  out[3] = shuffle<Lanes<2, 3, 6, 7>>(ab_odd, cd_odd);
}
#endif

#if NPBLU_SIMD_LANES == 8
/// Rows t and t+4's four doubles at offset o, as the 256-bit halves of one
/// vector. (GCC 12's own intrinsics for inserting or extracting a half warn
/// of an uninitialised operand when inlined; the masked forms do not.)
inline vd row_pair(const double* const p[8], int t, std::size_t o) {
  const __m512d lo = _mm512_castpd256_pd512(_mm256_loadu_pd(p[t] + o));
  return (vd)_mm512_mask_broadcast_f64x4(lo, 0xF0, _mm256_loadu_pd(p[t + 4] + o));
}

/// Two 4 x 4 transposes at once, one in each 256-bit half: lane t (t < 4) of
/// out[m] is lane m of in[t], lane t + 4 is lane m + 4 of in[t] (unpacks
/// within 128-bit lanes, then two-source permutations).
inline void transpose4_halves(const vd in[4], vd out[4]) {
  const auto even = [](vd a, vd b) { return _mm512_maskz_unpacklo_pd(0xFF, (__m512d)a, (__m512d)b); };
  const auto odd = [](vd a, vd b) { return _mm512_maskz_unpackhi_pd(0xFF, (__m512d)a, (__m512d)b); };
  const __m512i low = _mm512_set_epi64(13, 12, 5, 4, 9, 8, 1, 0);
  const __m512i high = _mm512_set_epi64(15, 14, 7, 6, 11, 10, 3, 2);
  const __m512d ab_even = even(in[0], in[1]), ab_odd = odd(in[0], in[1]);
  const __m512d cd_even = even(in[2], in[3]), cd_odd = odd(in[2], in[3]);
  out[0] = (vd)_mm512_permutex2var_pd(ab_even, low, cd_even);
  out[1] = (vd)_mm512_permutex2var_pd(ab_odd, low, cd_odd);
  out[2] = (vd)_mm512_permutex2var_pd(ab_even, high, cd_even);
  out[3] = (vd)_mm512_permutex2var_pd(ab_odd, high, cd_odd);
}
#endif

}  // namespace lanes_detail

/// The five components of point i of the kW rows p[t] (5 doubles a point).
inline void load_lanes(const double* const p[kW], int i, vd out[5]) {
  const std::size_t o = std::size_t(5) * i;
#if NPBLU_SIMD_LANES == 4
  const vd in[4] = {load(p[0] + o), load(p[1] + o), load(p[2] + o), load(p[3] + o)};
  lanes_detail::transpose4(in, out);
  out[4] = vd{p[0][o + 4], p[1][o + 4], p[2][o + 4], p[3][o + 4]};
#elif NPBLU_SIMD_LANES == 8
  using lanes_detail::row_pair;
  const vd in[4] = {row_pair(p, 0, o), row_pair(p, 1, o), row_pair(p, 2, o), row_pair(p, 3, o)};
  lanes_detail::transpose4_halves(in, out);
  out[4] = vd{p[0][o + 4], p[1][o + 4], p[2][o + 4], p[3][o + 4],
              p[4][o + 4], p[5][o + 4], p[6][o + 4], p[7][o + 4]};
#else
  for (int m = 0; m < 5; ++m) {
    double lanes[kW];
    for (int t = 0; t < kW; ++t) lanes[t] = p[t][o + m];
    out[m] = load(lanes);
  }
#endif
}

/// Point i's five components x[m] into the kW rows p[t] (lane t to row t).
inline void store_lanes(double* const p[kW], int i, const vd x[5]) {
  const std::size_t o = std::size_t(5) * i;
#if NPBLU_SIMD_LANES == 4
  vd rows[4];
  lanes_detail::transpose4(x, rows);
  for (int t = 0; t < 4; ++t) store(p[t] + o, rows[t]);
#elif NPBLU_SIMD_LANES == 8
  vd rows[4];  // rows t and t + 4, components 0-3
  lanes_detail::transpose4_halves(x, rows);
  for (int t = 0; t < 4; ++t) {
    _mm256_storeu_pd(p[t] + o, _mm512_maskz_extractf64x4_pd(0xF, (__m512d)rows[t], 0));
    _mm256_storeu_pd(p[t + 4] + o, _mm512_maskz_extractf64x4_pd(0xF, (__m512d)rows[t], 1));
  }
#else
  for (int t = 0; t < kW; ++t)
    for (int m = 0; m < 4; ++m) p[t][o + m] = x[m][t];
#endif
  for (int t = 0; t < kW; ++t) p[t][o + 4] = x[4][t];
}

/// store_lanes for the lanes whose `active` is set only.
inline void store_lanes_masked(double* const p[kW], int i, const vd x[5], const bool active[kW]) {
  const std::size_t o = std::size_t(5) * i;
  for (int t = 0; t < kW; ++t)
    if (active[t])
      for (int m = 0; m < 5; ++m) p[t][o + m] = x[m][t];
}

}  // namespace npblu::NPBLU_KERNEL_NS::simd
