#pragma once
// The framing of the bulk tensor channel (net/bulk/bulk_sender.hpp, net/bulk/bulk_receiver.hpp):
// big cut-edge tensors between two processes travel over a plain TCP connection of their own,
// written straight from the sender's buffer and read straight into the receiver's tensor, with
// none of the copies into and out of CAF's message buffers.
//
// A connection starts with the receiver's token (bulk_token_bytes, learned through the
// authenticated CAF channel), which the receiver answers with one byte, bulk_accepted, or by
// closing. Then frames follow, each:
//
//   prefix  u32 magic, u32 header size           (host byte order, as tensor bytes are)
//   header  u64 rendezvous actor id, i64 step id, u8 dtype, u8 rank, u16 key size,
//           rank x i64 dims, u64 byte count, the key's bytes
//   bytes   the tensor, as laid out in memory
//
// A peer of the other byte order fails at the magic. Every header is checked before anything
// is allocated (check_announced_tensor): a connection that sends a bad one is closed.
#include <array>
#include <chrono>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "graph/core/status.hpp"

namespace caflow {

inline constexpr uint32_t bulk_magic = 0xCAF10B01;
inline constexpr size_t bulk_prefix_bytes = 8;
inline constexpr size_t bulk_token_bytes = 16;
inline constexpr char bulk_accepted = 'K';
// How long either end waits for the other's part of that handshake (stretched under TSan).
inline constexpr std::chrono::milliseconds bulk_handshake_patience{5000};
// Keys are edge names of a few dozen bytes; this bounds what a forged prefix makes us read.
inline constexpr uint32_t max_bulk_header_bytes = 64 << 10;
// The longest key a frame carries (its header must stay within max_bulk_header_bytes); a
// longer one cannot take the channel.
inline constexpr size_t max_bulk_key_bytes = 32 << 10;

struct bulk_header {
  uint64_t actor_id = 0;  // the receiving rendezvous actor (its id in the receiving process)
  int64_t step_id = 0;
  std::string key;
  uint8_t type = 0;
  std::vector<int64_t> dims;
  uint64_t total_bytes = 0;
};

// Prefix and header, ready to write before the tensor's bytes.
std::vector<char> encode_bulk_header(const bulk_header& h);

// The header size a prefix announces; an error for a wrong magic or an absurd size.
status_or<uint32_t> parse_bulk_prefix(std::span<const char, bulk_prefix_bytes> prefix);

// The header in `body` (the bytes after the prefix), checked: it fills `body` exactly and
// announces a valid tensor. Errors name the edge once its key is known.
status_or<bulk_header> parse_bulk_header(std::span<const char> body);

// A fresh random token.
std::array<char, bulk_token_bytes> make_bulk_token();

}  // namespace caflow
