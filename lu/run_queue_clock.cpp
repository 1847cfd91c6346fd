#include "lu/run_queue_clock.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <utility>

namespace npblu {

RunQueueClock::RunQueueClock() : fd_(::open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC)) {}

RunQueueClock::~RunQueueClock() {
  if (fd_ >= 0) ::close(fd_);
}

RunQueueClock::RunQueueClock(RunQueueClock&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}

RunQueueClock& RunQueueClock::operator=(RunQueueClock&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = std::exchange(other.fd_, -1);
  }
  return *this;
}

RunQueueClock::Reading RunQueueClock::read() const {
  if (fd_ < 0) return {};
  // "<ns on cpu> <ns waiting on a run queue> <timeslices>"
  char text[96];
  const ssize_t n = ::pread(fd_, text, sizeof text - 1, 0);
  if (n <= 0) return {};
  text[n] = '\0';
  unsigned long long on_cpu = 0, waiting = 0;
  if (std::sscanf(text, "%llu %llu", &on_cpu, &waiting) != 2) return {};
  return {static_cast<double>(on_cpu) * 1e-9, static_cast<double>(waiting) * 1e-9};
}

}  // namespace npblu
