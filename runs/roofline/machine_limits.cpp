// The machine's own limits for runs/roofline.py: STREAM-like triad bandwidth
// (arrays far beyond the last-level cache, and arrays that fit in L1) and the
// peak double-precision rate of one core at the instruction-set level it is
// compiled for (runs/roofline.py compiles it with -march=x86-64, x86-64-v3,
// x86-64-v4; LANES is the vector width in doubles). Prints one JSON line.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#ifndef LANES
#define LANES 2
#endif

namespace {
using Vec = double __attribute__((vector_size(LANES * sizeof(double))));

double seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// Best of `repeats` timings of `sweeps` triads a = b + s c over n doubles: bytes per second (24 per element).
double triad_bandwidth(std::size_t n, int sweeps, int repeats) {
  std::vector<double> a(n, 1.0), b(n, 2.0), c(n, 3.0);
  double best = 1e30;
  for (int r = 0; r < repeats; ++r) {
    const double t0 = seconds();
    for (int s = 0; s < sweeps; ++s) {
      const double q = 1.0 + 1e-9 * s;
#pragma GCC ivdep
      for (std::size_t i = 0; i < n; ++i) a[i] = b[i] + q * c[i];
      asm volatile("" : : "r"(a.data()) : "memory");
    }
    best = std::min(best, seconds() - t0);
  }
  return 24.0 * static_cast<double>(n) * sweeps / best;
}

// Twelve independent multiply-add chains in vector registers: enough to cover
// the latency of the FMA units (or of the separate mul and add without FMA).
double peak_flops(long steps, int repeats) {
  constexpr int kChains = 12;
  Vec acc[kChains];
  const Vec zero = {}, mul = zero + 0.999999, add = zero + 1e-7;  // scalars broadcast to every lane
  double best = 1e30;
  for (int r = 0; r < repeats; ++r) {
    for (int c = 0; c < kChains; ++c) acc[c] = zero + (1.0 + c);
    const double t0 = seconds();
    for (long s = 0; s < steps; ++s) {
      for (int c = 0; c < kChains; ++c) acc[c] = acc[c] * mul + add;
      asm volatile("" : "+x"(acc[0]), "+x"(acc[1]), "+x"(acc[2]), "+x"(acc[3]), "+x"(acc[4]), "+x"(acc[5]));
    }
    best = std::min(best, seconds() - t0);
    double sink = 0.0;
    for (int c = 0; c < kChains; ++c) sink += acc[c][0];
    if (sink == 42.0) std::puts("");  // keep the chains alive
  }
  return 2.0 * kChains * LANES * static_cast<double>(steps) / best;
}
}  // namespace

int main(int argc, char** argv) {
  const double scale = argc > 1 ? std::atof(argv[1]) : 1.0;  // shorter runs for a smoke test
  const double memory =
      triad_bandwidth(static_cast<std::size_t>(1) << 24, static_cast<int>(10 * scale) + 1, 3);
  const double cache = triad_bandwidth(1024, static_cast<int>(200000 * scale) + 1, 5);
  const double flops = peak_flops(static_cast<long>(20000000 * scale) + 1, 3);
  std::printf(
      "{\"lanes\": %d, \"triad_memory_bytes_per_s\": %.6g, \"triad_l1_bytes_per_s\": %.6g, "
      "\"peak_flops_per_s\": %.6g}\n",
      LANES, memory, cache, flops);
  return 0;
}
