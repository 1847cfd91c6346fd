#pragma once
// LuSolver: NPB LU's SSOR solver on one columnwise stripe of the grid.
// It owns the fields of its stripe, exactly sized, and computes on whatever
// columns the Partition it is given assigns to its rank.
#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "balance/partition.hpp"
#include "balance/window_summary.hpp"
#include "lu/coefficients.hpp"
#include "lu/field.hpp"
#include "lu/mpi/communicator.hpp"
#include "lu/mpi/request_wait.hpp"
#include "lu/norms.hpp"
#include "lu/phase_timers.hpp"
#include "lu/residual.hpp"
#include "lu/run_queue_clock.hpp"
#include "lu/speed_emulation.hpp"
#include "lu/sweeps.hpp"

namespace npblu {

struct SolverConfig {
  GridSize grid;
  int iterations = 0;  // itmax
  double dt = 0.0;
  double omega = 1.2;
  SpeedSchedule emulation;  // inactive: every rank at its real speed
  // How this rank waits for pipeline and halo messages (see lu/mpi/request_wait.hpp).
  WaitMode wait = WaitMode::automatic;
  // k planes per pipeline message: fewer hand-offs per sweep, the same
  // arithmetic in the same order (must be the same on every rank).
  int planes_per_message = 1;
};

/// One rank's record of one timed iteration: the timings the balancer reads
/// (compute, wait, on_cpu, run_delay: balance/window_summary.hpp) and what
/// the solver adds. What is stored and reported of it is the table in
/// lu/io/iteration_record.cpp.
struct IterationRecord : IterationTiming {
  double migration = 0.0;  // seconds moving columns after this iteration
  ColumnRange owned;       // this rank's columns during the iteration
  double speed = 1.0;      // emulated fraction of real speed during the iteration (1: not slowed)
  bool slept = false;      // waited for messages by sleeping between polls (else spinning)
};

/// Called collectively after every timed iteration but the last, with this
/// rank's records so far. The solver never decides placement: the hook
/// (lu/migration/runtime_balancing: the balancer session, which owns the
/// cadence and the window) may move the solver to other stripes
/// (LuSolver::repartition), and returns whether it did balancing work this
/// iteration (its time is then the iteration's migration time).
using RebalanceHook = std::function<bool(int iteration, std::span<const IterationRecord> history)>;

/// Called on every rank at the iterations the solver reports progress:
/// iteration number, seconds since the timed loop began, and the RMS norm of
/// the steady-state residual at that iteration.
using ProgressCallback = std::function<void(int iteration, double elapsed, const Vector5& residual_norms)>;

struct SolveResult {
  Vector5 residual_norms{};              // xcr
  Vector5 error_norms{};                 // xce
  double surface_integral = 0.0;         // xci
  double seconds = 0.0;                  // timed iterations, max over ranks
  int iterations = 0;                    // iterations actually run
  PhaseTimers timers;                    // this rank's, timed iterations only
  std::vector<IterationRecord> history;  // this rank's, per timed iteration
};

class LuSolver {
 public:
  /// Collective over `comm`, whose size must equal partition.ranks(). Its
  /// collectives come before its allocations: a rank that cannot allocate
  /// throws (std::bad_alloc) with no collective left for the others.
  LuSolver(MPI_Comm comm, const SolverConfig& config, Partition partition);

  /// Bytes of memory a rank owning `owned` of grid g uses once it has
  /// computed: u, rsd and frct on the columns it stores, and the kernels'
  /// workspaces. (The address space reserved for migration costs nothing
  /// until columns are stored there.)
  [[nodiscard]] static std::uint64_t resident_bytes(const GridSize& g, ColumnRange owned);
  /// The widest stripe a rank owning `owned` may grow to when `room` more
  /// bytes are all it may use: each column gained is one more column of u,
  /// rsd and frct; each field may keep two headrooms of spare columns it
  /// once stored (Field5::release_spare); and unless the fields grow
  /// `in_place` (grows_in_place()), a field that outgrows its storage exists
  /// twice while it moves (u, the largest, at the new width). At least
  /// owned's width, at most the grid's interior.
  [[nodiscard]] static int widest_stripe(const GridSize& g, ColumnRange owned, std::uint64_t room,
                                         bool in_place);
  /// Whether every field has address space for the whole grid
  /// (reserve_migration_headroom), so that no migration ever copies one.
  [[nodiscard]] bool grows_in_place() const { return grows_in_place_; }

