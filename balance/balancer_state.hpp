#pragma once
// The balancer's memory as a flat list of numbers, for a checkpoint: a
// restart on the same ranks continues the cost evidence, the measured price
// of a step and the counts, instead of starting blind and paying again for
// the windows it already saw. Integers travel as doubles (exact below 2^53).
#include <cstddef>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace npblu {

class StateWriter {
 public:
  void put(double value) { values_.push_back(value); }
  void put_series(std::span<const double> series) {
    put(static_cast<double>(series.size()));
    values_.insert(values_.end(), series.begin(), series.end());
  }
  [[nodiscard]] std::vector<double> take() && { return std::move(values_); }

 private:
  std::vector<double> values_;
};

/// Reads what a StateWriter wrote; throws std::invalid_argument naming what
/// is wrong when the numbers end early or a count is out of range (a
/// damaged or foreign state is refused, never half-restored).
class StateReader {
 public:
  explicit StateReader(std::span<const double> values) : values_(values) {}
  double take() {
    if (at_ >= values_.size()) throw std::invalid_argument("balancer state: ends early");
    return values_[at_++];
  }
  /// A whole number in [0, max].
  long take_count(long max, const char* what) {
    const double v = take();
    if (!(v >= 0.0 && v <= static_cast<double>(max)) || v != static_cast<double>(static_cast<long>(v)))
      throw std::invalid_argument(std::string("balancer state: bad ") + what);
    return static_cast<long>(v);
  }
  std::vector<double> take_series(long max, const char* what) {
    const auto n = static_cast<std::size_t>(take_count(max, what));
    if (values_.size() - at_ < n) throw std::invalid_argument("balancer state: ends early");
    std::vector<double> out(values_.begin() + at_, values_.begin() + at_ + n);
    at_ += n;
    return out;
  }
  [[nodiscard]] bool done() const { return at_ == values_.size(); }

 private:
  std::span<const double> values_;
  std::size_t at_ = 0;
};

}  // namespace npblu
