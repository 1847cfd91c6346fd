// Micro-benchmark: the sweeps' pass B (the recurrence v(i) = y(i) - M(i) v(i -/+ 1)
// along a row, lu/sweeps.cpp) as it runs today, one row at a time with scalar
// arithmetic, against the same arithmetic with kLanes independent rows in the
// vector lanes (the rows of a hyperplane k + j = const, which do not depend on
// one another). It bounds what a sweep ordered by hyperplanes would gain in
// pass B; it leaves out what such a sweep would cost elsewhere (pass A's
// loads from kLanes rows, the hyperplanes' ends at a stripe's edges).
//
// Both versions read y and M (23 values a point) in the layout their pass A
// would write (today's: groups of kLanes points of one row, field-major;
// rows in lanes: point-major, one vector per field) and write the rows'
// values into point-major rows, as pass B writes rsd. The arithmetic is the
// kernels' own (pass_b_point, lu/sweep_formulas.hpp), compiled as they are
// (without contraction: the formula says which products fuse).
//
// Built by CMake as bench_pass_b_v3 and bench_pass_b_v4 (x86-64), or by hand:
//   g++ -std=c++20 -O3 -march=x86-64-v4 -ffp-contract=off -I. -DNPBLU_KERNEL_NS=level_bench
//       runs/bench_pass_b.cpp -o /tmp/bpb
// Run: bench_pass_b [points a row, default 62] [rounds, default 7]. Prints ns
// a point and row for each version (today's; rows in lanes scattered into the
// rows; rows in lanes kept in lanes), the versions alternating round by round,
// and the medians of the rounds' paired ratios against today's. Before timing
// it checks that the versions compute the same values.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "lu/sweep_formulas.hpp"

namespace {

constexpr int kLanes = npblu::NPBLU_KERNEL_NS::simd::kW;
using vd = npblu::NPBLU_KERNEL_NS::simd::vd;

constexpr int kM = 5;
constexpr int kFold = 23;  // y (5), then M's 18 nonzeros (lu/sweeps.cpp)

struct Rows {
  int points;
  std::vector<double> grouped;  // today's: [row][group][field][lane = point]
  std::vector<vd> lanes;        // rows in lanes: [point][field], lane = row
  std::vector<double> out;      // [row][point][component]
};

Rows make_rows(int points) {
  Rows r{points, {}, {}, {}};
  const int groups = (points + kLanes - 1) / kLanes;
  r.grouped.assign(std::size_t(kLanes) * groups * kFold * kLanes, 0.0);
  r.lanes.assign(std::size_t(points) * kFold, vd{});
  r.out.assign(std::size_t(kLanes) * (points + 1) * kM, 0.0);
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> dist(-1.0, 1.0);
  for (int row = 0; row < kLanes; ++row)
    for (int i = 0; i < points; ++i)
      for (int f = 0; f < kFold; ++f) {
        const double v = f < kM ? dist(rng) : 0.1 * dist(rng);  // |M| small: the recurrence stays bounded
        const int g = i / kLanes, t = i % kLanes;
        r.grouped[((std::size_t(row) * groups + g) * kFold + f) * kLanes + t] = v;
        r.lanes[std::size_t(i) * kFold + f][row] = v;
      }
  return r;
}

/// One point of the recurrence: x <- y - M x, the kernels' own formula
/// (lu/sweep_formulas.hpp), for a scalar row or rows in lanes.
template <class T, class Y, class Mf>
inline void step(T x[kM], Y y, Mf M) {
  npblu::NPBLU_KERNEL_NS::sweep_formulas::pass_b_point<T>(y, M, x);
}

/// Today's: the kLanes rows one after the other, scalar.
void rows_one_by_one(Rows& r) {
  const int groups = (r.points + kLanes - 1) / kLanes;
  for (int row = 0; row < kLanes; ++row) {
    double* o = r.out.data() + std::size_t(row) * (r.points + 1) * kM;
    double x[kM] = {o[0], o[1], o[2], o[3], o[4]};
    const double* fold = r.grouped.data() + std::size_t(row) * groups * kFold * kLanes;
    for (int i = 0; i < r.points; ++i) {
      const double* s = fold + std::size_t(i / kLanes) * kFold * kLanes + i % kLanes;
      step(
          x, [&](int m) { return s[m * kLanes]; }, [&](int q) { return s[(kM + q) * kLanes]; });
      double* p = o + kM * (i + 1);
      for (int m = 0; m < kM; ++m) p[m] = x[m];
    }
  }
}

/// Rows in lanes: the same arithmetic on kLanes rows at once.
void rows_in_lanes(Rows& r) {
  const std::size_t row_stride = std::size_t(r.points + 1) * kM;
  vd x[kM];
  for (int m = 0; m < kM; ++m)
    for (int t = 0; t < kLanes; ++t) x[m][t] = r.out[t * row_stride + m];
  for (int i = 0; i < r.points; ++i) {
    const vd* s = r.lanes.data() + std::size_t(i) * kFold;
    step(
        x, [&](int m) { return s[m]; }, [&](int q) { return s[kM + q]; });
    for (int t = 0; t < kLanes; ++t)
      for (int m = 0; m < kM; ++m) r.out[t * row_stride + kM * (i + 1) + m] = x[m][t];
  }
}

/// Rows in lanes, the values kept in lanes ([point][component], lane = row):
/// what the arithmetic costs without pass B's scatter into point-major rows.
void rows_in_lanes_kept(Rows& r, std::vector<vd>& kept) {
  vd x[kM] = {};
  for (int i = 0; i < r.points; ++i) {
    const vd* s = r.lanes.data() + std::size_t(i) * kFold;
    step(
        x, [&](int m) { return s[m]; }, [&](int q) { return s[kM + q]; });
    for (int m = 0; m < kM; ++m) kept[std::size_t(i) * kM + m] = x[m];
  }
}

template <class F>
double ns_per_point_row(F run, Rows& r, int reps) {
  const auto t0 = std::chrono::steady_clock::now();
  for (int k = 0; k < reps; ++k) {
    run(r);
    asm volatile("" : : "r"(r.out.data()) : "memory");
  }
  const std::chrono::duration<double, std::nano> dt = std::chrono::steady_clock::now() - t0;
  return dt.count() / (double(reps) * r.points * kLanes);
}

}  // namespace

