// Micro-benchmark: the fixed-size 5x5 block operations of the LU sweeps,
// hand-written versus Eigen fixed-size matrices.
//
// Build (self-contained, from the repository root):
//   g++ -std=c++20 -O3 -march=native -DNDEBUG -isystem /usr/include/eigen3 runs/bench_block5.cpp -lbenchmark
//   -lpthread -o /tmp/bench_block5
//
// Every benchmark processes a batch of kBatch blocks (one row of a class A
// plane) per iteration; items/s counts blocks. Cases:
//  MatVec_*     y = A x, dense 5x5 (blts/buts' neighbour products)
//  Solve_*      A x = b by Gaussian elimination without pivoting (blts/buts'
//               diagonal block inversion), dense 5x5
//  LowerSolve_* the same with the diagonal block's actual structure (lower
//               triangular: first column, diagonal, last row), as in sweeps.cpp
//  Recurrence_* x_i = y_i - M_i x_{i-1} along the batch (pass B of sweeps.cpp:
//               a dependent chain, latency-bound)
//  MatVecSoA_*  y = A x for 8 points at once, one SIMD lane per point (how
//               pass A of sweeps.cpp applies blocks) versus Eigen point by point
#include <benchmark/benchmark.h>

#include <Eigen/Dense>
#include <array>
#include <cstddef>
#include <random>
#include <vector>

namespace {

constexpr int kBatch = 62;

using Mat5 = Eigen::Matrix<double, 5, 5, Eigen::RowMajor>;
using Vec5 = Eigen::Matrix<double, 5, 1>;

struct Data {
  std::vector<Mat5, Eigen::aligned_allocator<Mat5>> a;      // dense, diagonally dominant
  std::vector<Mat5, Eigen::aligned_allocator<Mat5>> lower;  // the diagonal block's structure
  std::vector<Vec5, Eigen::aligned_allocator<Vec5>> x;
  std::vector<std::array<double, 25>> a_raw, lower_raw;
  std::vector<std::array<double, 5>> x_raw;

