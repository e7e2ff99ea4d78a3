#include "net/security/basp_guard.hpp"

#include <caf/io/basp/header.hpp>
#include <caf/io/basp/message_type.hpp>

namespace caflow {

static_assert(basp_header_bytes == caf::io::basp::header_size);

namespace {

// CAF's binary serializer writes integers in network byte order: the operation is byte 0,
// the payload length bytes 4 to 7 (after two padding bytes and the flags).
uint32_t payload_len_of(const unsigned char* h) {
  return uint32_t{h[4]} << 24 | uint32_t{h[5]} << 16 | uint32_t{h[6]} << 8 | uint32_t{h[7]};
}

bool is_handshake(unsigned char op) {
  using caf::io::basp::message_type;
  return op == static_cast<unsigned char>(message_type::server_handshake) ||
         op == static_cast<unsigned char>(message_type::client_handshake);
}

}  // namespace

status basp_stream_check::received(const void* data, size_t n) {
  if (!expecting_header_) {
    expecting_header_ = true;
    if (in_handshake_payload_) {
      in_handshake_payload_ = false;
      handshake_done_ = true;
    }
    return {};
  }
  if (n != basp_header_bytes)
    return errors::invalid_argument("a BASP header is ", basp_header_bytes,
                                    " bytes, the broker "
                                    "read ",
                                    n);
  const auto* h = static_cast<const unsigned char*>(data);
  const uint32_t len = payload_len_of(h);
  if (!handshake_done_) {
    if (!is_handshake(h[0]))
      return errors::invalid_argument("a peer sent BASP message type ", int{h[0]},
                                      " before its handshake");
    if (len > max_basp_handshake_payload)
      return errors::invalid_argument("a peer's handshake announces ", len, " bytes (at most ",
                                      max_basp_handshake_payload, ")");
    if (len == 0) {
      handshake_done_ = true;
    } else {
      in_handshake_payload_ = true;
      expecting_header_ = false;
    }
    return {};
  }
  if (len > max_basp_message_payload)
    return errors::invalid_argument("a peer's BASP message announces ", len, " bytes (at most ",
                                    max_basp_message_payload, ")");
  if (len > 0) expecting_header_ = false;
  return {};
}

basp_guard_counts& basp_guard_stats() {
  static basp_guard_counts counts;
  return counts;
}

}  // namespace caflow
