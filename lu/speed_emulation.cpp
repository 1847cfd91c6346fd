#include "lu/speed_emulation.hpp"

#include <cmath>
#include <sstream>
#include <stdexcept>

#include "balance/parse_number.hpp"
#include "lu/wall_clock.hpp"

namespace npblu {

namespace {

std::vector<double> parse_speeds(const std::string& text, int ranks, const std::string& spec) {
  std::vector<double> speeds;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    const std::optional<double> s = parse_double(item);
    if (!s) throw std::invalid_argument("--emulate-speeds '" + spec + "': '" + item + "' is not a number");
    if (!(*s > 0.0 && *s <= 1.0)) {
      throw std::invalid_argument("--emulate-speeds '" + spec + "': speed " + item +
                                  " is outside (0, 1] (emulation can only slow a rank down)");
    }
    speeds.push_back(*s);
  }
  if (text.empty() || text.back() == ',') {
    throw std::invalid_argument("--emulate-speeds '" + spec + "': empty speed list");
  }
  if (static_cast<int>(speeds.size()) != ranks) {
    throw std::invalid_argument("--emulate-speeds '" + spec + "' gives " + std::to_string(speeds.size()) +
                                " speeds but the run has " + std::to_string(ranks) + " ranks");
  }
  return speeds;
}

}  // namespace

SpeedSchedule SpeedSchedule::parse(const std::string& spec, int ranks) {
  SpeedSchedule s;
  s.spec_ = spec;
  std::stringstream in(spec);
  std::string part;
  bool first = true;
  while (std::getline(in, part, ';')) {
    Segment seg;
    if (first) {
      if (!part.empty() && part[0] == '@') {
        throw std::invalid_argument("--emulate-speeds '" + spec + "': must start with the initial speeds");
      }
    } else {
      const auto colon = part.find(':');
      if (part.empty() || part[0] != '@' || colon == std::string::npos) {
        throw std::invalid_argument("--emulate-speeds '" + spec + "': segment '" + part +
                                    "' is not of the form @ITERATION:SPEEDS");
      }
      const std::string number = part.substr(1, colon - 1);
      const std::optional<int> from = parse_int(number);
      if (!from || *from <= s.segments_.back().from_iteration) {
        throw std::invalid_argument("--emulate-speeds '" + spec + "': '@" + number +
                                    "' must be an iteration number after the previous segment's");
      }
      seg.from_iteration = *from;
      part = part.substr(colon + 1);
    }
    seg.speeds = parse_speeds(part, ranks, spec);
    s.segments_.push_back(std::move(seg));
    first = false;
  }
  if (s.segments_.empty()) throw std::invalid_argument("--emulate-speeds: empty schedule");
  return s;
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
