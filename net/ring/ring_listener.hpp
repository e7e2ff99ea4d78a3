#pragma once
// Where a task takes the shared memory rings that same-host peers write their BASP bytes into
// (net/ring/ring_link.hpp, docs/shm_transport.md). One per actor system that accepts rings: a shm
// listener (net/shm/shm_handoff.hpp: a 0700 directory, the peer's uid and its proof of the cluster
// secret checked) and one thread that takes a segment from each connection, names it with a
// random token, tells the writer that token and closes the connection. The writer then names
// the token in its TCP stream, and the connection's reader takes the segment here, once.
//
// A token is random so that a stranger who reached the TCP port cannot claim a ring another
// peer handed over. Segments that nobody claims (the TCP connection died first) are dropped,
// oldest first, beyond max_unclaimed_rings.
#include <chrono>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

#include "graph/core/status.hpp"
#include "net/shm/handoff_server.hpp"
#include "net/shm/shm_segment.hpp"

namespace caflow {

inline constexpr size_t max_unclaimed_rings = 256;
// The largest ring segment a writer may hand over.
inline constexpr size_t max_ring_segment_bytes = size_t{64} << 20;

class ring_listener {
 public:
  // Opens the listener and starts its thread. Errors: the listener's (naming the path).
  static status_or<std::shared_ptr<ring_listener>> start(std::string secret);
  // Closes the listener and joins the thread; segments already claimed stay mapped.
  ~ring_listener() = default;
  ring_listener(const ring_listener&) = delete;
  ring_listener& operator=(const ring_listener&) = delete;

  const std::string& path() const { return server_->path(); }

  // The segment handed over under `token`; null when there is none (never handed over, claimed
  // already, or dropped). Thread-safe.
  std::shared_ptr<shm_segment> claim(uint64_t token);

 private:
  explicit ring_listener(std::unique_ptr<handoff_server> server) : server_(std::move(server)) {}
  void take_one(status_or<shm_channel> channel);

  std::mutex mu_;  // guards the two below
  std::map<uint64_t, std::shared_ptr<shm_segment>> unclaimed_;
  std::deque<uint64_t> arrival_;  // tokens, oldest first (some claimed already)

  std::unique_ptr<handoff_server> server_;  // last: stops before everything above goes
};

// Hands `segment` to the ring listener at `path`, proving `secret`, within `patience`; the
// token it was given. Errors: the listener's absence, the handshake's, the handoff's.
status_or<uint64_t> hand_over_ring(const std::string& path, std::string_view secret,
                                   const shm_segment& segment,
                                   std::chrono::milliseconds patience);

}  // namespace caflow
