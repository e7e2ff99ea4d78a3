#pragma once
// The sending end of a worker's same-host shared memory links (docs/shm_transport.md).
//
// For each receiving task on this host (same boot id) that has a shared memory listener, the
// worker makes one link: a thread connects, proves the receiver's secret (and checks its uid
// and proof, net/shm/shm_handshake.hpp) and hands over the worker's export segment, which every
// link of the worker shares (up to shm_lease_slots of them; more get a second segment). From
// then on a _Send to that task sends only a descriptor, (cf_shm_atom, edge_shm), through CAF,
// so values keep their order and the rendezvous actor's checks: of the very block its tensor
// is in when that is in the segment (a kernel's output written there, a variable living
// there), else of a block its bytes are copied into (one memcpy, where CAF would copy twice
// and the kernel's TCP twice more). The receiver views the bytes in place and gives its lease
// back when its tensors die (net/shm/shm_lease.hpp); the segment's blocks come back when no side
// holds them.
//
// With server_options::shm_variables, the variables of a task with a link up live in its
// first segment (variable_home): a ps hands each worker its parameters' own blocks, step
// after step, and its optimizer writes them in place whenever no worker views them any more
// (in sync training, nearly always).
//
// Never blocking a _Send: until the link is up, when connecting failed (another mount
// namespace, uid or secret: logged once, the link is not tried again), for tensors below
// shm_min_bytes, in device memory or empty, and when the segment has no room, `place` gives
// no descriptor and the value goes the usual way (CAF or the bulk channel).
#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "net/shm/shm_blocks.hpp"
#include "graph/core/variable_home.hpp"
#include "graph/core/tensor.hpp"
#include "net/protocol.hpp"
#include "net/shm/shm_handoff.hpp"
#include "net/shm/shm_segment.hpp"

namespace caflow {

// Below this a tensor is cheaper as message bytes than as a block and a descriptor.
inline constexpr uint64_t shm_min_bytes = 4096;

class shm_link {
 public:
  // Starts connecting to `at` (which names a listener on this host) on a thread of its own, to
  // hand it `segment` and send through lease slot `slot` of it.
  shm_link(std::string task, bulk_endpoint at, std::shared_ptr<shm_blocks> segment,
           uint32_t slot, std::shared_ptr<allocator> outputs);
  // Waits for the connecting thread (at most shm_patience, twice); closing the connection
  // tells the receiver to forget the segment. Blocks the receiver still views stay mapped there.
  ~shm_link();
  shm_link(const shm_link&) = delete;
  shm_link& operator=(const shm_link&) = delete;

  // The descriptor to send in `value`'s place: its own block when it lives in the segment (no
  // copy), else a block it is copied into; none when it must go another way (above).
  // The caller sends it (actors/rendezvous/remote_rendezvous.cpp), alone or in a batch.
  std::optional<edge_shm> place(int64_t step_id, const std::string& key, const tensor& value);
  // For a kernel output whose only reader is a _Send through this link: its bytes are written
  // straight into the segment (net/shm/shm_blocks.hpp). Null until the link is up.
  std::shared_ptr<allocator> output_allocator() const;

  // Was up, and its receiver closed the connection (a poll, no wait): the sender drops such a
  // link when the worker binds again.
  bool closed() const;
  bool up() const { return state_.load(std::memory_order_acquire) == state::up; }

 private:
  enum class state { connecting, up, failed };

  void connect();

  const std::string task_;
  const bulk_endpoint at_;
  const std::shared_ptr<shm_blocks> blocks_;  // the segment and its blocks
  const uint32_t slot_;
  const std::shared_ptr<allocator> output_allocator_;
  std::atomic<state> state_{state::connecting};
  // Written by the connecting thread before state_ becomes `up`, read-only after.
  std::optional<shm_channel> channel_;
  uint64_t segment_id_ = 0;  // the receiver's number for it

  std::thread connecting_;  // last: starts once everything above exists
};

class shm_sender final : public variable_home {
 public:
  // `task` names this task in logs; each segment has `segment_bytes` bytes (pages are only
  // allocated where blocks are written).
  shm_sender(std::string task, uint64_t segment_bytes);

  // The link to the task behind `at`; null when that task is not on this host (another boot
  // id), has no listener, or no segment can be made here (logged once). The first call for a
  // listener starts connecting; closed links are dropped here (a restarted receiver listens on
  // a new path and gets a new link, and a new lease slot).
  std::shared_ptr<shm_link> link_to(const bulk_endpoint& at);

  // The first segment's variable allocator once one of its links is up; null before.
  std::shared_ptr<allocator> variables() const override;

 private:
  struct segment_record {
    std::shared_ptr<shm_blocks> blocks;
    std::shared_ptr<allocator> outputs, variables;
  };
  // A segment with a free lease slot, and the slot. REQUIRES: mu_ held.
  status_or<std::pair<const segment_record*, uint32_t>> free_slot();

  const std::string task_;
  const uint64_t segment_bytes_;
  std::mutex mu_;  // guards links_ and segments_; taken when binding, never when sending
  std::map<std::string, std::shared_ptr<shm_link>> links_;  // by listener path
  std::vector<std::unique_ptr<segment_record>> segments_;   // each full but the last
  bool segment_failed_ = false;                             // logged; no more tries
  // segments_.front() once made, for variables(), which takes no lock.
  std::atomic<const segment_record*> home_{nullptr};
};

}  // namespace caflow
