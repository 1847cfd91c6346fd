#include "lu/solver.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <utility>
#include <vector>

#include "lu/field_checksum.hpp"
#include "lu/forcing.hpp"
#include "lu/halo_exchange.hpp"
#include "lu/initial_state.hpp"
#include "lu/migration/column_migration.hpp"
#include "lu/mpi/message_tags.hpp"
#include "lu/mpi/message_units.hpp"
#include "lu/surface_integral.hpp"
#include "lu/wall_clock.hpp"

namespace npblu {

namespace {

constexpr double kResidualTolerance = 1.0e-8;  // NPB's tolrsd, all five components

// Times a scope into one phase timer.
class ScopedPhase {
 public:
  ScopedPhase(PhaseTimers& t, Phase p) : timers_(t), phase_(p), start_(wall_seconds()) {}
  ~ScopedPhase() { timers_[phase_] += wall_seconds() - start_; }
  ScopedPhase(const ScopedPhase&) = delete;
  ScopedPhase& operator=(const ScopedPhase&) = delete;

 private:
  PhaseTimers& timers_;
  Phase phase_;
  double start_;
};

}  // namespace

LuSolver::LuSolver(MPI_Comm comm, const SolverConfig& config, Partition partition)
    : comm_(Communicator::borrow(comm)),
      config_(config),
      coeff_(Coefficients::make(config.grid, config.dt, config.omega)),
      partition_(std::move(partition)) {
  if (partition_.ranks() != comm_.size()) {
    throw std::invalid_argument("the partition has " + std::to_string(partition_.ranks()) +
                                " stripes but the communicator has " + std::to_string(comm_.size()) +
                                " ranks");
  }
  if (partition_.interior() != config_.grid.interior_columns()) {
    throw std::invalid_argument("the partition does not cover the grid's interior columns");
  }
  // The one collective here comes before the allocations: a rank whose
  // allocation fails leaves the constructor at once, and every rank must
  // then meet in the caller's agreement, not some of them here.
  if (config_.wait == WaitMode::automatic) automatic_wait_ = AutomaticWait(core_peers(comm_.get()));
  const GridSize& g = config_.grid;
  owned_ = partition_[comm_.rank()];
  u_ = Field5(g.nx, g.nz, stored_columns(g, owned_, kStateHalo));
  rsd_ = Field5(g.nx, g.nz, stored_columns(g, owned_, kResidualHalo));
  frct_ = Field5(g.nx, g.nz, owned_);
  residual_ws_ = ResidualWorkspace(g, owned_);
  sweep_ws_ = SweepWorkspace(g);
}

namespace {
std::uint64_t column_bytes(const GridSize& g) {
  return std::uint64_t(g.nx) * g.nz * Field5::kComponents * sizeof(double);
}
}  // namespace

std::uint64_t LuSolver::resident_bytes(const GridSize& g, ColumnRange owned) {
  // Summed in 64 bits: three widths of a stripe near an int's range wrap an int.
  const std::uint64_t columns = std::uint64_t(stored_columns(g, owned, kStateHalo).width()) +
                                std::uint64_t(stored_columns(g, owned, kResidualHalo).width()) +
                                std::uint64_t(owned.width());
  return columns * column_bytes(g) +
         (SweepWorkspace::doubles(g) + ResidualWorkspace::doubles(g)) * sizeof(double);
}

int LuSolver::widest_stripe(const GridSize& g, ColumnRange owned, std::uint64_t room, bool in_place) {
  const std::uint64_t room_columns = room / column_bytes(g);
  const int interior = g.interior_columns().width();
  // Columns of the fields a stripe d columns wider may hold beyond today's.
  const auto extra = [&](int d) {
    const int width = owned.width() + d;
    const std::uint64_t spare = 3 * 2 * std::uint64_t(Field5::headroom(width + 2 * kStateHalo));
    const std::uint64_t copy = in_place ? 0 : std::uint64_t(width + 2 * kStateHalo);
    return 3 * std::uint64_t(d) + spare + copy;
  };
  int d = 0;
  while (owned.width() + d < interior && extra(d + 1) <= room_columns) ++d;
  return owned.width() + d;
}

void LuSolver::repartition(const Partition& next) {
  if (next.ranks() != comm_.size() || next.interior() != partition_.interior()) {
    throw std::invalid_argument(
        "repartition: the new partition must cover the same columns on the same ranks");
  }
  // Move the data rather than recompute it: u is the state, and frct and the
  // residual of u (what the next iteration starts from) are plain columns
  // too. The residual workspace depends on the grid only: nothing to rebuild.
  const MigratedField fields[] = {{&u_, kStateHalo}, {&rsd_, kResidualHalo}, {&frct_, 0}};
  migrate_fields(fields, partition_, next, config_.grid, comm_, wait_mode());
  partition_ = next;
  owned_ = partition_[comm_.rank()];
  halo_exchange(u_, owned_, kStateHalo, comm_, wait_mode());
}

void LuSolver::reserve_migration_headroom() {
  const GridSize& g = config_.grid;
  grows_in_place_ = true;
  for (Field5* f : {&u_, &rsd_, &frct_}) {
    // Address space for the whole grid where the system allows it (no step
    // ever copies a kept column), else one headroom at each inner end.
    if (f->reserve_address_space({0, g.ny})) continue;
    grows_in_place_ = false;
    const ColumnRange c = f->columns();
    f->reserve(c.widened(Field5::headroom(c.width()), 0, g.ny));
  }
}

void LuSolver::reset_state() {
  set_boundary_values(coeff_, config_.grid, u_);
  set_initial_values(coeff_, config_.grid, u_);
}

void LuSolver::compute_initial_fields() {
  // The forcing first: it borrows u and rsd as its scratch (no temporaries
  // at the run's peak), then u gets its initial state.
  compute_forcing(coeff_, config_.grid, owned_, frct_, u_, rsd_, residual_ws_);
  reset_state();
}

SolveResult LuSolver::run(double progress_interval, const ProgressCallback& progress) {
  start();
  advance(config_.iterations, progress ? progress_every(progress_interval) : 0, progress);
  return finish();
}

void LuSolver::start() {
  compute_initial_fields();
  // One iteration to touch every page and warm the caches, then start over.
  warmup_seconds_ = untimed_ssor(1);
  reset_state();
  prepare_iterations();
  comm_.barrier();
}

int LuSolver::progress_every(double interval) const {
  if (interval <= 0.0 || warmup_seconds_ * config_.iterations <= interval) return 0;
  return std::max(1, static_cast<int>(std::ceil(interval / std::max(warmup_seconds_, 1e-9))));
}

int LuSolver::advance(int n, int report_every, const ProgressCallback& progress) {
  const double start = wall_seconds();
  const double elapsed_before = loop_seconds_;
  int ran = 0;
  while (ran < std::max(n, 0) && !finished()) {
    const int istep = iterations_run_ + 1;
    converged_ = iterate(istep, true);
    ++ran;
    const bool report =
        progress && report_every > 0 && istep % report_every == 0 && istep != config_.iterations;
    // A progress line's norm is shown, never checked: whether lines are printed (-q, the machine's
    // speed) must not change how many iterations run.
    if (report) progress(istep, elapsed_before + wall_seconds() - start, residual_norm());
  }
  loop_seconds_ += wall_seconds() - start;
  return ran;
}

void LuSolver::state_written() {
  halo_exchange(u_, owned_, kStateHalo, comm_);
  compute_residual(coeff_, config_.grid, owned_, u_, frct_, rsd_, residual_ws_);
}

void LuSolver::resume(int iterations_done, double seconds_so_far) {
  if (iterations_done < 0 || iterations_done >= config_.iterations)
    throw std::invalid_argument("resume: iteration " + std::to_string(iterations_done) +
                                " is not before the last");
  iterations_run_ = iterations_done;
  iteration_ = iterations_done + 1;
  loop_seconds_ = seconds_so_far;
}

Vector5 LuSolver::residual_norms() const {
  return rms_from_sums(config_.grid, comm_.all_reduce_sum(local_sum_of_squares(config_.grid, owned_, rsd_)));
}

SolveResult LuSolver::finish() {
  SolveResult result;
  result.seconds = comm_.all_reduce_max(loop_seconds_);
  result.iterations = iterations_run_;
  result.timers = timers_;
  result.history = history_;
  // The norms of the current residual: at the last iteration the same
  // arithmetic as rsdnm_, on a run stopped early its up-to-date value.
  result.residual_norms = residual_norms();

  const GridSize& g = config_.grid;
  result.error_norms =
      rms_from_sums(g, comm_.all_reduce_sum(local_error_sum_of_squares(coeff_, g, owned_, u_)));
  const auto local = local_surface_sums(g, owned_, u_);
  result.surface_integral = surface_integral(coeff_, comm_.all_reduce_sum(local));
  return result;
}

template <class Work>
void LuSolver::compute_phase(Phase phase, Work&& work) {
  const double t0 = wall_seconds();
  work();
  const double t = wall_seconds() - t0;
  timers_[phase] += t;
  emulate_speed(t);
}

void LuSolver::emulate_speed(double seconds) {
  if (!config_.emulation.active()) return;
  const double speed = config_.emulation.speed(comm_.rank(), iteration_);
  if (speed >= 1.0) return;
  const double t0 = wall_seconds();
  spin_for(seconds * (1.0 / speed - 1.0));
  timers_[Phase::emulated_delay] += wall_seconds() - t0;
}

double LuSolver::measure_compute(int iterations) {
  compute_initial_fields();
  untimed_ssor(1);
  reset_state();
  untimed_ssor(iterations);
  return timers_.compute();
}

Vector5 LuSolver::residual_norm() {
  ScopedPhase t(timers_, Phase::norms);
  return residual_norms();
}

bool LuSolver::residual_converged() const {
  return std::all_of(rsdnm_.begin(), rsdnm_.end(), [](double r) { return r < kResidualTolerance; });
}

namespace {

/// SweepNeighbours from two callables (what the solver does when a plane's
/// halo row is needed and when its edge row is final) and the ranks of the
/// pipeline.
template <class Needed, class Done>
class SweepHooks final : public SweepNeighbours {
 public:
  SweepHooks(Needed needed, Done done, int ranks)
      : needed_(std::move(needed)), done_(std::move(done)), ranks_(ranks) {}
  void plane_needed(int k) override { needed_(k); }
  void plane_done(int k) override { done_(k); }
  [[nodiscard]] int pipeline_ranks() const override { return ranks_; }

