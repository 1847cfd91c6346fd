#include "sim/time_shared_model.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <stdexcept>
#include <string>

namespace npblu::sim {

namespace {

constexpr double kNever = std::numeric_limits<double>::infinity();

}  // namespace

TimeSharedModel::TimeSharedModel(GridSize grid, CostModel cost, std::vector<int> core_of_rank, double slice,
                                 SchedulerMoves moves)
    : costs_(grid, cost),
      core_(std::move(core_of_rank)),
      slice_(slice),
      schedules_(costs_.planes, costs_.lanes, std::max<int>(1, static_cast<int>(core_.size()))),
      ranks_(core_.size()),
      ready_(core_.size(), 0.0),
      ready_known_(core_.size(), 0),
      rng_(moves.seed) {
  if (!(slice > 0.0)) throw std::invalid_argument("the scheduler's slice must be > 0 seconds");
  if (core_.empty()) throw std::invalid_argument("the model needs at least one rank");
  std::map<int, int> number;  // the caller's labels, numbered in order of appearance
  for (int& c : core_) {
    if (c < 0) throw std::invalid_argument("a core number must be >= 0, got " + std::to_string(c));
    c = number.emplace(c, static_cast<int>(number.size())).first->second;
  }
  cores_ = static_cast<int>(number.size());
  label_.resize(cores_);
  for (const auto& [label, core] : number) label_[core] = label;
  speed_.assign(cores_, 1.0);
  running_.assign(cores_, -1);
  slice_start_.assign(cores_, 0.0);
  on_core_.resize(cores_);
  for (int r = 0; r < static_cast<int>(core_.size()); ++r) on_core_[core_[r]].push_back(r);
  slots_ = schedules_.max_segments();
  tasks_ = 2 * slots_ + 2;  // the lower sweep's segments, the upper's, the halo exchange, rhs
  set_up_moves(moves);
}

void TimeSharedModel::set_up_moves(const SchedulerMoves& moves) {
  if (moves.node_of_rank.empty()) return;
  if (moves.node_of_rank.size() != core_.size())
    throw std::invalid_argument("the scheduler's moves need one node per rank");
  if (!(moves.period > 0.0) || !std::isfinite(moves.period))
    throw std::invalid_argument("the scheduler's period must be a finite number of seconds > 0");
  std::map<int, int> node;  // the caller's labels, numbered in order of appearance
  std::vector<int> node_of_core(cores_, -1);
  for (std::size_t r = 0; r < core_.size(); ++r) {
    const int n = node.emplace(moves.node_of_rank[r], static_cast<int>(node.size())).first->second;
    int& owner = node_of_core[core_[r]];
    if (owner >= 0 && owner != n)
      throw std::invalid_argument("a core of two nodes: ranks of one core must share its node");
    if (owner < 0) {
      owner = n;
      if (n >= static_cast<int>(node_cores_.size())) node_cores_.resize(n + 1);
      node_cores_[n].push_back(core_[r]);
    }
  }
  move_period_ = moves.period / static_cast<double>(node_cores_.size());  // every node moves at its pace
  next_move_ = until_next_move();
}

void TimeSharedModel::set_core_speeds(const std::vector<double>& speed_by_label) {
  for (int c = 0; c < cores_; ++c) {
    if (label_[c] >= static_cast<int>(speed_by_label.size()))
      throw std::invalid_argument("no speed given for core " + std::to_string(label_[c]));
    const double speed = speed_by_label[label_[c]];
    if (!(speed > 0.0) || !std::isfinite(speed))
      throw std::invalid_argument("core " + std::to_string(label_[c]) + "'s speed must be > 0");
    speed_[c] = speed;
  }
}

double TimeSharedModel::until_next_move() {
  return std::exponential_distribution<double>(1.0 / move_period_)(rng_);
}

// One move of a node's scheduler: a rank of one of its most crowded cores
// trades places with a rank of one of its least crowded (with every core as
// crowded, two ranks of two cores trade, which changes their partners).
void TimeSharedModel::move_a_rank() {
  auto pick = [&](std::size_t n) { return std::uniform_int_distribution<std::size_t>(0, n - 1)(rng_); };
  const std::vector<int>& cores = node_cores_[pick(node_cores_.size())];
  if (cores.size() < 2) return;
  std::size_t most = 0, least = SIZE_MAX;
  for (const int c : cores) {
    most = std::max(most, on_core_[c].size());
    least = std::min(least, on_core_[c].size());
  }
  std::vector<int> crowded, spare;
  for (const int c : cores) {
    if (on_core_[c].size() == most) crowded.push_back(c);
    if (on_core_[c].size() == least) spare.push_back(c);
  }
  const int from = crowded[pick(crowded.size())];
  std::erase(spare, from);  // every core as crowded: another one
  const int to = spare[pick(spare.size())];
  const int a = on_core_[from][pick(on_core_[from].size())];
  const int b = on_core_[to][pick(on_core_[to].size())];
  relocate(a, to);
  relocate(b, from);
}

// Rank `rank` leaves its core (the one running there goes to the back of
// its new core's queue, mid-task) for `core`.
void TimeSharedModel::relocate(int rank, int core) {
  const int from = core_[rank];
  if (running_[from] == rank) {
    running_[from] = -1;
    ranks_[rank].queued_at = now_;
  }
  std::erase(on_core_[from], rank);
  on_core_[core].push_back(rank);
  core_[rank] = core;
}

double TimeSharedModel::elapsed() const { return end_; }

void TimeSharedModel::append(const IterationLoad& load) {
  const int ranks = static_cast<int>(ranks_.size());
  if (static_cast<int>(load.widths.size()) != ranks || static_cast<int>(load.slowdown.size()) != ranks)
    throw std::invalid_argument("one width and one slowdown per rank");
  // Parity appended_ & 1 last held iteration appended_ - 2, which every rank
  // has finished: run_through() saw to it before this iteration was known.
  const int p = appended_ & 1;
  load_[p].widths.assign(load.widths.begin(), load.widths.end());
  load_[p].slowdown.assign(load.slowdown.begin(), load.slowdown.end());
  finish_[p].assign(std::size_t(ranks) * tasks_, 0.0);
  account_[p].assign(ranks, {});
  ready_known_.assign(ranks, 0);  // the slot reused holds another iteration's finish times
  ++appended_;
}

double TimeSharedModel::work(int rank, long iteration, int task) const {
  const Load& load = load_[iteration & 1];
  const int width = load.widths[rank];
  const double slowdown = load.slowdown[rank];
  if (task < 2 * slots_) {
    const SweepSegment& segment = schedules_.of_width(width).segments[task % slots_];
    return segment.work *
           (task < slots_ ? costs_.lower_plane(width, slowdown) : costs_.upper_plane(width, slowdown));
  }
  if (task == 2 * slots_) return 0.0;  // the halo exchange: only waiting
  return costs_.rhs_stripe(width, slowdown);
}

double& TimeSharedModel::finish(int rank, long iteration, int task) {
  return finish_[iteration & 1][std::size_t(rank) * tasks_ + task];
}

double TimeSharedModel::finish(int rank, long iteration, int task) const {
  return finish_[iteration & 1][std::size_t(rank) * tasks_ + task];
}

bool TimeSharedModel::finished(int rank, long iteration, int task) const {
  const RankState& s = ranks_[rank];
  return s.iteration > iteration || (s.iteration == iteration && s.task > task);
}

// What ready_time reads: the rank's task and its neighbours' finish times.
void TimeSharedModel::forget_ready_time(int rank) {
  for (int q = std::max(0, rank - 1); q <= std::min(rank + 1, static_cast<int>(ranks_.size()) - 1); ++q)
    ready_known_[q] = 0;
}

// When the rank's current task may start: its messages have arrived
// (kNever while a sender has not yet sent).
double TimeSharedModel::compute_ready_time(int rank) const {
  const RankState& s = ranks_[rank];
  const int last = static_cast<int>(ranks_.size()) - 1;
  const long n = s.iteration;
  double ready = 0.0;
  auto after = [&](int sender, int task, double delay) {
    if (sender < 0 || sender > last) return;
    ready = finished(sender, n, task) ? std::max(ready, finish(sender, n, task) + delay) : kNever;
  };
  const std::vector<int>& widths = load_[n & 1].widths;
  if (s.task < 2 * slots_) {  // a sweep's segment: the plane it needs from rank -/+ 1 (lower/upper)
    const bool lower = s.task < slots_;
    const int sender = lower ? rank - 1 : rank + 1;
    const int needs = schedules_.of_width(widths[rank]).segments[s.task % slots_].needs;
    if (needs >= 0 && sender >= 0 && sender <= last) {
      const int sent = schedules_.of_width(widths[sender]).segment_done[needs];
      after(sender, (lower ? 0 : slots_) + sent, costs_.row_message);
    }
  } else if (s.task == 2 * slots_) {  // each neighbour's edge, once its upper sweep ended
    auto upper_end = [&](int q) { return slots_ + last_segment(widths[q]); };
    if (rank > 0) after(rank - 1, upper_end(rank - 1), costs_.halo_message);
    if (ready != kNever && rank < last) after(rank + 1, upper_end(rank + 1), costs_.halo_message);
  }
  return ready;
}

void TimeSharedModel::advance(int rank) {
  RankState& s = ranks_[rank];
  finish(rank, s.iteration, s.task) = now_;
  forget_ready_time(rank);
  s.clock = now_;
  s.started = false;
  s.computing = false;
  // A sweep has as many segments as its stripe's schedule; the rest of its slots are skipped.
  const int segments = last_segment(load_[s.iteration & 1].widths[rank]) + 1;
  ++s.task;
  if (s.task < 2 * slots_ && s.task % slots_ >= segments) s.task = s.task < slots_ ? slots_ : 2 * slots_;
  if (s.task == tasks_) {
    s.task = 0;
    ++s.iteration;
  }
}

// Gives each free core to its rank that has been ready the longest, and
// takes a core from a rank that has had it for a slice while another of its
// ranks is ready (that one goes to the back of the queue, mid-task).
void TimeSharedModel::schedule() {
  for (int c = 0; c < cores_; ++c) {
    int& running = running_[c];
    auto others_ready = [&] {
      for (int q : on_core_[c])
        if (q != running && eligible(q)) return true;
      return false;
    };
    if (running >= 0 && now_ >= slice_start_[c] + slice_ && others_ready()) {  // as step() computes it
      ranks_[running].queued_at = now_;
      running = -1;
    }
    if (running >= 0) continue;
    double first = kNever;
    for (int q : on_core_[c]) {
      if (!eligible(q)) continue;
      const double since = ranks_[q].computing ? ranks_[q].queued_at : ready_time(q);
      if (running < 0 || since < first) {
        running = q;
        first = since;
      }
    }
    if (running < 0) continue;
    slice_start_[c] = now_;
    ranks_[running].computing = true;
  }
}

// Loads each rank's current task, hands out the cores, and ends the tasks
// of running ranks with no work left (the halo exchange once its messages
// are in), until nothing changes. A rank whose next task may start keeps
// its core.
void TimeSharedModel::settle() {
  for (bool changed = true; changed;) {
    changed = false;
    for (int r = 0; r < static_cast<int>(ranks_.size()); ++r) {
      RankState& s = ranks_[r];
      if (has_task(s) && !s.started) {
        s.remaining = work(r, s.iteration, s.task);
        s.started = true;
      }
    }
    schedule();
    for (int c = 0; c < cores_; ++c) {
      const int r = running_[c];
      if (r < 0 || ranks_[r].remaining > 0.0) continue;
      advance(r);
      changed = true;
      RankState& s = ranks_[r];
      if (!has_task(s)) {
        running_[c] = -1;
        continue;
      }
      s.computing = ready_time(r) <= now_;  // its work is loaded on the next pass
      if (!s.computing) running_[c] = -1;
    }
  }
}

// One event: the next task to end, message to arrive or slice to expire.
// Until then a running rank computes at a full core; a rank taken off its
// core mid-task is still computing by the wall clock, and on the run queue;
// a rank waiting in MPI yields its core to its running rank, or polls in
// turns with the other waiting ranks of an idle core.
void TimeSharedModel::step() {
  double next = kNever;
  for (int c = 0; c < cores_; ++c) {
    const int running = running_[c];
    if (running < 0) continue;
    next = std::min(next, now_ + ranks_[running].remaining / speed_[c]);
    for (int q : on_core_[c])
      if (q != running && eligible(q)) next = std::min(next, slice_start_[c] + slice_);
  }
  for (int r = 0; r < static_cast<int>(ranks_.size()); ++r)
    if (has_task(ranks_[r]) && !eligible(r)) next = std::min(next, ready_time(r));
  if (next == kNever) throw std::logic_error("TimeSharedModel: every rank waits for a message never sent");
  const bool moving = move_period_ > 0.0 && next_move_ <= next;
  if (moving) next = std::max(now_, next_move_);  // a move due during a collective happens at its end
  const double dt = next - now_;
  for (int c = 0; c < cores_; ++c) {
    int polling = 0;  // ranks of an idle core: all waiting in MPI
    for (int q : on_core_[c]) polling += has_task(ranks_[q]) ? 1 : 0;
    for (int q : on_core_[c]) {
      RankState& s = ranks_[q];
      if (!has_task(s)) continue;  // between iterations, before a collective: synchronise() counts it
      RankIteration& a = account(q);
      if (q == running_[c]) {
        a.compute += dt;
        a.on_cpu += dt;
        s.remaining -= dt * speed_[c];
        // Rounding: the task that set `next` may keep a few ulps of `now_`.
        if (s.remaining <= 1e-13 * std::max(1.0, next)) s.remaining = 0.0;
      } else if (s.computing) {
        a.compute += dt;
        a.run_delay += dt;
      } else {
        a.wait += dt;
        const double share = running_[c] >= 0 ? 0.0 : 1.0 / polling;
        a.on_cpu += dt * share;
        a.run_delay += dt * (1.0 - share);
      }
    }
  }
  now_ = next;
  if (moving) {
    move_a_rank();
    next_move_ = now_ + until_next_move();
  }
}

void TimeSharedModel::run_through(long iteration) {
  auto behind = [&] {
    return std::any_of(ranks_.begin(), ranks_.end(),
                       [&](const RankState& s) { return s.iteration <= iteration; });
  };
  for (settle(); behind(); settle()) step();
  end_ = 0.0;
  for (int r = 0; r < static_cast<int>(ranks_.size()); ++r)
    end_ = std::max(end_, finish(r, iteration, tasks_ - 1));
}

void TimeSharedModel::iterate(const IterationLoad& now, const IterationLoad* next,
                              std::vector<RankIteration>& out) {
  const long n = done_;
  if (appended_ == n) append(now);  // else it was the last call's `next`
  if (next) append(*next);
  run_through(n);
  out = account_[n & 1];
  ++done_;
}

void TimeSharedModel::synchronise(double seconds, std::vector<RankIteration>& out) {
  if (appended_ != done_)
    throw std::logic_error("TimeSharedModel: a collective after an iteration given as next");
  const double all = elapsed() + seconds;
  std::vector<double> last(cores_, 0.0);  // per core: when its last rank got to the collective
  std::vector<int> sharing(cores_, 0);
  for (std::size_t r = 0; r < ranks_.size(); ++r) {
    last[core_[r]] = std::max(last[core_[r]], ranks_[r].clock);
    ++sharing[core_[r]];
  }
  for (std::size_t r = 0; r < ranks_.size(); ++r) {
    RankState& s = ranks_[r];
    const int c = core_[r];
    const double spinning = all - last[c];  // every rank of the core polls, in turns
    out[r].wait += all - s.clock;
    out[r].on_cpu += spinning / sharing[c];
    out[r].run_delay += (last[c] - s.clock) + spinning * (1.0 - 1.0 / sharing[c]);
    s.clock = all;
  }
  now_ = end_ = all;
}

}  // namespace npblu::sim
