#pragma once
// What a peer may make this process allocate and hold before it has proved itself.
//
// CAF 0.17's BASP broker reads a 32-byte header, then allocates the payload its `payload_len`
// announces (up to 4 GiB) and waits for it, with no limit and no deadline: one forged header on
// a task's port, before any handshake or cluster id check, cost a task 4 GB and its network
// thread seconds; idle or truncated connections were held forever. That cannot be bounded from
// outside the broker (its instance reads the header and configures the read itself), so every
// connection of our connection manager (net/connection_manager.cpp) runs through a guard first:
//
//   - each header the broker receives goes through a basp_stream_check before the broker sees
//     it: before the handshake only a handshake message of at most 64 KiB, after it at most
//     1 GiB per message (tensors above 32 MiB travel in 4 MiB chunks or over the bulk channel);
//     a header that breaks this closes the connection, nothing is allocated for it;
//   - an accepted connection that has not finished its handshake within 5 s is closed
//     (handshake_watchdog), TLS handshake included;
//   - at most 16 connections per peer address may be in their handshake at once; more are
//     closed as they are accepted.
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>

#include "graph/core/status.hpp"

namespace caflow {

inline constexpr size_t basp_header_bytes = 32;
inline constexpr uint32_t max_basp_handshake_payload = 64u << 10;
inline constexpr uint32_t max_basp_message_payload = 1u << 30;
inline constexpr std::chrono::milliseconds basp_handshake_timeout{5000};
inline constexpr size_t max_handshakes_per_address = 16;

// Follows one connection's BASP stream as the broker reads it: header, payload (when the
// header announces one), header, ... Not thread-safe: one per connection, used by the thread
// that reads it.
class basp_stream_check {
 public:
  // `data` holds the `n` bytes the broker asked for and got: a header when one is due, else
  // the payload the last header announced. An error means the connection must be closed before
  // the broker sees these bytes; it says what was wrong.
  status received(const void* data, size_t n);
  // Whether the peer's first message, its handshake, has been received whole.
  bool handshake_done() const { return handshake_done_; }

 private:
  bool expecting_header_ = true;
  bool in_handshake_payload_ = false;
  bool handshake_done_ = false;
};

// What the guards refused since the process started (for tests and logs).
struct basp_guard_counts {
  std::atomic<int64_t> bad_headers{0};         // closed by basp_stream_check
  std::atomic<int64_t> handshake_timeouts{0};  // closed by the watchdog
  std::atomic<int64_t> over_address_limit{0};  // closed at accept
};
basp_guard_counts& basp_guard_stats();

}  // namespace caflow
