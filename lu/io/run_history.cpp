#include "lu/io/run_history.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "balance/diffusive_balancer.hpp"
#include "balance/min_max_partition.hpp"
#include "balance/partition.hpp"
#include "lu/mpi/communicator.hpp"

namespace npblu {

RunHistory::RunHistory(int ranks, int iterations)
    : ranks_(ranks),
      iterations_(iterations),
      values_(iteration_record_fields().size(), std::vector<double>(std::size_t(ranks) * iterations)) {}

void RunHistory::set(int iteration, int rank, const IterationRecord& record) {
  const auto fields = iteration_record_fields();
  const std::size_t i = index(iteration, rank);
  for (std::size_t f = 0; f < fields.size(); ++f) values_[f][i] = fields[f].read(record);
}

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
    for (int it = first; it < last; ++it) c += at(RecordField::compute, it, r);
    max = std::max(max, c);
    sum += c;
  }
  return sum > 0.0 ? max / (sum / ranks_) : 1.0;
}

double RunHistory::window_bottleneck_ratio(int first, int last, std::span<const int> max_widths) const {
  first = std::max(first, 0);
  last = std::min(last, iterations_);
  constexpr double kNone = std::numeric_limits<double>::quiet_NaN();
  if (last <= first || ranks_ == 0) return kNone;
  std::vector<double> cost(ranks_);
  double slowest = 0.0;
  int columns = 0;
  for (int r = 0; r < ranks_; ++r) {
    double compute = 0.0, column_iterations = 0.0;
    for (int it = first; it < last; ++it) {
      compute += at(RecordField::compute, it, r);
      column_iterations += at(RecordField::column_end, it, r) - at(RecordField::column_begin, it, r);
    }
    if (!(compute > 0.0) || !std::isfinite(compute) || !(column_iterations > 0.0)) return kNone;
    cost[r] = compute / column_iterations;
    slowest = std::max(slowest, compute);
    columns += static_cast<int>(at(RecordField::column_end, last - 1, r) -
                                at(RecordField::column_begin, last - 1, r));
  }
  try {
    const double best = best_bottleneck(cost, columns, kMinimumColumnWidth, max_widths);
    return slowest / ((last - first) * best);
  } catch (const std::invalid_argument&) {
    return kNone;  // a report never fails on its quality figure (limits that no partition fits)
  }
}

double RunHistory::lowest_core_share() const {
  double lowest = 1.0;
  for (int r = 0; r < ranks_; ++r) {
    double on = 0.0, delay = 0.0;
    for (int it = 0; it < iterations_; ++it) {
      on += at(RecordField::on_cpu, it, r);
      delay += at(RecordField::run_delay, it, r);
    }
    lowest = std::min(lowest, core_share(on, delay));
  }
  return lowest;
}

std::vector<double> RunHistory::bottleneck_ratio_by_iteration(std::span<const int> max_widths) const {
  std::vector<double> out;
  for (int it = 0; it < iterations_; ++it) out.push_back(window_bottleneck_ratio(it, it + 1, max_widths));
  return out;
}

std::vector<RankLoad> RunHistory::loads() const {
  std::vector<RankLoad> out;
  if (iterations_ == 0) return out;
  for (int r = 0; r < ranks_; ++r) {
    const int last = iterations_ - 1;
    RankLoad l;
    l.columns =
        static_cast<int>(at(RecordField::column_end, last, r) - at(RecordField::column_begin, last, r));
    for (int it = 0; it < iterations_; ++it) {
      l.compute += at(RecordField::compute, it, r);
      l.wait += at(RecordField::wait, it, r);
      l.slept_iterations += at(RecordField::slept, it, r) != 0.0 ? 1 : 0;
    }
    out.push_back(l);
  }
  return out;
}

RunHistory gather_history(std::span<const IterationRecord> mine, MPI_Comm comm, Waited wait) {
  const Communicator c = Communicator::borrow(comm);
  const int rank = c.rank(), size = c.size();
  const auto fields = iteration_record_fields();
  const std::size_t per_record = fields.size();
  const int n = static_cast<int>(mine.size());  // the same on every rank
  std::vector<double> local;
  local.reserve(std::size_t(n) * per_record);
  for (const auto& rec : mine)
    for (const auto& field : fields) local.push_back(field.read(rec));
  const std::vector<double> all = c.gather_each(std::span<const double>(local), 0, wait);
  if (rank != 0) return {};
  RunHistory h(size, n);
  for (int r = 0; r < size; ++r) {
    for (int it = 0; it < n; ++it) {
      const double* v = &all[(std::size_t(r) * n + it) * per_record];
      for (std::size_t f = 0; f < per_record; ++f) h.values_[f][h.index(it, r)] = v[f];
    }
  }
  return h;
}

nlohmann::json history_json(const RunHistory& h) {
  nlohmann::json out = nlohmann::json::object();
  const auto fields = iteration_record_fields();
  for (std::size_t f = 0; f < fields.size(); ++f) {
    const auto v = h.values(f);
    nlohmann::json rows = nlohmann::json::array();
    for (int it = 0; it < h.iterations(); ++it) {
      nlohmann::json row = nlohmann::json::array();
      for (int r = 0; r < h.ranks(); ++r) {
        const double x = v[h.index(it, r)];
        if (fields[f].type == RecordType::integer)
          row.push_back(static_cast<int>(x));
        else
          row.push_back(x);
      }
      rows.push_back(std::move(row));
    }
    out[fields[f].json_name] = std::move(rows);
  }
  return out;
}

}  // namespace npblu
