#pragma once
// A thread that serves a shm listener (net/shm/shm_handoff.hpp) until it is destroyed: it waits
// on the listener, on the connections its owner keeps open and on its stop signal, accepts each
// peer's handshake, and hands the owner every outcome. The shm receiver (which keeps its
// senders' connections open) and the ring listener (which keeps none) are its owners.
//
// Every callback runs on the server's thread, one at a time; `watched` and `readable` are
// called in the same turn, so the indices `readable` gets refer to the list `watched` gave.
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "graph/core/status.hpp"
#include "net/shm/shm_handoff.hpp"
#include "net/stop_signal.hpp"

namespace caflow {

struct handoff_handlers {
  // A peer passed the handshake (a channel) or failed it (the error, naming why).
  std::function<void(status_or<shm_channel>)> accepted;
  // Sockets of kept connections to wait on besides the listener; none when unset.
  std::function<std::vector<int>()> watched{};
  // The indices, into the last `watched` list, of connections that became readable (their peer
  // closed them, or sent what it should not).
  std::function<void(const std::vector<size_t>&)> readable{};
  // Waiting failed (poll's error): the server takes no more peers.
  std::function<void(const std::string& why)> stopped{};
};

class handoff_server {
 public:
  // Opens a listener and its stop signal; nothing runs until serve(). Errors: the listener's
  // (naming the path) or the signal's.
  static status_or<std::unique_ptr<handoff_server>> open();
  // Stops the thread and joins it (the running callback, if any, finishes first), then closes
  // the listener.
  ~handoff_server();
  handoff_server(const handoff_server&) = delete;
  handoff_server& operator=(const handoff_server&) = delete;

  // Where peers connect.
  const std::string& path() const { return listener_.path(); }
  // Starts the thread: peers must prove `secret`. REQUIRES: called once, after everything the
  // handlers touch exists.
  void serve(std::string secret, handoff_handlers handlers);

 private:
  handoff_server(shm_listener listener, stop_signal stop)
      : listener_(std::move(listener)), stop_(std::move(stop)) {}
  void loop();

  shm_listener listener_;
  stop_signal stop_;
  std::string secret_;
  handoff_handlers handlers_;
  std::thread thread_;
};

}  // namespace caflow
