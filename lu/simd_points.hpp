#pragma once
// kW points of the fields' layout (five components of a point adjacent, m
// fastest) to and from one vector per component, in registers: the sweeps
// and rhs read u and rsd rows this way, and rhs writes rsd rows back.
// Per level (lu/kernel_levels.hpp), like lu/simd.hpp.
#include "lu/simd.hpp"

#if defined(__AVX__)
#include <immintrin.h>
#endif

namespace npblu::NPBLU_KERNEL_NS::simd {

namespace points_detail {

constexpr int kM = 5;  // components of a point

// Gathering: component m of point t is double 5t+m, lane (5t+m) % kW of
// l[(5t+m) / kW]. For fixed m these lanes are all different (5 and kW are
// coprime), so a blend of the five vectors and one permutation gather them.
constexpr int kInv5 = kW == 8 ? 5 : 1;  // 5^-1 mod kW
constexpr int point_in_lane(int m, int lane) { return (((lane - m) % kW + kW) * kInv5) % kW; }
constexpr int source_of(int m, int lane) { return (5 * point_in_lane(m, lane) + m) / kW; }

/// Lanes taken from l[s] when gathering component m.
template <int m, int s>
struct BlendMask {
  static constexpr int lane(int t) { return source_of(m, t) == s ? kW + t : t; }
};
/// Lane t <- lane (5t+m) % kW.
template <int m>
struct GatherMask {
  static constexpr int lane(int t) { return (5 * t + m) % kW; }
};

template <int m>
inline vd component(const vd l[kM]) {
  vd r = shuffle<BlendMask<m, 1>>(l[0], l[1]);
  r = shuffle<BlendMask<m, 2>>(r, l[2]);
  r = shuffle<BlendMask<m, 3>>(r, l[3]);
  r = shuffle<BlendMask<m, 4>>(r, l[4]);
  return permute<GatherMask<m>>(r);
}

/// The five components of the kW points whose 5 kW doubles are l[0..4].
inline void components(const vd l[kM], vd out[kM]) {
  out[0] = component<0>(l);
  out[1] = component<1>(l);
  out[2] = component<2>(l);
  out[3] = component<3>(l);
  out[4] = component<4>(l);
}

// Scattering: lane L of output vector s is double d = s kW + L, component
// d % 5 of point d / 5. Step m (1..4) brings in component m's lanes; step 1
// also places component 0's (from its first operand).
template <int s, int m>
struct InterleaveMask {
  static constexpr int lane(int L) {
    const int d = s * kW + L;
    if (d % kM == m) return kW + d / kM;
    if (m == 1 && d % kM == 0) return d / kM;
    return L;
  }
};

template <int s>
inline vd interleaved(const vd comp[kM]) {
  vd r = shuffle<InterleaveMask<s, 1>>(comp[0], comp[1]);
  r = shuffle<InterleaveMask<s, 2>>(r, comp[2]);
  r = shuffle<InterleaveMask<s, 3>>(r, comp[3]);
  return shuffle<InterleaveMask<s, 4>>(r, comp[4]);
}

}  // namespace points_detail

#if NPBLU_SIMD_LANES == 4
namespace points_detail {

/// A shuffle mask spelt as its lanes.
template <int... L>
struct Lanes {
  static constexpr int lane(int t) {
    constexpr int lanes[] = {L...};
    return lanes[t];
  }
};

/// load_points at 4 lanes (AVX2): the loads at the points' starts (p, p+5,
/// p+10, p+15) hold components 0-3 of one point each, and a 4 x 4 transpose
/// (four unpacks within 128-bit halves, four swaps of halves) makes them
/// components; component 4 (p[4], p[9], p[14], p[19]) is lane t of the load
/// at p+4+4t, three blends. 11 shuffles where the general case takes 25 (four
/// blends and a permutation a component), in pass A's four gathers a group:
/// class W at v3, jacobians 0.29 -> 0.25 s. The same values, so the same bits.
inline void load_points_4(const double* p, vd out[kM]) {
  const vd a = load(p), b = load(p + 5), c = load(p + 10), d = load(p + 15);
  const vd ab_even = shuffle<Lanes<0, 4, 2, 6>>(a, b);  // a0 b0 a2 b2
  const vd ab_odd = shuffle<Lanes<1, 5, 3, 7>>(a, b);   // a1 b1 a3 b3
  const vd cd_even = shuffle<Lanes<0, 4, 2, 6>>(c, d);  // c0 d0 c2 d2
  const vd cd_odd = shuffle<Lanes<1, 5, 3, 7>>(c, d);   // c1 d1 c3 d3
  out[0] = shuffle<Lanes<0, 1, 4, 5>>(ab_even, cd_even);
  out[1] = shuffle<Lanes<0, 1, 4, 5>>(ab_odd, cd_odd);
  out[2] = shuffle<Lanes<2, 3, 6, 7>>(ab_even, cd_even);
  out[3] = shuffle<Lanes<2, 3, 6, 7>>(ab_odd, cd_odd);
  const vd e01 = shuffle<Lanes<0, 5, 2, 3>>(load(p + 4), load(p + 8));
  const vd e23 = shuffle<Lanes<0, 1, 2, 7>>(load(p + 12), load(p + 16));
  out[4] = shuffle<Lanes<0, 1, 6, 7>>(e01, e23);
}

}  // namespace points_detail
#endif

/// The five components of the kW consecutive points starting at p.
inline void load_points(const double* p, vd out[5]) {
#if NPBLU_SIMD_LANES == 4
  points_detail::load_points_4(p, out);
#else
  vd l[5];
  for (int s = 0; s < 5; ++s) l[s] = load(p + s * kW);
  points_detail::components(l, out);
#endif
}

namespace points_detail {

/// Doubles base..base+kW-1 of a group: those below `valid` from p, the
/// others from fill. Masked loads (AVX, AVX-512) skip the other lanes'
/// memory without faulting; elsewhere the vector is built lane by lane.
inline vd masked_vector(const double* p, int base, int valid, const double* fill) {
  if (base + kW <= valid) return load(p + base);
  if (base >= valid) return load(fill + base);
#if NPBLU_SIMD_LANES == 8
  const auto bits = static_cast<__mmask8>((1u << (valid - base)) - 1u);
  return (vd)_mm512_mask_loadu_pd((__m512d)load(fill + base), bits, p + base);
#elif NPBLU_SIMD_LANES == 4 && defined(__AVX__)
  const auto in = [&](int t) -> long long { return base + t < valid ? -1 : 0; };
  const __m256i mask = _mm256_set_epi64x(in(3), in(2), in(1), in(0));
  return (vd)_mm256_blendv_pd((__m256d)load(fill + base), _mm256_maskload_pd(p + base, mask), (__m256d)mask);
#else
  vd v = load(fill + base);
  for (int t = 0; t < valid - base; ++t) v[t] = p[base + t];
  return v;
#endif
}

}  // namespace points_detail

/// load_points where only the first `valid` of the kW points' 5 kW doubles
/// at p may be read (a group past a row's end); the others are fill's (5 kW
/// doubles). Copying the row's doubles into a padded buffer instead made
/// each vector load of it wait for the copy's stores: with the one partial
/// group of a row so copied, class B's rows (nx = 102) at 8 lanes took the
/// sweeps' pass A an eighth longer (docs/performance.md). The same values,
/// so the same bits.
inline void load_points_masked(const double* p, int valid, const double* fill, vd out[5]) {
  vd l[5];
  for (int s = 0; s < 5; ++s) l[s] = points_detail::masked_vector(p, s * kW, valid, fill);
  points_detail::components(l, out);
}

/// The kW points' five components (one vector each) in the fields' layout:
/// out[s] holds doubles s kW .. s kW + kW - 1 of the 5 kW.
inline void interleave_points(const vd comp[5], vd out[5]) {
  using points_detail::interleaved;
  out[0] = interleaved<0>(comp);
  out[1] = interleaved<1>(comp);
  out[2] = interleaved<2>(comp);
  out[3] = interleaved<3>(comp);
  out[4] = interleaved<4>(comp);
}

}  // namespace npblu::NPBLU_KERNEL_NS::simd
