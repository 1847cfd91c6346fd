#include "lu/io/run_history.hpp"

#include <algorithm>

namespace npblu {

RunHistory::RunHistory(int ranks, int iterations)
    : column_begin(std::size_t(ranks) * iterations),
      column_end(column_begin.size()),
      compute(column_begin.size()),
      wait(column_begin.size()),
      migration(column_begin.size()),
      speed(column_begin.size()),
      on_cpu(column_begin.size()),
      run_delay(column_begin.size()),
      ranks_(ranks),
      iterations_(iterations) {}

std::vector<double> RunHistory::imbalance_by_iteration() const {
  std::vector<double> out;
  for (int it = 0; it < iterations_; ++it) out.push_back(window_imbalance(it, it + 1));
  return out;
}

double RunHistory::window_imbalance(int first, int last) const {
  first = std::max(first, 0);
  last = std::min(last, iterations_);
  if (last <= first || ranks_ == 0) return 1.0;
  double max = 0.0, sum = 0.0;
  for (int r = 0; r < ranks_; ++r) {
    double c = 0.0;
    for (int it = first; it < last; ++it) c += compute[index(it, r)];
    max = std::max(max, c);
    sum += c;
  }
  return sum > 0.0 ? max / (sum / ranks_) : 1.0;
}

std::vector<RankLoad> RunHistory::loads() const {
  std::vector<RankLoad> out;
  if (iterations_ == 0) return out;
  for (int r = 0; r < ranks_; ++r) {
    const std::size_t last = index(iterations_ - 1, r);
    RankLoad l{column_end[last] - column_begin[last], 0.0, 0.0};
    for (int it = 0; it < iterations_; ++it) {
      l.compute += compute[index(it, r)];
      l.wait += wait[index(it, r)];
    }
    out.push_back(l);
  }
  return out;
}

RunHistory gather_history(std::span<const IterationRecord> mine, const SpeedSchedule& emulation,
                          MPI_Comm comm, int first_iteration) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  constexpr int kFields = 7;                    // begin, end, compute, wait, migration, on cpu, run delay
  const int n = static_cast<int>(mine.size());  // the same on every rank
  std::vector<double> local;
  local.reserve(std::size_t(n) * kFields);
  for (const auto& rec : mine) {
    local.insert(local.end(), {double(rec.owned.begin), double(rec.owned.end), rec.compute, rec.wait,
                               rec.migration, rec.on_cpu, rec.run_delay});
  }
  std::vector<double> all(rank == 0 ? local.size() * size : 0);
  MPI_Gather(local.data(), static_cast<int>(local.size()), MPI_DOUBLE, all.data(),
             static_cast<int>(local.size()), MPI_DOUBLE, 0, comm);
  if (rank != 0) return {};
  RunHistory h(size, n);
  for (int r = 0; r < size; ++r) {
    for (int it = 0; it < n; ++it) {
      const double* f = &all[(std::size_t(r) * n + it) * kFields];
      const std::size_t i = h.index(it, r);
      h.column_begin[i] = static_cast<int>(f[0]);
      h.column_end[i] = static_cast<int>(f[1]);
      h.compute[i] = f[2];
      h.wait[i] = f[3];
      h.migration[i] = f[4];
      h.on_cpu[i] = f[5];
      h.run_delay[i] = f[6];
      h.speed[i] = emulation.speed(r, first_iteration + it);
    }
  }
  return h;
}

}  // namespace npblu
