#pragma once
// RunQueueClock: how long this thread has been running and how long it has
// been runnable but not running (Linux schedstat). Their ratio is the share
// of a core the rank actually gets. Ranks time-sharing a core, with an MPI
// that yields while it polls, compute at full speed in turns and spend the
// rest of the time "waiting in MPI": their wall-clock compute and wait look
// like a dedicated core's, and only the core share tells them apart.
namespace npblu {

class RunQueueClock {
 public:
  /// Opens /proc/thread-self/schedstat for the calling thread; without it
  /// (not Linux, no schedstats) the clock reads 0 and available() is false.
  RunQueueClock();
  ~RunQueueClock();
  RunQueueClock(const RunQueueClock&) = delete;
  RunQueueClock& operator=(const RunQueueClock&) = delete;
  RunQueueClock(RunQueueClock&& other) noexcept;
  RunQueueClock& operator=(RunQueueClock&& other) noexcept;

  [[nodiscard]] bool available() const { return fd_ >= 0; }
  struct Reading {
    double on_cpu = 0.0;   // seconds running
    double waiting = 0.0;  // seconds runnable but waiting on a run queue
  };
  /// Totals since the thread started.
  [[nodiscard]] Reading read() const;

 private:
  int fd_ = -1;
};

}  // namespace npblu
