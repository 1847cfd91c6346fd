#include "balance/diffusive_balancer.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "balance/min_max_partition.hpp"
#include "balance/parse_number.hpp"

namespace npblu {

namespace {
// A rank that gets less of its core than kSharedCore is time-sharing it;
// one that gets kWholeCoreShare or more has it to itself.
constexpr double kSharedCore = 0.8;

std::string got(double v) { return ", got " + number_text(v); }
}  // namespace

void validate(const BalancerSettings& s) {
  if (s.every < 1) throw std::invalid_argument("every must be at least 1" + got(s.every));
  if (!(s.threshold >= 0.0) || !std::isfinite(s.threshold)) {
    throw std::invalid_argument("threshold must be a non-negative number" + got(s.threshold));
  }
  if (!(s.damping > 0.0 && s.damping <= 1.0))
    throw std::invalid_argument("damping must be in (0, 1]" + got(s.damping));
  if (s.min_width < 1) throw std::invalid_argument("min_width must be at least 1" + got(s.min_width));
  if (s.persistence < 1)
    throw std::invalid_argument("persistence must be at least 1 window" + got(s.persistence));
}

DiffusiveBalancer::DiffusiveBalancer(BalancerSettings settings) : settings_(settings) { validate(settings_); }

void DiffusiveBalancer::save(StateWriter& out) const {
  evidence_.save(out);
  out.put(windows_since_move_);
  out.put(set_error_);
  out.put(wanted_step_ ? 1.0 : 0.0);
}

void DiffusiveBalancer::restore(StateReader& in, int version) {
  const bool with_set_error = version >= 2;
  CostEvidence evidence;
  evidence.restore(in, version >= 3);
  const int windows = static_cast<int>(in.take_count(1L << 30, "window count"));
  const double set_error = with_set_error ? in.take() : 0.0;
  if (!(std::isfinite(set_error) && set_error >= 0.0))
    throw std::invalid_argument("balancer state: the stripes' error is not a non-negative number");
  const double wanted = version >= 4 ? in.take() : 0.0;
  if (wanted != 0.0 && wanted != 1.0)
    throw std::invalid_argument("balancer state: whether a step was wanted is neither 0 nor 1");
  windows_since_move_ = windows;
  wanted_step_ = wanted == 1.0;
  set_error_ = set_error;
  evidence_ = std::move(evidence);
}

namespace {
// Mean relative standard error of the ranks' estimates (infinite before any spread is known).
double relative_error(const CostEstimate& e) {
  double relative = 0.0;
  for (std::size_t r = 0; r < e.cost.size(); ++r) relative += e.error[r] / e.cost[r] / e.cost.size();
  return relative;
}
}  // namespace

double DiffusiveBalancer::refresh_gain(const BalanceDecision& d, const CostEstimate& e,
                                       const std::vector<int>& target, double largest_error) const {
  // Stripes set from estimates with relative error s_set are off by about
  // e_P s_set; today's estimates, kRefreshSharper times sharper, are
  // expected to leave e_P s_now. Then the expected gain, not a confirmed
  // one, decides: the present stripes are known to carry the old noise.
  // Under noise correlated in time the estimates cannot show the old noise
  // in full: each rank's noise of the moment the stripes were set from
  // lingers in its later samples, and the estimates still hold those
  // samples too. Then the present stripes are expected as slow as either
  // the estimates or the old error say. (Independent noise leaves the
  // estimates free of it: they alone say.)
  // (Before any step the stripes carry no estimate: the confirmed rule
  // alone decides, so noise alone never moves a column.)
  const double now = relative_error(e);
  if (!(set_error_ > 0.0) || !std::isfinite(now) || set_error_ < kRefreshSharper * now) return 0.0;
  const double best = bottleneck(target, e.cost);
  const double old_noise = e.correlation > kCorrelatedNoise ? largest_error * set_error_ : 0.0;
  const double expected_now = std::max(d.predicted_before, best * (1.0 + old_noise));
  return expected_now - best * (1.0 + largest_error * now);
}

RankWindow DiffusiveBalancer::effective(const RankWindow& measured, double share) {
  // Daemons and the launcher take a few percent of any core now and then:
  // below a tenth that is noise, not a shared core.
  share = std::isfinite(share) && share < kWholeCoreShare ? std::max(share, 0.05) : 1.0;
  const double compute = measured.compute / share;
  return {compute, std::max(0.0, measured.compute + measured.wait - compute), 1.0};
}

double DiffusiveBalancer::equalising_shift(int width_r, const RankWindow& r, int width_next,
                                           const RankWindow& next) {
  const double cost_r = r.compute / width_r;  // seconds per column
  const double cost_next = next.compute / width_next;
  if (!(cost_r > 0.0) || !(cost_next > 0.0)) return 0.0;
  // (width_r - d) cost_r == (width_next + d) cost_next
  return (width_r * cost_r - width_next * cost_next) / (cost_r + cost_next);
}

namespace {

/// The mean over ranks of width x per-column cost: the denominator of the
/// predicted imbalance (max / mean), for the stripes before and after a step.
double mean_load(std::span<const int> widths, std::span<const double> cost) {
  const int ranks = static_cast<int>(widths.size());
  double mean = 0.0;
  for (int r = 0; r < ranks; ++r) mean += widths[r] * cost[r] / ranks;
  return mean;
}

// Neighbours that all get only part of a core are most likely sharing one:
// each one's share is then set by the others' load (the busier one gets
// more), so it says nothing about their relative speed, and following it
// would feed back. Such a run of ranks is read at one share.
std::vector<double> shares_of(std::span<const RankSamples> window) {
  const int ranks = static_cast<int>(window.size());
  std::vector<double> share(ranks);
  for (int r = 0; r < ranks; ++r) share[r] = window[r].core_share;
  for (int first = 0; first < ranks;) {
    int last = first;
    while (last + 1 < ranks && share[first] < kSharedCore && share[last + 1] < kSharedCore) ++last;
    if (last > first) {
      double mean = 0.0;
      for (int r = first; r <= last; ++r) mean += share[r];
      mean /= last - first + 1;
      for (int r = first; r <= last; ++r) share[r] = mean;
    }
    first = last + 1;
  }
  return share;
}

// Each pool's members at the pool's mean core share, iteration by
// iteration (balance/share_pools.hpp: the scheduler's placement of the
// moment decides which of them has a core to itself, not the rank). A pool
// whose members' windows differ in length is left as it is (read_window
// refuses such a window anyway).
std::vector<RankSamples> at_pool_shares(std::span<const RankSamples> window, const std::vector<int>& pools) {
  std::vector<RankSamples> out(window.begin(), window.end());
  const int ranks = static_cast<int>(window.size());
  std::vector<std::vector<int>> pool_members(ranks);
  for (int r = 0; r < ranks; ++r)
    if (pools[r] >= 0) pool_members[pools[r]].push_back(r);
  for (int leader = 0; leader < ranks; ++leader) {
    const std::vector<int>& members = pool_members[leader];
    const std::size_t k = window[leader].compute.size();
    bool even = members.size() > 1;
    for (const int r : members) even = even && window[r].compute.size() == k;
    if (!even) continue;
    std::vector<double> share(k, 0.0);
    double core_share = 0.0;
    for (const int r : members) {
      const RankSamples& w = window[r];
      for (std::size_t t = 0; t < k; ++t) share[t] += (w.share.size() == k ? w.share[t] : w.core_share);
      core_share += w.core_share;
    }
    for (double& s : share) s /= static_cast<double>(members.size());
    core_share /= static_cast<double>(members.size());
    for (const int r : members) out[r].share = share, out[r].core_share = core_share;
  }
  return out;
}

// The window read at each rank's core share: per-column costs per
// iteration, and per rank the mean wait and mean iteration time.
struct ReadWindow {
  std::vector<std::vector<double>> cost;
  std::vector<double> wait, period;
  bool usable = true;
};

ReadWindow read_window(std::span<const RankSamples> window, const std::vector<int>& widths) {
  const std::vector<double> share = shares_of(window);
  const std::size_t k = window[0].compute.size();
  const double ranks = static_cast<double>(window.size());
  ReadWindow out;
  for (std::size_t r = 0; r < window.size(); ++r) {
    const RankSamples& w = window[r];
    if (k == 0 || w.compute.size() != k || w.wait.size() != k) return {{}, {}, {}, false};
    std::vector<double> cost;
    double wait = 0.0, period = 0.0;
    // Each iteration at its own share, scaled as the window's share was
    // (neighbours sharing a core are read at their mean share).
    const double scale = w.core_share > 0.0 ? share[r] / w.core_share : 1.0;
    for (std::size_t t = 0; t < k; ++t) {
      const double s = w.share.size() == k ? std::min(1.0, w.share[t] * scale) : share[r];
      const RankWindow e = DiffusiveBalancer::effective({w.compute[t], w.wait[t]}, s);
      // A per-column cost that is subnormal (zero to the arithmetic below) or
      // times whose sums over ranks overflow say nothing usable, as no compute.
      const double c = e.compute / widths[r];
      if (!(c >= std::numeric_limits<double>::min()) || !std::isfinite(4.0 * ranks * (e.compute + e.wait)))
        return {{}, {}, {}, false};
      cost.push_back(c);
      wait += e.wait / k;
      period += (e.compute + e.wait) / k;
    }
    out.cost.push_back(std::move(cost));
    out.wait.push_back(wait);
    out.period.push_back(period);
  }
  return out;
}

// The slowest rank's time per iteration for `widths` at costs `cost +
// sign * z * error` (infinite errors give -inf or +inf).
double bound(const std::vector<int>& widths, const CostEstimate& e, double z, double sign) {
  double worst = -std::numeric_limits<double>::infinity();
  for (std::size_t r = 0; r < widths.size(); ++r) {
    const double c = std::isfinite(e.error[r]) ? e.cost[r] + sign * z * e.error[r]
                                               : sign * std::numeric_limits<double>::infinity();
    worst = std::max(worst, widths[r] * c);
  }
  return worst;
}

// E[max of n standard normals] (Blom's approximation).
double expected_largest_normal(int n) { return normal_quantile_upper(1.0 - (n - 0.375) / (n + 0.25)); }

// The gain per iteration counted on with every error allowed `margin` times
// over: the slowest rank now at its least (z se below its estimate) minus
// the new stripes' slowest rank expected e_P se above its estimate.
double gain_counted_on(const std::vector<int>& widths, const std::vector<int>& target, const CostEstimate& e,
                       double z, double largest_error, double margin) {
  return bound(widths, e, margin * z, -1.0) - bound(target, e, margin * largest_error, +1.0);
}

}  // namespace

const DiffusiveBalancer::Quantiles& DiffusiveBalancer::quantiles(int ranks) {
  if (quantiles_.ranks != ranks) {
    quantiles_ = {ranks, normal_quantile_upper(kFamilyError / ranks),
                  normal_quantile_upper(kChangeError / (2.0 * ranks)), expected_largest_normal(ranks)};
  }
  return quantiles_;
}

bool DiffusiveBalancer::confirmed(bool wants, bool decisive) {
  // One window's evidence of a marginal gain may be a transient, or noise
  // correlated in time that the estimates' errors understate: the step
  // waits for the next window to want one too.
  const bool go = wants && (decisive || wanted_step_);
  wanted_step_ = wants && !go;
  return go;
}

bool DiffusiveBalancer::better_to_wait(const BalanceDecision& d, const CostEstimate& e, double t_target,
                                       int window, double largest_error) {
  // Stripes set from estimates are off by about the largest of P errors:
  // e_P se. One more window shrinks every error; waiting for it costs one
  // window of the expected gain, and pays for the rest of the horizon.
  const double relative = relative_error(e);
  if (!std::isfinite(relative)) return false;
  const double e_p = largest_error;
  const double expected_gain = d.predicted_before - t_target * (1.0 + e_p * relative);
  const double sharper = t_target * e_p * relative * (1.0 - e.error_ratio_after(window));
  return (d.horizon - window) * sharper > window * expected_gain;
}

std::vector<int> DiffusiveBalancer::step_toward(const std::vector<int>& widths,
                                                const std::vector<int>& target) const {
  // One fraction of the way for every cut: neighbouring boundaries never
  // step by different fractions. A cut not at its target moves at least one
  // column (a small damping moves one column a step; it once jumped to the
  // target whenever the fraction rounded to no column, doing the opposite of
  // what was asked).
  std::vector<int> next(widths.size());
  int cut = 0, target_cut = 0, previous_cut = 0;
  for (std::size_t r = 0; r + 1 < widths.size(); ++r) {
    cut += widths[r];
    target_cut += target[r];
    const int distance = target_cut - cut;
    const long step = std::max(1L, std::lround(settings_.damping * std::abs(distance)));
    const int new_cut = distance == 0 ? cut : cut + static_cast<int>(distance > 0 ? step : -step);
    next[r] = new_cut - previous_cut;
    previous_cut = new_cut;
  }
  next.back() = target_cut + target.back() - previous_cut;
  // Rounding can squeeze a stripe below the minimum or past its maximum
  // (both stripes are within them, so a fraction of the way is, but for
  // rounding): then the target itself.
  bool outside = false;
  for (std::size_t r = 0; r < next.size(); ++r) {
    const bool too_wide = !max_widths_.empty() && next[r] > max_widths_[r];
    outside = outside || next[r] < settings_.min_width || too_wide;
  }
  return outside ? target : next;
}

void DiffusiveBalancer::set_share_pools(std::vector<int> pools, int ranks) {
  if (!pools.empty() && static_cast<int>(pools.size()) != ranks)
    throw std::invalid_argument("share pools: " + std::to_string(pools.size()) + " given for " +
                                std::to_string(ranks) + " ranks");
  for (int r = 0; r < static_cast<int>(pools.size()); ++r) {
    if (pools[r] < -1 || pools[r] > r || (pools[r] >= 0 && pools[pools[r]] != pools[r]))
      throw std::invalid_argument("share pools: rank " + std::to_string(r) + " in pool " +
                                  std::to_string(pools[r]) +
                                  " (a pool is named by its lowest rank, a member)");
  }
  const bool none = std::all_of(pools.begin(), pools.end(), [](int p) { return p == -1; });
  share_pools_ = none ? std::vector<int>{} : std::move(pools);
}

void DiffusiveBalancer::set_max_widths(std::vector<int> max_widths, int ranks, int columns) {
  check_max_widths(max_widths, ranks, columns, settings_.min_width);
  max_widths_ = std::move(max_widths);
}

BalanceDecision DiffusiveBalancer::decide(const Partition& current, std::span<const RankSamples> window,
                                          StepOutlook outlook) {
  const int ranks = current.ranks();
  if (static_cast<int>(window.size()) != ranks) throw std::invalid_argument("one window per rank needed");
  const std::vector<int> widths = current.widths();
  BalanceDecision d{current, std::vector<int>(std::max(0, ranks - 1), 0)};
  if (ranks < 2) return d;
  const ReadWindow w = share_pools_.empty() ? read_window(window, widths)
                                            : read_window(at_pool_shares(window, share_pools_), widths);
  if (!w.usable) return d;
  const Quantiles& q = quantiles(ranks);
  d.z = q.family;
  // A change of speeds must be clear on some rank beyond all ranks' noise
  // in both directions, at a far smaller error: a false alarm throws the
  // evidence away.
  d.speeds_changed = evidence_.add(w.cost, q.change);
  windows_since_move_ = d.speeds_changed ? 0 : windows_since_move_ + 1;
  if (d.speeds_changed) set_error_ = 0.0;  // the stripes were set for other speeds
  if (evidence_.samples() == 0) return d;
  const CostEstimate e = evidence_.estimate();
  d.correlation = e.correlation;
  d.spread = e.spread;

  const std::vector<int> target = best_widths_near(e.cost, widths, settings_.min_width, max_widths_);
  int slowest = 0;
  for (int r = 0; r < ranks; ++r)
    if (widths[r] * e.cost[r] > widths[slowest] * e.cost[slowest]) slowest = r;
  d.predicted_mean = d.predicted_mean_after = mean_load(widths, e.cost);
  d.predicted_before = d.predicted_after = bottleneck(widths, e.cost);
  d.predicted_best = bottleneck(target, e.cost);
  // The slowest rank now is confirmed only beyond what the largest of P
  // noisy estimates would show by chance (z); the new stripes' slowest rank
  // is expected that far above its estimate (the largest of P errors).
  d.gain = gain_counted_on(widths, target, e, d.z, q.largest, 1.0);
  const double period = *std::max_element(w.period.begin(), w.period.end());
  d.price = outlook.price > 0.0 ? outlook.price : std::max(period, outlook.prior_price);
  // Speeds seen unchanged for m iterations are expected to hold for about m
  // more (a core lost to another job for a while is not a slow rank for
  // the rest of the run): the gain is counted over no more than that.
  d.horizon = std::min(outlook.horizon > 0.0 ? outlook.horizon : kDefaultHorizon,
                       static_cast<double>(std::max<long>(evidence_.held(), w.cost[0].size())));
  const double most_waiting = *std::max_element(w.wait.begin(), w.wait.end());
  const bool waits_agree = most_waiting - w.wait[slowest] > settings_.threshold * period;
  bool worth_it = d.gain > 0.0 && d.gain * d.horizon > d.price;
  const double refresh = worth_it ? 0.0 : refresh_gain(d, e, target, q.largest);
  const bool refreshing = refresh > 0.0 && refresh * d.horizon > d.price;
  if (refreshing) d.gain = refresh, worth_it = true;
  const bool wants =
      target != widths && windows_since_move_ >= settings_.persistence && waits_agree && worth_it &&
      (refreshing || !better_to_wait(d, e, d.predicted_best, static_cast<int>(w.cost[0].size()), q.largest));
  // (the gain at doubled errors only where a step is wanted: it decides nothing else)
  const double sure_gain = wants ? gain_counted_on(widths, target, e, d.z, q.largest, kDecisiveMargin) : 0.0;
  if (!confirmed(wants, refreshing || (sure_gain > 0.0 && sure_gain * d.horizon > d.price))) return d;

  const std::vector<int> next = step_toward(widths, target);
  int cut = 0, next_cut = 0;
  for (int b = 0; b + 1 < ranks; ++b) {
    cut += widths[b];
    next_cut += next[b];
    d.moves[b] = cut - next_cut;  // columns from the ranks <= b to the ranks > b
    d.moved_columns += std::abs(d.moves[b]);
  }
  d.partition = Partition::from_widths(current.interior(), next, settings_.min_width);
  d.predicted_after = bottleneck(next, e.cost);
  d.predicted_mean_after = mean_load(next, e.cost);
  // Per-column costs do not depend on the stripes: the evidence carries
  // over (a change of speeds restarts it, see CostEvidence::add).
  windows_since_move_ = 0;
  set_error_ = relative_error(e);
  return d;
}

}  // namespace npblu
