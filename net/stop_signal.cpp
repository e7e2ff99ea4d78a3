#include "net/stop_signal.hpp"

#include <sys/eventfd.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>

namespace caflow {

status_or<stop_signal> stop_signal::make() {
  const int fd = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (fd < 0) return errors::internal("eventfd failed: ", std::strerror(errno));
  return stop_signal(fd);
}

stop_signal::~stop_signal() {
  if (fd_ >= 0) ::close(fd_);
}

void stop_signal::raise() {
  const uint64_t one = 1;
  (void)!::write(fd_, &one, sizeof one);
}

}  // namespace caflow