  Data() : a(kBatch), lower(kBatch), x(kBatch), a_raw(kBatch), lower_raw(kBatch), x_raw(kBatch) {
    std::mt19937_64 rng(42);
    std::uniform_real_distribution<double> dist(-1.0, 1.0);
    for (int p = 0; p < kBatch; ++p) {
      for (int m = 0; m < 5; ++m) {
        for (int n = 0; n < 5; ++n) a[p](m, n) = 0.1 * dist(rng);
        a[p](m, m) += 2.0 + dist(rng) * 0.1;
        x[p](m) = dist(rng);
      }
      lower[p].setZero();
      for (int m = 0; m < 5; ++m) {
        lower[p](m, 0) = 0.1 * dist(rng);
        lower[p](m, m) = 2.0 + 0.1 * dist(rng);
        lower[p](4, m) = 0.1 * dist(rng);
      }
      lower[p](4, 4) = 2.0 + 0.1 * dist(rng);
      for (int m = 0; m < 5; ++m) {
        x_raw[p][m] = x[p](m);
        for (int n = 0; n < 5; ++n) {
          a_raw[p][5 * m + n] = a[p](m, n);
          lower_raw[p][5 * m + n] = lower[p](m, n);
        }
      }
    }
  }
};

const Data& data() {
  static const Data d;
  return d;
}

// ---------------------------------------------------------------------------
// Hand-written routines (fully unrolled by the compiler: fixed trip counts).

inline void matvec_hand(const double* __restrict a, const double* __restrict x, double* __restrict y) {
  for (int m = 0; m < 5; ++m)
    y[m] = a[5 * m] * x[0] + a[5 * m + 1] * x[1] + a[5 * m + 2] * x[2] + a[5 * m + 3] * x[3] +
           a[5 * m + 4] * x[4];
}

/// blts/buts: copy the block, forward elimination without pivoting (the
/// multipliers from one reciprocal per pivot), back substitution.
inline void solve_hand(const double* __restrict a, double* __restrict v) {
  double t[25];
  for (int q = 0; q < 25; ++q) t[q] = a[q];
#pragma GCC unroll 4
  for (int p = 0; p < 4; ++p) {
    const double inv = 1.0 / t[6 * p];
#pragma GCC unroll 4
    for (int m = p + 1; m < 5; ++m) {
      const double l = inv * t[5 * m + p];
#pragma GCC unroll 4
      for (int n = p + 1; n < 5; ++n) t[5 * m + n] -= l * t[5 * p + n];
      v[m] -= v[p] * l;
    }
  }
#pragma GCC unroll 5
  for (int m = 4; m >= 0; --m) {
    double s = v[m];
#pragma GCC unroll 4
    for (int n = m + 1; n < 5; ++n) s -= t[5 * m + n] * v[n];
    v[m] = s / t[6 * m];
  }
}

/// The diagonal block as sweeps.cpp solves it: lower triangular with
/// nonzeros in the first column, on the diagonal and in the last row.
inline void lower_solve_hand(const double* __restrict a, double* __restrict v) {
  const double inv0 = 1.0 / a[0];
  v[1] -= v[0] * (a[5] * inv0);
  v[2] -= v[0] * (a[10] * inv0);
  v[3] -= v[0] * (a[15] * inv0);
  v[4] -= v[0] * (a[20] * inv0);
  const double inv1 = 1.0 / a[6], inv2 = 1.0 / a[12], inv3 = 1.0 / a[18];
  v[4] -= v[1] * (a[21] * inv1) + v[2] * (a[22] * inv2) + v[3] * (a[23] * inv3);
  v[4] /= a[24];
  v[3] *= inv3;
  v[2] *= inv2;
  v[1] *= inv1;
  v[0] *= inv0;
}

/// Gaussian elimination without pivoting written with Eigen expressions.
inline Vec5 solve_eigen_rolled(Mat5 t, Vec5 v) {
  for (int p = 0; p < 4; ++p) {
    const double inv = 1.0 / t(p, p);
    for (int m = p + 1; m < 5; ++m) {
      const double l = inv * t(m, p);
      t.row(m).tail(4 - p) -= l * t.row(p).tail(4 - p);
      v(m) -= v(p) * l;
    }
  }
  return t.triangularView<Eigen::Upper>().solve(v);
}

// ---------------------------------------------------------------------------

void MatVec_Hand(benchmark::State& state) {
  const Data& d = data();
  std::vector<std::array<double, 5>> y(kBatch);
  for (auto _ : state) {
    for (int p = 0; p < kBatch; ++p) matvec_hand(d.a_raw[p].data(), d.x_raw[p].data(), y[p].data());
    benchmark::DoNotOptimize(y.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * kBatch);
}
BENCHMARK(MatVec_Hand);

void MatVec_Eigen(benchmark::State& state) {
  const Data& d = data();
  std::vector<Vec5, Eigen::aligned_allocator<Vec5>> y(kBatch);
  for (auto _ : state) {
    for (int p = 0; p < kBatch; ++p) y[p].noalias() = d.a[p] * d.x[p];
    benchmark::DoNotOptimize(y.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * kBatch);
}
BENCHMARK(MatVec_Eigen);

void Solve_Hand(benchmark::State& state) {
  const Data& d = data();
  std::vector<std::array<double, 5>> v(kBatch);
  for (auto _ : state) {
    for (int p = 0; p < kBatch; ++p) {
      v[p] = d.x_raw[p];
      solve_hand(d.a_raw[p].data(), v[p].data());
    }
    benchmark::DoNotOptimize(v.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * kBatch);
}
BENCHMARK(Solve_Hand);

void Solve_EigenRolled(benchmark::State& state) {
  const Data& d = data();
  std::vector<Vec5, Eigen::aligned_allocator<Vec5>> v(kBatch);
  for (auto _ : state) {
    for (int p = 0; p < kBatch; ++p) v[p] = solve_eigen_rolled(d.a[p], d.x[p]);
    benchmark::DoNotOptimize(v.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * kBatch);
}
BENCHMARK(Solve_EigenRolled);

void Solve_EigenPartialPivLu(benchmark::State& state) {
  const Data& d = data();
  std::vector<Vec5, Eigen::aligned_allocator<Vec5>> v(kBatch);
  for (auto _ : state) {
    for (int p = 0; p < kBatch; ++p) v[p] = d.a[p].partialPivLu().solve(d.x[p]);
    benchmark::DoNotOptimize(v.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * kBatch);
}
BENCHMARK(Solve_EigenPartialPivLu);

void LowerSolve_Hand(benchmark::State& state) {
  const Data& d = data();
  std::vector<std::array<double, 5>> v(kBatch);
  for (auto _ : state) {
    for (int p = 0; p < kBatch; ++p) {
      v[p] = d.x_raw[p];
      lower_solve_hand(d.lower_raw[p].data(), v[p].data());
    }
    benchmark::DoNotOptimize(v.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * kBatch);
}
BENCHMARK(LowerSolve_Hand);

void LowerSolve_EigenTriangular(benchmark::State& state) {
  const Data& d = data();
  std::vector<Vec5, Eigen::aligned_allocator<Vec5>> v(kBatch);
  for (auto _ : state) {
    for (int p = 0; p < kBatch; ++p) v[p] = d.lower[p].triangularView<Eigen::Lower>().solve(d.x[p]);
    benchmark::DoNotOptimize(v.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * kBatch);
}
BENCHMARK(LowerSolve_EigenTriangular);

void Recurrence_Hand(benchmark::State& state) {
  const Data& d = data();
  std::array<double, 5> x{};
  for (auto _ : state) {
    for (int p = 0; p < kBatch; ++p) {
      const double* m = d.a_raw[p].data();
      const double* y = d.x_raw[p].data();
      std::array<double, 5> n;
      for (int r = 0; r < 5; ++r)
        n[r] = (y[r] - (m[5 * r] * x[0] + m[5 * r + 1] * x[1])) -
               ((m[5 * r + 2] * x[2] + m[5 * r + 3] * x[3]) + m[5 * r + 4] * x[4]);
      x = n;
    }
    benchmark::DoNotOptimize(x.data());
    x = {};
  }
  state.SetItemsProcessed(state.iterations() * kBatch);
}
BENCHMARK(Recurrence_Hand);

void Recurrence_Eigen(benchmark::State& state) {
  const Data& d = data();
  Vec5 x = Vec5::Zero();
  for (auto _ : state) {
    for (int p = 0; p < kBatch; ++p) x = d.x[p] - d.a[p] * x;
    benchmark::DoNotOptimize(x.data());
    x.setZero();
  }
  state.SetItemsProcessed(state.iterations() * kBatch);
}
BENCHMARK(Recurrence_Eigen);

// One SIMD lane per point: 8 points' blocks stored entry-major (entry q of
// point t at [q][t]), as in the sweeps' pass A.
typedef double v8d __attribute__((vector_size(64)));

void MatVecSoA_Hand(benchmark::State& state) {
  const Data& d = data();
  constexpr int kGroups = (kBatch + 7) / 8;
  std::vector<v8d> a(std::size_t(kGroups) * 25), x(std::size_t(kGroups) * 5), y(std::size_t(kGroups) * 5);
  for (int p = 0; p < kGroups * 8; ++p) {
    const int src = p % kBatch;
    for (int q = 0; q < 25; ++q) a[std::size_t(p / 8) * 25 + q][p % 8] = d.a_raw[src][q];
    for (int m = 0; m < 5; ++m) x[std::size_t(p / 8) * 5 + m][p % 8] = d.x_raw[src][m];
  }
  for (auto _ : state) {
    for (int g = 0; g < kGroups; ++g) {
      const v8d* ag = &a[std::size_t(g) * 25];
      const v8d* xg = &x[std::size_t(g) * 5];
      v8d* yg = &y[std::size_t(g) * 5];
      for (int m = 0; m < 5; ++m)
        yg[m] = ag[5 * m] * xg[0] + ag[5 * m + 1] * xg[1] + ag[5 * m + 2] * xg[2] + ag[5 * m + 3] * xg[3] +
                ag[5 * m + 4] * xg[4];
    }
    benchmark::DoNotOptimize(y.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * kGroups * 8);
}
BENCHMARK(MatVecSoA_Hand);

}  // namespace

BENCHMARK_MAIN();
