#pragma once
// A piece of a tensor too big for one message (see max_wire_tensor_bytes): the sender cuts the
// tensor's bytes into pieces of `edge_chunk_bytes` and pushes them in order, each carrying the
// whole tensor's header (dtype, shape, byte count) and its byte offset, so the receiver can
// check every piece against the first and allocate the tensor once, when the first arrives.
//
// On the wire a chunk is that header and then its bytes in one bulk copy (`apply_raw`). The
// sending side never copies: a chunk holds the whole tensor (a shared buffer) and the range it
// stands for. The receiving side reads a chunk straight into the tensor being assembled when
// the receiver has registered it with chunk_sinks and the chunk continues it in order; any
// other chunk owns the bytes it read, which the rendezvous actor copies into place. A chunk made in
// the receiving process (or forged) is checked the same way as one that crossed the wire:
// `check_chunk` before anything is allocated or copied.
#include <caf/fwd.hpp>
#include <caf/meta/type_name.hpp>
#include <cstdint>
#include <map>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "graph/core/status.hpp"
#include "graph/core/tensor.hpp"
#include "net/wire/wire_tensor.hpp"

namespace caflow {

// 4 MiB. Measured with bench/sendrecv_gbps (64 MiB per step, two server processes on loopback,
// 2 shared cores), GB/s by chunk size: 0.5 MiB 1.01, 1 MiB 1.07-1.10, 2 MiB 0.95-1.15,
// 4 MiB 0.93-1.13, 8 MiB 0.98-1.09, 16 MiB 0.92-1.05, 30 MiB 0.93-0.95. 1 to 8 MiB are equal
// within noise; 4 MiB keeps the message count low and every buffer under glibc's mmap
// threshold ceiling.
inline constexpr uint64_t edge_chunk_bytes = 4ull << 20;

// The largest tensor a receiver assembles from chunks; a header announcing more is refused
// before anything is allocated.
inline constexpr uint64_t max_chunked_tensor_bytes = 16ull << 30;

struct edge_chunk {
  int64_t step_id = 0;
  std::string key;
  // The whole tensor, as announced by every chunk of it.
  uint8_t type = 0;
  std::vector<int64_t> dims;
  uint64_t total_bytes = 0;
  // Where this chunk's bytes go in the whole tensor.
  uint64_t offset = 0;
  // Sending side: the whole tensor and how many of its bytes from `offset` this chunk carries.
  tensor source;
  uint64_t size = 0;
  // Receiving side (after the wire): the bytes themselves, unless `in_place`: then they were
  // read straight into the tensor registered with chunk_sinks, which `source` holds.
  std::vector<char> bytes;
  bool in_place = false;

  // The bytes this chunk carries: a range of `source` when it is set, else `bytes`. Empty when
  // the range lies outside `source`.
  std::span<const char> payload() const;
};

// The tensors being assembled from chunks in this process, by edge key and step, so that the
// deserializer reads a chunk straight into place instead of into a buffer of its own. It does
// only for the chunk that continues exactly where the last one read into place ended, with the
// registered dtype and shape and within its bytes; any other chunk is read into its own buffer
// and left to the receiver's checks, so a malformed or repeated chunk never writes into a
// registered tensor. Thread-safe (the middleman's threads read, rendezvous actors register).
class chunk_sinks {
 public:
  static chunk_sinks& global();
  // `target`'s bytes from `filled` on are written by in-order chunks from now on.
  void put(const std::string& key, int64_t step_id, const tensor& target, uint64_t filled);
  void remove(const std::string& key, int64_t step_id);
  // The receiver copied [from, to) itself (a chunk read into its own buffer): in-order chunks
  // may be read into place after it, unless the deserializer has claimed past `from` already.
  void advance(const std::string& key, int64_t step_id, uint64_t from, uint64_t to);
  // Claims [offset, offset + size) of the registered tensor for a chunk with this header:
  // the tensor, or an uninitialized one when the chunk must be read into its own buffer.
  tensor claim(const edge_chunk& header, uint64_t size);

 private:
  struct sink {
    tensor target;
    uint64_t claimed = 0;  // bytes [0, claimed) are claimed
  };
  std::mutex mu_;
  std::map<std::pair<std::string, int64_t>, sink> sinks_;
};

// The chunks of `value` (whose byte_size() exceeds `chunk_bytes`), in order. They share its
// buffer. REQUIRES: value.initialized(), chunk_bytes > 0.
std::vector<edge_chunk> make_chunks(int64_t step_id, const std::string& key, const tensor& value,
                                    uint64_t chunk_bytes = edge_chunk_bytes);

// Checks the tensor a piece of a transfer announces (`what`: "a chunk"): a valid dtype and
// shape, and a byte count that matches them and stays within max_chunked_tensor_bytes. The
// errors name the edge (`key`) and the step.
status check_announced_tensor(std::string_view what, const std::string& key, int64_t step_id,
                              uint8_t type, const std::vector<int64_t>& dims,
                              uint64_t total_bytes);

// Checks a chunk's header on its own: a valid dtype and shape, a byte count that matches them
// and stays within max_chunked_tensor_bytes, a non-empty payload within the tensor. The errors
// name the edge (`key`).
status check_chunk(const edge_chunk& c);

caf::error inspect(caf::serializer& f, edge_chunk& x);
caf::error inspect(caf::deserializer& f, edge_chunk& x);

// Logs and to_string: the header, never the bytes.
template <class Inspector>
typename std::enable_if<!std::is_base_of<caf::serializer, Inspector>::value &&
                            !std::is_base_of<caf::deserializer, Inspector>::value,
                        typename Inspector::result_type>::type
inspect(Inspector& f, edge_chunk& x) {
  return f(caf::meta::type_name("edge_chunk"), x.step_id, x.key, x.type, x.dims, x.total_bytes,
           x.offset, x.size);
}

}  // namespace caflow