 private:
  Needed needed_;
  Done done_;
  int ranks_;
};

/// A sweep's sends, block by block in the order posted. A message above the
/// library's eager limit goes by a rendezvous, which the library moves on only
/// while it runs, and an upstream stripe enters MPI only to send: testing its
/// earlier sends after each send lets the library go on. Without it, in about
/// a tenth of class C's iterations on 2 ranks (rows of 6.5 KB) the two
/// stripes' sweeps ran one after the other instead of side by side
/// (docs/performance.md). Only above 4 KB (Open MPI's shared memory: the
/// lowest eager limit of the libraries we run on): a test that finds nothing
/// to do still passes through the library's progress, which cost class A on
/// 2 ranks (rows of 2.5 KB) 4%.
class SweepSends {
 public:
  static constexpr std::size_t kEagerLimitBytes = 4096;
  SweepSends(int blocks, std::size_t message_bytes)
      : requests_(blocks, MPI_REQUEST_NULL), rendezvous_(message_bytes > kEagerLimitBytes) {}
  [[nodiscard]] MPI_Request* request(int block) { return &requests_[block]; }
  /// After block `block` is posted: the earlier ones tested, oldest first, up
  /// to the first still in flight.
  void posted(int block) {
    for (int done = 1; rendezvous_ && done && first_pending_ < block; first_pending_ += done)
      check_mpi(MPI_Test(&requests_[first_pending_], &done, MPI_STATUS_IGNORE), "sweep send test");
  }
  void complete(WaitMode mode) { wait_for_all(int(requests_.size()), requests_.data(), mode); }