  /// The whole NPB LU benchmark: initialise, one warm-up iteration, reset,
  /// the timed iterations, then the error norms and the surface integral
  /// (start, advance to the end, finish).
  /// With progress_interval > 0 and a callback, reports progress about every
  /// progress_interval seconds (an iteration count derived collectively from
  /// the warm-up time, so all ranks agree), if the run looks longer than that.
  SolveResult run(double progress_interval = 0.0, const ProgressCallback& progress = {});

  // The same run in steps, for callers that look at it between iterations.
  // start + advance(n1) + advance(n2) + ... + finish computes exactly what
  // run() does, bit for bit, whatever the n's.

  /// Collective: the initial state and forcing, one warm-up iteration, the
  /// initial state again and its residual: ready for timed iteration 1.
  void start();
  /// Collective: up to `n` more timed iterations (fewer at the last one or
  /// on convergence); returns how many ran. With report_every > 0, calls
  /// `progress` at every report_every-th iteration (not the last).
  int advance(int n, int report_every = 0, const ProgressCallback& progress = {});
  /// Timed iterations done since start().
  [[nodiscard]] int iterations_done() const { return iterations_run_; }
  /// Whether advance() has nothing left to do (the last iteration, or converged).
  [[nodiscard]] bool finished() const { return iterations_run_ >= config_.iterations || converged_; }
  /// Collective: the RMS norms of the current steady-state residual. Only
  /// reads: asking changes nothing the iterations compute.
  [[nodiscard]] Vector5 residual_norms() const;
  /// Collective: the result so far: the residual norms, error norms and
  /// surface integral of the current state, and the timed seconds (max over
  /// ranks of the time spent in advance()).
  SolveResult finish();
  /// For callers that set u between iterations (a checkpoint being
  /// restored, the C API's copy-in): write the owned columns of
  /// writable_state(), then call state_written() (collective), which
  /// refreshes the halos and the residual the next iteration starts from.
  [[nodiscard]] Field5& writable_state() { return u_; }
  void state_written();
  /// For a run continued from a checkpoint, after start() and the state
  /// written: the next advance() runs timed iteration `iterations_done` + 1
  /// (which drives NPB's norm at itmax, the rebalancing and the speed
  /// schedules), and the timed seconds count on from `seconds_so_far`.
  void resume(int iterations_done, double seconds_so_far);
  /// Iterations between progress reports for about `interval` seconds, from
  /// the warm-up time (the same on every rank); 0 when the run looks shorter.
  [[nodiscard]] int progress_every(double interval) const;

  /// Runtime rebalancing during the timed iterations (none by default).
  /// Gives the fields their first spare columns (see repartition).
  void set_rebalance(RebalanceHook hook) {
    rebalance_ = std::move(hook);
    if (rebalance_) reserve_migration_headroom();
  }
  /// Called collectively after every timed iteration (after any
  /// rebalancing) with this rank's records so far; for traces.
  void set_iteration_hook(std::function<void(int iteration, std::span<const IterationRecord> history)> hook) {
    iteration_hook_ = std::move(hook);
  }

  /// Collective: moves this rank's state to `next` (same interior, same
  /// ranks). Nothing is lost: the iteration continues bitwise as if nothing
  /// had moved. The fields grow and shrink at their edges in place (spare
  /// columns, lu/field.hpp), so a step costs about the columns that cross a
  /// boundary; only a field that outgrows its spare columns moves once to
  /// storage with headroom.
  void repartition(const Partition& next);

  /// Gives the fields room to grow in place (lu/field.hpp): address space
  /// for the whole grid, which costs memory only once columns are stored
  /// there, or where the system refuses that, one headroom of spare columns
  /// at each inner end (about 3% of the stripe). set_rebalance calls it; a
  /// caller that repartitions by other means may too (local, any time).
  void reserve_migration_headroom();

