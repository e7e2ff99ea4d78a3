#pragma once
// Puts tensors back together from their chunks (make_chunks' output, sent in order), for one
// receiver: a rendezvous actor (a cut edge's values), a master (big fetches from workers, big
// feeds from clients), a worker (big feeds from its master) or a client (big fetches). Transfers
// are told apart by (key, step id).
//
// Each chunk is checked before anything is allocated or copied (check_chunk); the first one of
// a transfer must start at byte 0 and allocates the whole tensor; every later one must announce
// the same tensor and continue exactly where the last ended. A chunk that breaks a rule refuses
// its transfer with an error naming the key: the caller fails whatever waited for it, and the
// transfer's remaining chunks are dropped until the step is forgotten.
//
// In-order chunks of a transfer in progress are read by the deserializer straight into the
// tensor (chunk_sinks); the assembler registers and withdraws it there. Not thread-safe: one
// actor owns an assembler.
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>

#include "graph/core/allocator.hpp"
#include "net/wire/wire_chunk.hpp"

namespace caflow {

class chunk_assembler {
 public:
  // Asked before a transfer's first chunk allocates its tensor; false drops the chunk (the
  // caller has dealt with the step, e.g. refused it for want of room).
  using admit_fn = std::function<bool(int64_t step_id)>;

  explicit chunk_assembler(admit_fn admit = {});
  ~chunk_assembler();
  chunk_assembler(const chunk_assembler&) = delete;
  chunk_assembler& operator=(const chunk_assembler&) = delete;

  // The whole tensor when `c` completes it; an uninitialized tensor while more chunks are due
  // (or when `c` belongs to a transfer refused before); an error when `c` refuses its transfer.
  status_or<tensor> take(const edge_chunk& c);

  // Drops every transfer of `step_id`, finished or not.
  void forget(int64_t step_id);

  size_t in_progress() const { return assembling_.size(); }

 private:
  struct assembly {
    tensor value;
    uint64_t received = 0;
    bool refused = false;
  };
  using transfer = std::pair<std::string, int64_t>;  // key, step id

  status refuse(const transfer& t, status why);

  admit_fn admit_;
  std::shared_ptr<allocator> buffers_;
  std::map<transfer, assembly> assembling_;
};

}  // namespace caflow
