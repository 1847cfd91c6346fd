#include "balance/balancer_session.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>

namespace npblu {

double measured_imbalance(std::span<const WindowReport> reports) {
  double max = 0.0, sum = 0.0;
  for (const auto& r : reports) {
    const double c = std::accumulate(r.samples.compute.begin(), r.samples.compute.end(), 0.0);
    max = std::max(max, c);
    sum += c;
  }
  return sum > 0.0 ? max / (sum / reports.size()) : 0.0;
}

PredictedImbalance predicted_imbalance(const BalanceDecision& d) {
  const double mean = d.predicted_mean, mean_after = d.predicted_mean_after;
  if (!(mean > 0.0) || !(mean_after > 0.0)) return {};
  return {d.predicted_before / mean, d.predicted_after / mean_after};
}

PredictedQuality predicted_quality(const BalanceDecision& d) {
  const double best = d.predicted_best;
  if (!(best > 0.0)) return {};
  return {d.predicted_before / best, d.predicted_after / best};
}

BalancerSession::BalancerSession(BalancerSettings settings, Partition start)
    : balancer_(settings),
      current_(start),
      previous_(start),
      last_{start, std::vector<int>(std::max(0, start.ranks() - 1), 0)} {}

double BalancerSession::step_price() const {
  if (prices_.empty()) return 0.0;
  const auto first = prices_.end() - std::min<std::ptrdiff_t>(kPriceMemory, prices_.size());
  return std::accumulate(first, prices_.end(), 0.0) / static_cast<double>(prices_.end() - first);
}

void BalancerSession::record_price_and_outcome(std::span<const WindowReport> reports) {
  if (!awaiting_outcome_) return;
  awaiting_outcome_ = false;
  // Every rank waits for the slowest one's migration: that is the price.
  double paid = 0.0;
  for (const auto& r : reports) paid = std::max(paid, r.migration_seconds);
  DecisionRecord& rec = log_.back();
  rec.price_paid = paid;
  rec.measured_after = measured_imbalance(reports);
  if (paid > 0.0) prices_.push_back(paid);
}

void BalancerSession::adapt_stride(std::span<const WindowReport> reports) {
  // A rank's decision time includes waiting in the gather for the last rank
  // to arrive (imbalance, not deciding): the last to arrive, the least
  // measured time, is what deciding costs on the critical path.
  double decision = std::numeric_limits<double>::infinity(), window = 0.0;
  for (const auto& r : reports) {
    decision = std::min(decision, r.decision_seconds);
    const double busy = std::accumulate(r.samples.compute.begin(), r.samples.compute.end(), 0.0) +
                        std::accumulate(r.samples.wait.begin(), r.samples.wait.end(), 0.0);
    window = std::max(window, busy);
  }
  if (!(decision > 0.0) || !std::isfinite(decision) || !(window > 0.0)) return;  // unmeasured (lu-sim)
  const double share = decision / (window + decision);
  // Two expensive decisions in a row: one descheduled rank is no reason.
  expensive_in_a_row_ = share > kMaxDecisionShare ? expensive_in_a_row_ + 1 : 0;
  if (expensive_in_a_row_ >= 2 && stride_ < kMaxStride) {
    stride_ *= 2;
    expensive_in_a_row_ = 0;
  }
  if (share < kMaxDecisionShare / 4 && stride_ > 1) stride_ /= 2;
}

namespace {
// 2: the stripes' error; 3: samples since the speeds changed; 4: a marginal step wanted (1-3 are read too)
constexpr double kStateVersion = 4.0;
}  // namespace

std::vector<double> BalancerSession::saved_state() const {
  StateWriter out;
  out.put(kStateVersion);
  out.put(current_.ranks());
  balancer_.save(out);
  out.put_series(prices_);
  out.put(decisions_);
  out.put(steps());
  out.put(moved_columns_);
  return std::move(out).take();
}

void BalancerSession::restore_state(std::span<const double> state) {
  StateReader in(state);
  const double version = in.take();
  if (!(version >= 1.0 && version <= kStateVersion && version == std::floor(version)))
    throw std::invalid_argument("balancer state: unknown version");
  if (in.take_count(1L << 24, "rank count") != current_.ranks())
    throw std::invalid_argument("balancer state: saved on another number of ranks");
  DiffusiveBalancer balancer = balancer_;
  balancer.restore(in, static_cast<int>(version));
  std::vector<double> prices = in.take_series(1L << 30, "price count");
  for (const double p : prices)
    if (!(std::isfinite(p) && p >= 0.0))
      throw std::invalid_argument("balancer state: a step price is not finite");
  const int decisions = static_cast<int>(in.take_count(1L << 30, "decision count"));
  const int steps = static_cast<int>(in.take_count(1L << 30, "step count"));
  const int moved = static_cast<int>(in.take_count(1L << 30, "moved column count"));
  if (!in.done()) throw std::invalid_argument("balancer state: numbers left over");
  balancer_ = std::move(balancer);
  prices_ = std::move(prices);
  decisions_ = decisions;
  moved_columns_ = moved;
  earlier_steps_ = steps - static_cast<int>(log_.size());
  awaiting_outcome_ = false;  // a step's price comes with the window after it: that window was not saved
}

void BalancerSession::set_current(const Partition& p) {
  previous_ = current_;
  current_ = p;
}

const BalanceDecision& BalancerSession::decide(int iteration, std::span<const WindowReport> reports,
                                               double remaining) {
  const bool after_migration = awaiting_outcome_;
  record_price_and_outcome(reports);
  std::vector<RankSamples> window;
  window.reserve(reports.size());
  for (const auto& r : reports) {
    RankSamples s = r.samples;
    if (after_migration && s.compute.size() > 1 && s.wait.size() > 1) {
      s.compute.erase(s.compute.begin());
      s.wait.erase(s.wait.begin());
      if (s.share.size() > 1) s.share.erase(s.share.begin());
    }
    window.push_back(std::move(s));
  }
  previous_ = current_;
  last_decision_ = iteration;
  adapt_stride(reports);
  last_ = balancer_.decide(current_, window, {step_price(), remaining, prior_price_});
  ++decisions_;
  if (last_.moved_columns == 0) return last_;
  current_ = last_.partition;
  moved_columns_ += last_.moved_columns;
  const PredictedImbalance predicted = predicted_imbalance(last_);
  const PredictedQuality quality = predicted_quality(last_);
  DecisionRecord& rec = log_.emplace_back();
  rec.iteration = iteration;
  rec.moves = last_.moves;
  rec.moved_columns = last_.moved_columns;
  rec.predicted_before = predicted.before;
  rec.predicted_after = predicted.after;
  rec.measured_before = measured_imbalance(reports);
  rec.predicted_quality_before = quality.before;
  rec.predicted_quality_after = quality.after;
  rec.gain = last_.gain;
  rec.horizon = last_.horizon;
  rec.price = last_.price;
  awaiting_outcome_ = true;
  return last_;
}

}  // namespace npblu