int main(int argc, char** argv) {
  const int points = argc > 1 ? std::atoi(argv[1]) : 62;
  const int rounds = argc > 2 ? std::atoi(argv[2]) : 7;
  if (points < 1 || points > 100000 || rounds < 1) {
    std::fprintf(stderr, "bench_pass_b: points a row must be 1..100000 and rounds >= 1 (gave %s %s)\n",
                 argc > 1 ? argv[1] : "-", argc > 2 ? argv[2] : "-");
    return 2;
  }
  Rows r = make_rows(points);
  std::vector<vd> kept(std::size_t(points) * kM);
  auto kept_run = [&](Rows& rows) { rows_in_lanes_kept(rows, kept); };
  // The three must compute the same values (to rounding: contraction may differ).
  rows_one_by_one(r);
  const std::vector<double> expect = r.out;
  rows_in_lanes(r);
  kept_run(r);
  const std::size_t row_stride = std::size_t(points + 1) * kM;
  double worst = 0;
  for (std::size_t n = 0; n < expect.size(); ++n) worst = std::max(worst, std::abs(r.out[n] - expect[n]));
  for (int t = 0; t < kLanes; ++t)
    for (int i = 0; i < points; ++i)
      for (int m = 0; m < kM; ++m)
        worst = std::max(
            worst, std::abs(kept[std::size_t(i) * kM + m][t] - expect[t * row_stride + kM * (i + 1) + m]));
  if (!(worst <= 1e-12)) {
    std::fprintf(stderr, "bench_pass_b: the versions differ by %g\n", worst);
    return 1;
  }
  const int reps = std::max(1, 20000000 / (points * kLanes));
  std::vector<double> scalar, lanes, kept_ns, ratio, kept_ratio;
  for (int k = 0; k < rounds; ++k) {
    const bool scalar_first = k % 2 == 0;
    double a = 0;
    if (scalar_first) a = ns_per_point_row(rows_one_by_one, r, reps);
    const double b = ns_per_point_row(rows_in_lanes, r, reps);
    const double c = ns_per_point_row(kept_run, r, reps);
    if (!scalar_first) a = ns_per_point_row(rows_one_by_one, r, reps);
    scalar.push_back(a), lanes.push_back(b), kept_ns.push_back(c);
    ratio.push_back(a / b), kept_ratio.push_back(a / c);
  }
  auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  };
  // "median (min-max)" of a series, with the given precision
  auto spread = [&](const std::vector<double>& v, int digits) {
    char text[96];
    std::snprintf(text, sizeof text, "%.*f (%.*f-%.*f)", digits, median(v), digits,
                  *std::min_element(v.begin(), v.end()), digits, *std::max_element(v.begin(), v.end()));
    return std::string(text);
  };
  std::printf(
      "pass B, %d points a row, %d rows (lanes), %d rounds: ns a point and row, median (min-max);"
      " results differ by at most %g\n",
      points, kLanes, rounds, worst);
  std::printf("  one row at a time, scalar: %s\n", spread(scalar, 3).c_str());
  std::printf("  rows in lanes, scattered:  %s\n", spread(lanes, 3).c_str());
  std::printf("  rows in lanes, kept in lanes: %s\n", spread(kept_ns, 3).c_str());
  std::printf("  scalar / lanes, median of the rounds' ratios: %s; scalar / kept in lanes: %s\n",
              spread(ratio, 2).c_str(), spread(kept_ratio, 2).c_str());
  return 0;
}
