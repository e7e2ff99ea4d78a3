#pragma once
// Bounded I/O on a connected Unix stream socket, for the same-host shared memory handoff
// (net/shm/shm_handshake.hpp, net/shm/shm_fd_passing.hpp): every read and write has a deadline, so a
// peer that stalls or vanishes gives an error, never a hang, and the peer's credentials as the
// kernel recorded them at connect time.
#include <sys/types.h>

#include <chrono>
#include <cstddef>

#include "graph/core/status.hpp"
#include "net/bulk/socket_io.hpp"

namespace caflow {

using io_deadline = std::chrono::steady_clock::time_point;

// Reads exactly `bytes` bytes. Errors, each naming `what` (the message being read): the peer
// closed the stream first (unavailable, with how many bytes came: a truncated message), the
// deadline passed (deadline_exceeded), or the socket failed.
status read_exact_until(const socket_fd& s, void* into, size_t bytes, io_deadline deadline,
                        const char* what);
// Writes all of `bytes` (never raising SIGPIPE), with the same errors.
status write_all_until(const socket_fd& s, const void* from, size_t bytes, io_deadline deadline,
                       const char* what);
// Waits until `s` is readable (data, the end of the stream or an error): deadline_exceeded
// naming `what` otherwise.
status wait_readable_until(const socket_fd& s, io_deadline deadline, const char* what);
// Waits until `s` can take more bytes; deadline_exceeded naming `what` otherwise.
status wait_writable_until(const socket_fd& s, io_deadline deadline, const char* what);

// OK when the peer of `s` (SO_PEERCRED) runs as `expected_uid`; permission_denied naming both
// uids and the peer's pid otherwise.
status check_peer_uid(const socket_fd& s, uid_t expected_uid);

}  // namespace caflow
