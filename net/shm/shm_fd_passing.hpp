#pragma once
// Handing a shared memory segment (net/shm/shm_segment.hpp) to the peer of a Unix stream socket:
// its descriptor travels as SCM_RIGHTS ancillary data, so the kernel installs a duplicate in the
// receiving process, which maps the same pages. Only the descriptor and a 16-byte header cross
// the socket; no byte of the segment is copied.
//
//   u32 shm_segment_magic, u32 0, u64 segment size   (host byte order: both ends share a host)
//   + exactly one descriptor, attached to the header's first byte
//
// Use it only on a socket whose peer passed the handshake (net/shm/shm_handshake.hpp): the
// receiver maps what it is given.
#include "graph/core/status.hpp"
#include "net/shm/shm_segment.hpp"
#include "net/unix_io.hpp"

namespace caflow {

inline constexpr uint32_t shm_segment_magic = 0xCAF15402;
inline constexpr size_t shm_segment_header_bytes = 16;

// Sends `segment`'s descriptor and size; the segment stays mapped here too.
status send_segment(const socket_fd& s, const shm_segment& segment, io_deadline until);
// The next segment from the peer, mapped. Errors: the peer closed or stalled (as
// read_exact_until), a header that is not this protocol's (data_loss), no descriptor or more
// than one with it (data_loss; extra descriptors are closed), and shm_segment::adopt's refusals
// (an unsealed descriptor, a size other than announced).
status_or<shm_segment> receive_segment(const socket_fd& s, io_deadline until);

}  // namespace caflow
