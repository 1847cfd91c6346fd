// The C API of npblu_balance.h: the solver's partitioning, balancer and
// column migration over a caller's own column count and arrays. The loop
// is the BalancerSession's behind CollectiveBalancer (the solver's): its
// cadence (due), its decision and log; the migration of the caller's arrays
// is npblu_balance_migrate_c.cpp's. This file only checks
// arguments, agrees on calls and errors (every collective call first meets
// the others in agree_call, as npblu.h's calls do) and converts between
// the caller's numbering and Partition. Statuses and messages come from the
// C API's one map (npblu_status.hpp).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <exception>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "balance/parse_number.hpp"
#include "interop/c/npblu_balance.h"
#include "interop/c/npblu_balancer_handle.hpp"
#include "interop/c/npblu_status.hpp"
#include "lu/migration/collective_balancer.hpp"
#include "lu/mpi/agreement.hpp"
#include "lu/mpi/communicator.hpp"
#include "lu/mpi/messages.hpp"
#include "lu/mpi/request_wait.hpp"
#include "lu/run_queue_clock.hpp"

namespace {

using npblu::ColumnRange;
using npblu::Partition;

using npblu::c_api::copy_message;
using npblu::c_api::fail;
using npblu::c_api::guarded;

/// The caller's settings (null: the defaults); throws std::invalid_argument
/// naming the setting (`every`, `threshold`, ...) when one is out of range.
npblu::BalancerSettings to_settings(const npblu_balance_settings* s) {
  npblu::BalancerSettings out;
  if (s) {
    out.every = s->every;
    out.threshold = s->threshold;
    out.damping = s->damping;
    out.min_width = s->min_width;
    out.persistence = s->persistence;
    if (s->core_share != 0 && s->core_share != 1)
      throw std::invalid_argument("core_share must be 0 or 1, got " + std::to_string(s->core_share));
  }
  npblu::validate(out);
  return out;
}

/// The starting partition; throws std::invalid_argument on bad input.
Partition starting_partition(int columns, int ranks, const int* widths, const double* weights,
                             int min_width) {
  if (columns < 1)
    throw std::invalid_argument("the column count must be at least 1, got " + std::to_string(columns));
  const ColumnRange all{0, columns};
  if (widths && weights) throw std::invalid_argument("give widths or weights, not both");
  if (widths) return Partition::from_widths(all, std::span(widths, ranks), min_width);
  if (weights) return Partition::from_weights(all, std::span(weights, ranks), min_width);
  return Partition::equal(all, ranks, min_width);
}

/// Every value of create that must agree across ranks, as agree_call's text.
std::string create_arguments(int columns, int ranks, const int* widths, const double* weights,
                             const npblu::BalancerSettings& s, bool core_share) {
  npblu::c_api::ArgumentText t;
  t.add("columns", columns).add("widths given", widths != nullptr).add("weights given", weights != nullptr);
  t.add("every", s.every).add("threshold", s.threshold).add("damping", s.damping);
  t.add("min_width", s.min_width).add("persistence", s.persistence).add("core_share", core_share);
  for (int r = 0; r < ranks; ++r) {
    if (widths) t.add("widths", widths[r]);
    if (weights) t.add("weights", weights[r]);
  }
  return t.str();
}

/// The lengths of the caller's widths and weights (-1: not known, C), where
/// the Fortran module knows them: checked before either is read.
struct ArrayLengths {
  int widths = -1, weights = -1;
};

/// A Fortran array of `length` values where one per rank is needed ("" if
/// it has that many, or its length is not known: -1, C).
std::string count_problem(const char* name, int length, int ranks) {
  if (length < 0 || length == ranks) return "";
  return std::string(name) + " holds " + npblu::counted(length, "value") + " for " + std::to_string(ranks) +
         " ranks";
}

std::string lengths_problem(const int* widths, const double* weights, ArrayLengths n, int ranks) {
  std::string problem = widths ? count_problem("widths", n.widths, ranks) : "";
  if (problem.empty() && weights) problem = count_problem("weights", n.weights, ranks);
  return problem;
}

/// Collective: checks every rank's arguments (the message of the lowest
/// rank with a bad one), then that all ranks passed the same, then creates.
int create_on(npblu_balancer** handle, MPI_Comm comm, int columns, const int* widths, const double* weights,
              const npblu_balance_settings* settings, std::string& message, ArrayLengths lengths) {
  int ranks = 0;
  MPI_Comm_size(comm, &ranks);  // a local query, on a communicator creation_problem has checked
  std::string problem = handle ? lengths_problem(widths, weights, lengths, ranks) : "null handle pointer";
  const bool core_share = !settings || settings->core_share != 0;
  std::optional<Partition> start;
  npblu::BalancerSettings s;
  try {
    s = to_settings(settings);
    if (problem.empty()) start = starting_partition(columns, ranks, widths, weights, s.min_width);
  } catch (const std::exception& e) {
    if (problem.empty()) problem = e.what();
  }
  if (npblu::first_failure(problem.empty(), problem, comm, message)) return NPBLU_ERROR_ARGUMENT;
  try {
    npblu::c_api::agree_call(comm, "npblu_balancer_create",
                             create_arguments(columns, ranks, widths, weights, s, core_share));
    *handle = new npblu_balancer(npblu::Communicator::duplicate(comm), s, *start, core_share);
    return NPBLU_OK;
  } catch (...) {
    return npblu::c_api::status_of_current_exception(message);
  }
}

/// create_on behind the communicator's check: an invalid one gives a status, never an abort.
int create_checked(npblu_balancer** handle, MPI_Comm comm, int columns, const int* widths,
                   const double* weights, const npblu_balance_settings* settings, char* message, int length,
                   ArrayLengths lengths) {
  if (handle) *handle = nullptr;
  std::string text = npblu::c_api::creation_problem(comm);
  const int status = text.empty() ? create_on(handle, comm, columns, widths, weights, settings, text, lengths)
                                  : (text = "npblu_balancer_create: " + text, NPBLU_ERROR_ARGUMENT);
  if (status != NPBLU_OK) copy_message(npblu::one_line_message(text), message, length);
  return status;
}

bool is_time(double seconds) { return std::isfinite(seconds) && seconds >= 0.0; }

/// Reading the run-queue clock is a system call (1.6 us alone on a KVM
/// guest; read at every feed, heat_balance's 3000 feeds of 0.1 ms steps
/// spent 26.6 ms in this API, 8% of its run). It is read once the feeds
/// since the last reading add up to this much time, and before every
/// decision; what it measured is spread over those feeds in proportion to
/// their time. Iterations at least this long (lu's) still get each their own.
constexpr double kClockPeriodSeconds = 2e-3;

/// Reads the clock and gives the feeds since the last reading their share
/// of the time on a core and waiting for one.
void read_clock(npblu_balancer* h) {
  const npblu::RunQueueClock::Reading now = h->clock.read();
  const double on_cpu = now.on_cpu - h->last_reading.on_cpu;
  const double run_delay = now.waiting - h->last_reading.waiting;
  h->last_reading = now;
  const auto unread = std::span(h->window).subspan(h->unread);
  for (auto& t : unread) {
    const double part = h->unread_seconds > 0.0 ? (t.compute + t.wait) / h->unread_seconds
                                                : 1.0 / static_cast<double>(unread.size());
    t.on_cpu = on_cpu * part;
    t.run_delay = run_delay * part;
  }
  h->unread = h->window.size();
  h->unread_seconds = 0.0;
}

/// What is wrong with fed times ("" if nothing).
std::string feed_problem(const npblu_balancer* h, double compute, double wait) {
  if (is_time(compute) && is_time(wait)) return "";
  return "fed times must be finite and non-negative, got compute " + npblu::number_text(compute) +
         " s, wait " + npblu::number_text(wait) + " s (rank " + std::to_string(h->comm.rank()) + ")";
}

/// Records one feed (the run-queue clock read when due); `problem` is
/// feed_problem's verdict on it.
void record_feed(npblu_balancer* h, double compute, double wait, const std::string& problem) {
  if (!problem.empty()) {
    if (h->bad_feed.empty()) h->bad_feed = problem;
    h->window.push_back({});
    return;
  }
  h->window.push_back({compute, wait, 0.0, 0.0});  // (0 and 0 without the clock: share 1)
  if (!h->core_share) return;
  h->unread_seconds += compute + wait;
  if (h->unread_seconds >= kClockPeriodSeconds) read_clock(h);
}

/// Collective: the decision at the end of a window (the session's cadence);
/// `refusal` is the lowest rank's bad feed of this window, agreed ("" if none).
int decide(npblu_balancer* h, const std::string& refusal, int* changed) {
  if (h->core_share && h->unread < h->window.size()) read_clock(h);
  std::vector<npblu::IterationTiming> window;
  std::swap(window, h->window);
  h->unread = 0;
  h->bad_feed.clear();
  if (!refusal.empty()) return fail(h, NPBLU_ERROR_ARGUMENT, refusal + "; this window decided nothing");
  // Nobody tells this API how long the run goes on: a run that has gone n
  // iterations is taken to go on for n more (at least one window).
  const double horizon = std::max(h->fed, h->balancer.settings().every);
  if (h->balancer.decide(h->fed, window, horizon, h->wait).moved_columns > 0 && changed) *changed = 1;
  return NPBLU_OK;
}

/// One feed: recorded, and at the end of a window (BalancerSession::due)
/// the collective decision. The deciding feed first meets the other ranks'
/// calls (agree_call): a feed more or fewer on one rank, or another call
/// there, is refused alike on every rank (nothing recorded) instead of
/// pairing with an unrelated collective and hanging. The same all-reduce
/// agrees whether some rank was fed bad times in this window.
int feed(npblu_balancer* h, double compute_seconds, double wait_seconds, int* changed) {
  const int iteration = h->fed + 1;
  const bool deciding = h->balancer.session().due(iteration);
  const std::string bad = feed_problem(h, compute_seconds, wait_seconds);
  std::string refusal;
  if (deciding) {
    refusal = npblu::c_api::agree_call(
        h->comm.get(), "npblu_balancer_feed",
        npblu::c_api::ArgumentText().add("deciding feed").add("iteration", iteration).str(),
        h->bad_feed.empty() ? bad : h->bad_feed, h->wait);
  }
  h->balancer.session().settle();
  h->fed = iteration;
  record_feed(h, compute_seconds, wait_seconds, bad);
  if (deciding) return decide(h, refusal, changed);
  return bad.empty() ? NPBLU_OK : fail(h, NPBLU_ERROR_ARGUMENT, bad);
}

/// Collective: agrees on `call`'s one value per rank, `values` (null, or
/// `length` values; -1: one per rank, C). "" or the refusal every rank then
/// holds: a Fortran array of another length, or ranks passing other values.
std::string agreed_per_rank(npblu_balancer* h, const char* call, const char* name, const int* values,
                            int length) {
  const int ranks = h->balancer.session().current().ranks();
  const std::string problem = values ? count_problem(name, length, ranks) : "";
  npblu::c_api::ArgumentText arguments;
  if (!values) arguments.add(name, "null");
  for (int r = 0; values && r < ranks && (length < 0 || r < length); ++r) arguments.add(name, values[r]);
  const std::string agreed = npblu::c_api::agree_call(h->comm.get(), call, arguments.str(), problem);
  return agreed.empty() ? "" : std::string(call) + ": " + agreed;
}

/// Collective: imposes `widths` (`length` values, -1: one per rank) as the current partition.
int set_widths(npblu_balancer* h, const int* widths, int length = -1) {
  const Partition& current = h->balancer.session().current();
  const int ranks = current.ranks();
  const std::string refused = agreed_per_rank(h, "npblu_balancer_set_widths", "widths", widths, length);
  if (!refused.empty()) return fail(h, NPBLU_ERROR_ARGUMENT, refused);
  // (the same widths on every rank from here: the same verdict everywhere)
  if (!widths) return fail(h, NPBLU_ERROR_ARGUMENT, "npblu_balancer_set_widths: null widths");
  h->balancer.session().set_current(
      Partition::from_widths(current.interior(), std::span(widths, ranks), h->balancer.settings().min_width));
  return NPBLU_OK;
}

/// Collective: the most columns each rank may own (null: no limit; `length` as for set_widths).
int set_max_widths(npblu_balancer* h, const int* max_widths, int length = -1) {
  const int ranks = h->balancer.session().current().ranks();
  const std::string refused =
      agreed_per_rank(h, "npblu_balancer_set_max_widths", "max_widths", max_widths, length);
  if (!refused.empty()) return fail(h, NPBLU_ERROR_ARGUMENT, refused);
  // (the same limits on every rank from here: the same verdict everywhere)
  try {
    h->balancer.session().set_max_widths(max_widths ? std::vector<int>(max_widths, max_widths + ranks)
                                                    : std::vector<int>{});
  } catch (const std::invalid_argument& e) {
    return fail(h, NPBLU_ERROR_ARGUMENT, std::string("npblu_balancer_set_max_widths: ") + e.what());
  }
  return NPBLU_OK;
}

void write_cuts(const Partition& p, int* cuts) {
  for (int r = 0; r < p.ranks(); ++r) cuts[r] = p[r].begin;
  cuts[p.ranks()] = p.interior().end;
}

// A getter's output pointer is NULL: said in the handle's message, as the solver's getters say it.
int null_output(const npblu_balancer* h, const char* call) {
  const_cast<npblu_balancer*>(h)->error =
      std::string(call) + ": an output pointer is NULL";  // only the message
  return NPBLU_ERROR_ARGUMENT;
}

int write_range(const npblu_balancer* h, const Partition& p, int* begin, int* end, const char* call) {
  if (!h) return NPBLU_ERROR_ARGUMENT;
  if (!begin || !end) return null_output(h, call);
  *begin = p[h->comm.rank()].begin;
  *end = p[h->comm.rank()].end;
  return NPBLU_OK;
}

}  // namespace