 private:
  std::vector<MPI_Request> requests_;
  bool rendezvous_;
  int first_pending_ = 0;
};

}  // namespace

void LuSolver::pipelined_sweep(Sweep sweep, int tag) {
  // The lower sweep runs k upwards and waits for each plane's last row from
  // the stripe below; the upper sweep runs k downwards and waits for each
  // plane's first row from the stripe above. Otherwise they are the same.
  // Planes go in blocks of planes_per_message consecutive k: a block's rows of
  // one column are contiguous, so a block is one message, sent once all its
  // planes are computed and waited for before the first of them is needed.
  // The kernel says when (lu/sweeps.hpp): it sweeps kW planes at once, lane t
  // a row behind lane t - 1, so a plane is needed and done a step after the
  // one before it.
  const bool lower = sweep == Sweep::lower;
  const GridSize& g = config_.grid;
  const int planes = g.nz - 2;
  const int row = row_elements(g.nx);  // doubles of one (k, j) row
  const int source = lower ? comm_.previous() : comm_.next();
  const int destination = lower ? comm_.next() : comm_.previous();
  const int halo_column = lower ? owned_.begin - 1 : owned_.end;
  const int edge_column = lower ? owned_.end - 1 : owned_.begin;
  const int per_block = std::clamp(config_.planes_per_message, 1, planes);
  const int blocks = (planes + per_block - 1) / per_block;
  const auto plane_of_step = [&](int step) { return lower ? 1 + step : planes - step; };
  const auto step_of_plane = [&](int k) { return lower ? k - 1 : planes - k; };
  const auto block_steps = [&](int b) { return std::min(planes, (b + 1) * per_block) - b * per_block; };
  // Lowest k of block b (its rows start there in memory).
  const auto block_low_plane = [&](int b) {
    return lower ? plane_of_step(b * per_block) : plane_of_step(b * per_block + block_steps(b) - 1);
  };

  // Pre-post the receives of every block's boundary rows.
  // One tag for the whole sweep: blocks are sent in step order and the
  // receives posted in step order, so MPI's no-overtaking rule pairs them.
  std::vector<MPI_Request> recv(blocks, MPI_REQUEST_NULL);
  SweepSends send(blocks, std::size_t(row) * per_block * sizeof(double));
  if (source != MPI_PROC_NULL) {
    for (int b = 0; b < blocks; ++b) {
      check_mpi(MPI_Irecv(rsd_.row(block_low_plane(b), halo_column), row * block_steps(b), MPI_DOUBLE, source,
                          tag, comm_.get(), &recv[b]),
                "sweep receive");
    }
  }
  // An emulated slow rank spins after each stretch of computing, so that it
  // sends its rows as late as a slower CPU would.
  double computing_since = wall_seconds();
  const auto computed = [&] { emulate_speed(wall_seconds() - computing_since); };
  const auto needed = [&](int k) {
    computed();
    const int step = step_of_plane(k);
    if (step % per_block == 0) {
      ScopedPhase t(timers_, Phase::pipeline_wait);
      wait_for(recv[step / per_block], wait_mode());
    }
    computing_since = wall_seconds();
  };
  const auto done = [&](int k) {
    computed();
    const int step = step_of_plane(k);
    const int b = step / per_block;
    if (step == b * per_block + block_steps(b) - 1 && destination != MPI_PROC_NULL) {
      check_mpi(MPI_Isend(rsd_.row(block_low_plane(b), edge_column), row * block_steps(b), MPI_DOUBLE,
                          destination, tag, comm_.get(), send.request(b)),
                "sweep send");
      send.posted(b);
    }
    computing_since = wall_seconds();
  };
  SweepHooks hooks(needed, done, comm_.size());
  SweepTimes st;
  (lower ? lower_sweep : upper_sweep)(coeff_, g, owned_, u_, rsd_, sweep_ws_, st, hooks);
  computed();
  {
    ScopedPhase t(timers_, Phase::pipeline_wait);
    send.complete(wait_mode());
  }
  timers_[lower ? Phase::jacld : Phase::jacu] += st.jacobian;
  timers_[lower ? Phase::blts : Phase::buts] += st.solve;
  timers_[Phase::update] += st.update;
}

void LuSolver::prepare_iterations() {
  state_written();  // the halos and residual of u as it now is
  // The norm NPB checks at every iteration, taken at the start and every inorm = itmax iterations: a run
  // stops early only when it starts converged. A state written later (a checkpoint restored, a caller's
  // field) leaves it: a restarted run runs the iterations the uninterrupted one would.
  rsdnm_ = residual_norm();
  timers_.clear();
  iterations_run_ = 0;
  converged_ = false;
  loop_seconds_ = 0.0;
  history_.clear();
}

double LuSolver::untimed_ssor(int niter) {
  prepare_iterations();
  comm_.barrier();
  const double start = wall_seconds();
  for (int istep = 1; istep <= niter && !iterate(istep, false); ++istep) {
  }
  return comm_.all_reduce_max(wall_seconds() - start);
}

bool LuSolver::iterate(int istep, bool timed) {
  const GridSize& g = config_.grid;
  iteration_ = istep;
  const bool sleeps = wait_mode() == WaitMode::sleep;  // auto decides again at the end
  const double compute_before = timers_.compute(), wait_before = timers_.wait();
  const RunQueueClock::Reading sched_before = run_queue_.read();
  // NPB's rsd *= dt and u += factor * rsd ride on the sweeps' rows, each row
  // while it is in cache (lower_sweep, upper_sweep): the same
  // arithmetic, point by point, as whole-field passes.
  pipelined_sweep(Sweep::lower, kTagSweepLower);
  pipelined_sweep(Sweep::upper, kTagSweepUpper);
  // NPB also takes the norm of the SSOR correction here; nothing reads it.
  timers_[Phase::halo_exchange] += halo_exchange(u_, owned_, kStateHalo, comm_, wait_mode()).total;
  compute_phase(Phase::rhs, [&] { compute_residual(coeff_, g, owned_, u_, frct_, rsd_, residual_ws_); });
  iterations_run_ = istep;
  const RunQueueClock::Reading sched = run_queue_.read();
  IterationRecord& record = history_.emplace_back();
  record.compute = timers_.compute() - compute_before;
  record.wait = timers_.wait() - wait_before;
  record.on_cpu = sched.on_cpu - sched_before.on_cpu;
  record.run_delay = sched.waiting - sched_before.waiting;
  record.owned = owned_;
  record.speed = config_.emulation.speed(comm_.rank(), istep);
  record.slept = sleeps;
  automatic_wait_.update(history_.back().on_cpu, history_.back().run_delay);
  if (timed) {
    maybe_rebalance(istep);
    if (iteration_hook_) iteration_hook_(istep, history_);
  }
  // NPB's inorm is itmax: the norm is taken at the last iteration only.
  if (istep % config_.iterations == 0) rsdnm_ = residual_norm();
  return residual_converged();
}

void LuSolver::maybe_rebalance(int istep) {
  if (!rebalance_ || istep >= config_.iterations) return;  // nothing follows the last iteration
  const double t0 = wall_seconds();
  if (!rebalance_(istep, history_)) return;
  history_.back().migration = wall_seconds() - t0;
  timers_[Phase::migration] += history_.back().migration;
}

std::string LuSolver::checksum() const { return field_checksum(u_, owned_, config_.grid.ny, comm_); }

}  // namespace npblu
