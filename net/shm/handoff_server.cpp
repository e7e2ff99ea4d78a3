#include "net/shm/handoff_server.hpp"

#include <poll.h>

#include <cerrno>
#include <cstring>

#include "graph/platform/thread_name.hpp"

namespace caflow {

status_or<std::unique_ptr<handoff_server>> handoff_server::open() {
  CAFLOW_ASSIGN_OR_RETURN(shm_listener listener, shm_listener::open());
  CAFLOW_ASSIGN_OR_RETURN(stop_signal stop, stop_signal::make());
  return std::unique_ptr<handoff_server>(new handoff_server(std::move(listener), std::move(stop)));
}

handoff_server::~handoff_server() {
  stop_.raise();
  if (thread_.joinable()) thread_.join();
}

void handoff_server::serve(std::string secret, handoff_handlers handlers) {
  secret_ = std::move(secret);
  handlers_ = std::move(handlers);
  thread_ = std::thread([this] { loop(); });
}

void handoff_server::loop() {
  name_this_thread("cf.handoff");
  std::vector<pollfd> fds;
  std::vector<size_t> ready;
  for (;;) {
    fds.assign({{stop_.fd(), POLLIN, 0}, {listener_.socket().get(), POLLIN, 0}});
    if (handlers_.watched)
      for (int fd : handlers_.watched()) fds.push_back({fd, POLLIN, 0});
    if (::poll(fds.data(), fds.size(), -1) < 0) {
      if (errno == EINTR) continue;
      if (handlers_.stopped)
        handlers_.stopped(std::string("poll failed (") + std::strerror(errno) + ")");
      return;
    }
    if (fds[0].revents != 0) return;
    // Kept connections first: their indices refer to the list just polled.
    ready.clear();
    for (size_t i = 2; i < fds.size(); ++i)
      if (fds[i].revents != 0) ready.push_back(i - 2);
    if (!ready.empty() && handlers_.readable) handlers_.readable(ready);
    if (fds[1].revents != 0) handlers_.accepted(listener_.accept(secret_));
  }
}

}  // namespace caflow
