#pragma once
// TimeSharedModel: StripeModel's schedule (the same sweeps, messages, halo
// exchange and rhs, the same costs) for ranks that may share cores, e.g. 3
// ranks on 2 cores. It follows every rank's tasks (a piece of a sweep between its messages,
// sim/sweep_schedule.hpp; the halo exchange, rhs) through time, event by event, and runs one rank of a core
// at a time: the one that has been ready the longest gets the core and keeps it until it must wait for a
// message, or until it has had it for a scheduler's slice while another rank of the core is ready. A rank
// waiting in MPI yields its core (Open MPI yields while it polls when it
// knows the node is oversubscribed) and polls, in turns with the others,
// only on an idle core. Each rank's on-CPU and run-queue time follow, as
// Linux's schedstat gives them to lu's balancer. With every rank on a core
// of its own it gives StripeModel's times; it costs O(ranks) an event, so
// StripeModel stays the model of dedicated cores.
//
// Ranks the scheduler places (SchedulerMoves: not pinned, free to run on any
// core of their node) change cores now and then, as Linux's load balancer
// moves them: at random times, a rank of a node's most crowded core trades
// places with one of its least crowded, so that which rank has a core to
// itself passes from rank to rank (3 unpinned ranks on 2 cores, class A:
// every 0.13-0.14 s, some 14 iterations, in lu's own readings).
#include <cstdint>
#include <random>
#include <vector>

#include "lu/grid.hpp"
#include "sim/iteration_model.hpp"
#include "sim/sweep_schedule.hpp"

namespace npblu::sim {

/// Ranks a scheduler moves between the cores of their node.
struct SchedulerMoves {
  std::vector<int> node_of_rank;  // any labels; empty: every rank stays on its core (pinned)
  double period = 0.0;            // seconds between one node's moves, on average (exponential); > 0
  std::uint64_t seed = 1;
};

class TimeSharedModel final : public IterationModel {
 public:
  /// `core_of_rank[r]`: the core rank r runs on (any labels; equal labels
  /// share a core), where it starts with `moves`; `slice`: seconds a rank
  /// keeps a core others are ready for. Throws std::invalid_argument on a bad
  /// map, slice or period, or a core given to ranks of two nodes.
  TimeSharedModel(GridSize grid, CostModel cost, std::vector<int> core_of_rank, double slice,
                  SchedulerMoves moves = {});

  /// The speed of each core, by the caller's core label (speed_by_label[l]
  /// for label l; every core at 1 before): a rank on a core of speed 0.8
  /// takes 1/0.8 of its time for the same work. Before the first iteration.
  /// Throws std::invalid_argument on a label without a speed or a speed <= 0.
  void set_core_speeds(const std::vector<double>& speed_by_label);

  void iterate(const IterationLoad& now, const IterationLoad* next, std::vector<RankIteration>& out) override;
  void synchronise(double seconds, std::vector<RankIteration>& out) override;
  [[nodiscard]] double elapsed() const override;

 private:
  struct Load {
    std::vector<int> widths;
    std::vector<double> slowdown;
  };
  struct RankState {
    long iteration = 0;      // the iteration of the current task (appended_: none known yet)
    int task = 0;            // its place in the iteration's tasks
    double remaining = 0;    // seconds of work left at a full core
    double clock = 0;        // when its last task finished
    bool started = false;    // remaining holds the current task's work
    bool computing = false;  // it has had a core for the current task (its messages were in)
    double queued_at = 0;    // when it was last taken off its core mid-task
  };

  void append(const IterationLoad& load);
  void run_through(long iteration);
  [[nodiscard]] bool has_task(const RankState& s) const { return s.iteration < appended_; }
  [[nodiscard]] double work(int rank, long iteration, int task) const;
  /// The last segment of a sweep of a stripe of `width` (its slot in the sweep's slots_).
  [[nodiscard]] int last_segment(int width) const {
    return static_cast<int>(schedules_.of_width(width).segments.size()) - 1;
  }
  [[nodiscard]] double ready_time(int rank) const {  // inline: asked O(ranks) times an event
    if (!ready_known_[rank]) {
      ready_[rank] = compute_ready_time(rank);
      ready_known_[rank] = 1;
    }
    return ready_[rank];
  }
  [[nodiscard]] double compute_ready_time(int rank) const;
  void forget_ready_time(int rank);
  [[nodiscard]] double& finish(int rank, long iteration, int task);
  [[nodiscard]] double finish(int rank, long iteration, int task) const;
  [[nodiscard]] bool finished(int rank, long iteration, int task) const;
  [[nodiscard]] bool eligible(int rank) const {
    const RankState& s = ranks_[rank];
    return has_task(s) && (s.computing || ready_time(rank) <= now_);
  }
  void advance(int rank);
  void schedule();
  void settle();
  void step();
  void set_up_moves(const SchedulerMoves& moves);
  [[nodiscard]] double until_next_move();
  void move_a_rank();
  void relocate(int rank, int core);
  RankIteration& account(int rank) { return account_[ranks_[rank].iteration & 1][rank]; }

  ScheduleCosts costs_;
  std::vector<int> core_;  // per rank: its core, numbered 0..cores-1
  int cores_ = 0;
  std::vector<int> label_;     // per core: the caller's label
  std::vector<double> speed_;  // per core: the work it does in a second
  double slice_;
  std::vector<std::vector<int>> on_core_;  // per core: its ranks
  std::vector<int> running_;               // per core: the rank on it (-1: none)
  std::vector<double> slice_start_;        // per core: when its running rank got it
  SweepSchedules schedules_;
  int slots_ = 0, tasks_ = 0;  // tasks an iteration: slots_ for each sweep's segments, the halo exchange, rhs
  double now_ = 0;             // the model's time
  double end_ = 0;             // the slowest rank's end of the last iteration done
  long done_ = 0;              // iterations iterate() has returned
  long appended_ = 0;          // iterations whose tasks are known
  Load load_[2];               // by iteration parity
  std::vector<double> finish_[2];          // by iteration parity, [rank * tasks_ + task]
  std::vector<RankIteration> account_[2];  // by iteration parity, per rank
  std::vector<RankState> ranks_;
  // ready_time by rank, known until the rank or a neighbour ends a task or an
  // iteration's loads arrive (the scheduler asks for it O(ranks) times an event).
  mutable std::vector<double> ready_;
  mutable std::vector<char> ready_known_;
  std::vector<std::vector<int>> node_cores_;  // per node the scheduler moves ranks in: its cores
  double move_period_ = 0;                    // seconds between moves of any node (0: none)
  double next_move_ = 0;
  std::mt19937_64 rng_;
};

}  // namespace npblu::sim