extern "C" {

int npblu_balance_settings_default(npblu_balance_settings* s) {
  if (!s) return NPBLU_ERROR_ARGUMENT;
  const npblu::BalancerSettings d;
  *s = {d.every, d.threshold, d.damping, d.min_width, d.persistence, 1};
  return NPBLU_OK;
}

int npblu_partition_from_weights(int columns, int ranks, const double* weights, int min_width, int* cuts,
                                 char* message, int length) {
  if (!weights || !cuts || ranks < 1) {
    copy_message(ranks < 1  ? "ranks " + std::to_string(ranks) + " is below 1"
                 : !weights ? std::string("weights is a null pointer")
                            : std::string("cuts is a null pointer"),
                 message, length);
    return NPBLU_ERROR_ARGUMENT;
  }
  try {
    if (columns < 1)
      throw std::invalid_argument("the column count must be at least 1, got " + std::to_string(columns));
    write_cuts(Partition::from_weights({0, columns}, std::span(weights, ranks), min_width), cuts);
    return NPBLU_OK;
  } catch (const std::exception& e) {
    copy_message(npblu::one_line_message(e.what()), message, length);
    return NPBLU_ERROR_ARGUMENT;
  }
}

int npblu_balancer_create(npblu_balancer** handle, MPI_Comm comm, int columns, const int* widths,
                          const double* weights, const npblu_balance_settings* settings, char* message,
                          int length) {
  return create_checked(handle, comm, columns, widths, weights, settings, message, length, {});
}

int npblu_balancer_create_fn(npblu_balancer** handle, MPI_Fint comm, int columns, const int* widths,
                             int widths_length, const double* weights, int weights_length,
                             const npblu_balance_settings* settings, char* message, int length) {
  return create_checked(handle, npblu::c_api::from_fortran(comm), columns, widths, weights, settings, message,
                        length, {widths_length, weights_length});
}

int npblu_balancer_create_f(npblu_balancer** handle, MPI_Fint comm, int columns, const int* widths,
                            const double* weights, const npblu_balance_settings* settings, char* message,
                            int length) {
  return npblu_balancer_create(handle, npblu::c_api::from_fortran(comm), columns, widths, weights, settings,
                               message, length);
}

int npblu_balancer_destroy(npblu_balancer** handle) {
  return npblu::c_api::destroy_agreed(handle, "npblu_balancer_destroy");
}

int npblu_balancer_feed(npblu_balancer* h, double compute_seconds, double wait_seconds, int* changed) {
  if (changed) *changed = 0;
  return guarded(h, "npblu_balancer_feed", [&] { return feed(h, compute_seconds, wait_seconds, changed); });
}

int npblu_balancer_set_widths(npblu_balancer* h, const int* widths) {
  return guarded(h, "npblu_balancer_set_widths", [&] { return set_widths(h, widths); });
}

int npblu_balancer_set_max_widths(npblu_balancer* h, const int* max_widths) {
  return guarded(h, "npblu_balancer_set_max_widths", [&] { return set_max_widths(h, max_widths); });
}

int npblu_balancer_set_widths_fn(npblu_balancer* h, const int* widths, int length) {
  return guarded(h, "npblu_balancer_set_widths", [&] { return set_widths(h, widths, length); });
}

int npblu_balancer_set_max_widths_fn(npblu_balancer* h, const int* max_widths, int length) {
  return guarded(h, "npblu_balancer_set_max_widths", [&] { return set_max_widths(h, max_widths, length); });
}

int npblu_balancer_columns(const npblu_balancer* h, int* begin, int* end) {
  return h ? write_range(h, h->balancer.session().current(), begin, end, "npblu_balancer_columns")
           : NPBLU_ERROR_ARGUMENT;
}

int npblu_balancer_previous_columns(const npblu_balancer* h, int* begin, int* end) {
  return h ? write_range(h, h->balancer.session().previous(), begin, end, "npblu_balancer_previous_columns")
           : NPBLU_ERROR_ARGUMENT;
}

int npblu_balancer_cuts(const npblu_balancer* h, int* cuts) {
  if (!h) return NPBLU_ERROR_ARGUMENT;
  if (!cuts) return null_output(h, "npblu_balancer_cuts");
  write_cuts(h->balancer.session().current(), cuts);
  return NPBLU_OK;
}

int npblu_balancer_ranks(const npblu_balancer* h, int* ranks) {
  if (!h) return NPBLU_ERROR_ARGUMENT;
  if (!ranks) return null_output(h, "npblu_balancer_ranks");
  *ranks = h->balancer.session().current().ranks();
  return NPBLU_OK;
}

int npblu_balancer_last_decision(const npblu_balancer* h, int* moved_columns, int* moves,
                                 double* imbalance_before, double* imbalance_after) {
  if (!h) return NPBLU_ERROR_ARGUMENT;
  const npblu::BalanceDecision& d = h->balancer.session().last();
  const npblu::PredictedImbalance predicted = npblu::predicted_imbalance(d);  // as the session's log
  if (moved_columns) *moved_columns = d.moved_columns;
  if (moves) std::copy(d.moves.begin(), d.moves.end(), moves);
  if (imbalance_before) *imbalance_before = predicted.before;
  if (imbalance_after) *imbalance_after = predicted.after;
  return NPBLU_OK;
}

int npblu_balancer_last_quality(const npblu_balancer* h, double* ratio_before, double* ratio_after) {
  if (!h) return NPBLU_ERROR_ARGUMENT;
  const npblu::PredictedQuality q = npblu::predicted_quality(h->balancer.session().last());
  if (ratio_before) *ratio_before = q.before;
  if (ratio_after) *ratio_after = q.after;
  return NPBLU_OK;
}

int npblu_balancer_totals(const npblu_balancer* h, int* decisions, int* changes, int* moved_columns) {
  if (!h) return NPBLU_ERROR_ARGUMENT;
  const npblu::BalancerSession& s = h->balancer.session();
  if (decisions) *decisions = s.decisions();
  if (changes) *changes = s.steps();
  if (moved_columns) *moved_columns = s.moved_columns();
  return NPBLU_OK;
}

const char* npblu_balancer_error_message(const npblu_balancer* h) {
  return h ? h->error.c_str() : "null handle";
}

int npblu_balancer_copy_error_message(const npblu_balancer* h, char* buf, int length) {
  if (!buf || length < 1) return NPBLU_ERROR_ARGUMENT;
  copy_message(npblu_balancer_error_message(h), buf, length);
  return NPBLU_OK;
}

}  // extern "C"
