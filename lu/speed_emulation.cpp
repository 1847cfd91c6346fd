#include "lu/speed_emulation.hpp"

#include <cmath>
#include <sstream>
#include <stdexcept>

#include "balance/parse_number.hpp"
#include "lu/mpi/messages.hpp"
#include "lu/wall_clock.hpp"

namespace npblu {

namespace {

std::string quoted(const std::string& spec) {
  constexpr std::size_t kShown = 60;  // a readable one-line message, whatever was given
  return "'" + (spec.size() > kShown ? spec.substr(0, kShown) + "..." : spec) + "'";
}

std::vector<double> parse_speeds(const std::string& text, const std::string& spec) {
  std::vector<double> speeds;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    if (const std::string problem = speed_problem(item); !problem.empty())
      throw std::invalid_argument("--emulate-speeds " + quoted(spec) + ": " + problem);
    speeds.push_back(*parse_double(item));
  }
  if (text.empty() || text.back() == ',') {
    throw std::invalid_argument("--emulate-speeds " + quoted(spec) + ": empty speed list");
  }
  return speeds;
}

// "@N:" of a segment after the first; returns N and strips the prefix from `part`.
int parse_segment_start(std::string& part, int previous, const std::string& spec) {
  const auto colon = part.find(':');
  if (part.empty() || part[0] != '@' || colon == std::string::npos) {
    throw std::invalid_argument("--emulate-speeds " + quoted(spec) + ": segment " + quoted(part) +
                                " is not of the form @ITERATION:SPEEDS");
  }
  const std::string number = part.substr(1, colon - 1);
  const std::optional<int> from = parse_int(number);
  if (!from)
    throw std::invalid_argument("--emulate-speeds " + quoted(spec) + ": '@" + number +
                                "': expected a whole iteration number (e.g. @80)");
  if (*from <= previous) {
    throw std::invalid_argument("--emulate-speeds " + quoted(spec) + ": '@" + number +
                                "' must start after the " +
                                (previous == 1 ? std::string("first segment, which applies from iteration 1")
                                               : "previous segment's @" + std::to_string(previous)) +
                                ": give @" + std::to_string(previous + 1) + " or later");
  }
  part = part.substr(colon + 1);
  return *from;
}

}  // namespace

std::string speed_problem(const std::string& item) {
  const std::optional<double> s = parse_double(item);
  if (!s) return quoted(item) + " is not a number";
  if (!(*s >= kMinimumEmulatedSpeed && *s <= 1.0))
    return "speed " + quoted(item) +
           " is outside [0.01, 1] (emulation can only slow a rank down, at most 100x)";
  return {};
}

SpeedSchedule SpeedSchedule::parse(const std::string& spec) {
  SpeedSchedule s;
  s.spec_ = spec;
  if (spec.empty()) throw std::invalid_argument("--emulate-speeds: empty schedule");
  if (spec.back() == ';') {
    throw std::invalid_argument("--emulate-speeds " + quoted(spec) + ": ends with ';' (an empty segment)");
  }
  if (spec[0] == '@') {
    throw std::invalid_argument("--emulate-speeds " + quoted(spec) + ": must start with the initial speeds");
  }
  std::stringstream in(spec);
  std::string part;
  while (std::getline(in, part, ';')) {
    Segment seg;
    if (!s.segments_.empty())
      seg.from_iteration = parse_segment_start(part, s.segments_.back().from_iteration, spec);
    seg.speeds = parse_speeds(part, spec);
    if (!s.segments_.empty() && seg.speeds.size() != s.segments_.front().speeds.size()) {
      throw std::invalid_argument("--emulate-speeds " + quoted(spec) + ": segment from iteration " +
                                  std::to_string(seg.from_iteration) + " gives " +
                                  counted(int(seg.speeds.size()), "speed") + ", the first " +
                                  std::to_string(s.segments_.front().speeds.size()));
    }
    s.segments_.push_back(std::move(seg));
  }
  return s;
}

SpeedSchedule SpeedSchedule::parse(const std::string& spec, int ranks) {
  SpeedSchedule s = parse(spec);
  s.check_ranks(ranks);
  return s;
}

void SpeedSchedule::check_ranks(int ranks) const {
  if (!active()) return;
  const auto given = segments_.front().speeds.size();
  if (static_cast<int>(given) != ranks) {
    throw std::invalid_argument("--emulate-speeds " + quoted(spec_) + " gives " +
                                counted(long(given), "speed") + " but the run has " + counted(ranks, "rank"));
  }
}

double SpeedSchedule::speed(int rank, int iteration) const {
  double s = 1.0;
  for (const auto& seg : segments_) {
    if (iteration >= seg.from_iteration) s = seg.speeds[rank];
  }
  return s;
}

void spin_for(double seconds) {
  if (!(seconds > 0.0)) return;
  const double until = wall_seconds() + seconds;
  while (wall_seconds() < until) {
  }
}

}  // namespace npblu