  /// Calibration: `iterations` SSOR iterations from the initial state (after
  /// one warm-up), returning this rank's compute seconds (emulation included).
  double measure_compute(int iterations);

  /// This rank's seconds in advance() so far, and its phase timers (of the timed iterations).
  [[nodiscard]] double timed_seconds() const { return loop_seconds_; }
  [[nodiscard]] const PhaseTimers& timers() const { return timers_; }
  /// Seconds of the warm-up iteration (max over ranks), known after run().
  [[nodiscard]] double warmup_seconds() const { return warmup_seconds_; }
  [[nodiscard]] const Field5& state() const { return u_; }
  /// The residual the next iteration starts from, and the forcing (both
  /// derived from u and the problem: what a checkpoint need not hold).
  [[nodiscard]] const Field5& residual() const { return rsd_; }
  [[nodiscard]] const Field5& forcing() const { return frct_; }
  [[nodiscard]] const GridSize& grid() const { return config_.grid; }
  [[nodiscard]] ColumnRange owned() const { return owned_; }
  [[nodiscard]] const Partition& partition() const { return partition_; }
  /// How this rank waits for messages, as reports name it (wait_policy_name).
  [[nodiscard]] std::string wait_policy() const {
    return wait_policy_name(config_.wait, automatic_wait_.peers());
  }
  [[nodiscard]] const Communicator& communicator() const { return comm_; }
  /// How this rank waits for messages now (config_.wait, with auto resolved):
  /// also how the balancer's collectives around it wait.
  [[nodiscard]] WaitMode wait_mode() const {
    return config_.wait == WaitMode::automatic ? automatic_wait_.current() : config_.wait;
  }
  /// Collective: hex digest of the current u (rank 0; empty elsewhere).
  [[nodiscard]] std::string checksum() const;

 private:
  void reset_state();
  /// The forcing and the initial state (what start() and the calibration begin from).
  void compute_initial_fields();
  /// The residual of u and the timers cleared: what NPB's ssor does before its loop.
  void prepare_iterations();
  /// NPB's ssor(niter) without rebalancing or hooks (the warm-up and the
  /// calibration): returns the max-over-ranks seconds of the loop.
  double untimed_ssor(int niter);
  /// One SSOR iteration, number `istep`; returns whether the residual has converged.
  /// Timed iterations (`timed`) also rebalance and call the iteration hook.
  bool iterate(int istep, bool timed);
  /// Rebalances after timed iteration `istep` when the hook asks to.
  void maybe_rebalance(int istep);
  enum class Sweep { lower, upper };
  /// One triangular sweep over all planes, pipelined with the neighbouring
  /// stripes.
  void pipelined_sweep(Sweep sweep, int tag);
  Vector5 residual_norm();  // residual_norms(), timed as Phase::norms
  /// NPB's test: every component of the last residual norm under 1e-8.
  [[nodiscard]] bool residual_converged() const;
  /// Runs `work`, times it into `phase`, then applies the emulated speed.
  template <class Work>
  void compute_phase(Phase phase, Work&& work);
  /// Stretches a compute phase that took `seconds` to this rank's emulated speed.
  void emulate_speed(double seconds);

  Communicator comm_;  // borrowed: the caller's, alive as long as the solver
  SolverConfig config_;
  Coefficients coeff_;
  Partition partition_;
  ColumnRange owned_;
  Field5 u_, rsd_, frct_;
  ResidualWorkspace residual_ws_;
  SweepWorkspace sweep_ws_;
  PhaseTimers timers_;
  Vector5 rsdnm_{};  // the norm SSOR's convergence test reads: the start's, then the last iteration's
  int iterations_run_ = 0;
  bool converged_ = false;
  double loop_seconds_ = 0.0;  // this rank's seconds in advance() since start()
  int iteration_ = 1;          // current timed iteration, for the speed schedule
  std::vector<IterationRecord> history_;
  RunQueueClock run_queue_;
  AutomaticWait automatic_wait_;
  bool grows_in_place_ = false;  // reserve_migration_headroom got the whole grid for every field
  RebalanceHook rebalance_;
  std::function<void(int, std::span<const IterationRecord>)> iteration_hook_;
  double warmup_seconds_ = 0.0;
};

}  // namespace npblu
