#pragma once
// The receiving end of a worker's same-host shared memory links (docs/shm_transport.md): a
// listener (net/shm/shm_handoff.hpp) and one thread that accepts the tasks of this cluster on this
// host, takes the segment each hands over, numbers it, and watches the connections. Values then
// come as (cf_shm_atom, edge_shm) descriptors to the rendezvous actors, which turn them into
// tensors with `take`: a view of the sender's bytes, no copy.
//
// A sender that closes its connection (it stopped, or dropped the link) has its segment
// forgotten here: descriptors that still name it fail their steps, while tensors already
// viewing it keep its mapping until they die. A connection that sends anything after its
// segment is closed the same way. A peer that fails the handshake (another uid, another
// secret) is refused and logged; one that stalls holds the thread for at most shm_patience.
// At most max_shm_links senders are served at once.
#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "graph/core/tensor.hpp"
#include "net/protocol.hpp"
#include "net/shm/handoff_server.hpp"
#include "net/shm/shm_segment.hpp"

namespace caflow {

inline constexpr size_t max_shm_links = 256;
// The largest segment a sender may hand over (it costs the sender's memory, but each maps here).
inline constexpr uint64_t max_shm_segment_bytes = uint64_t{64} << 30;

class shm_receiver {
 public:
  // Opens the listener and starts its thread. `task` names this task in logs. Errors: the
  // listener's (naming the path), or no boot id (the host cannot be told from others).
  static status_or<std::shared_ptr<shm_receiver>> start(std::string task);
  // Closes the listener and every connection and joins the thread; tensors viewing a segment
  // keep it mapped.
  ~shm_receiver() = default;
  shm_receiver(const shm_receiver&) = delete;
  shm_receiver& operator=(const shm_receiver&) = delete;

  // Fills in the shm fields of `at`: where senders connect and what they must prove.
  void describe(bulk_endpoint& at) const;

  // A tensor viewing the bytes `v` names; when it (and every tensor sharing its buffer) dies,
  // the sender may reuse them. Errors (data_loss or not_found, naming the key): an invalid
  // dtype or shape, a byte count other than elements x element size, a segment not held from
  // a live link, a block outside it or misaligned, a bool byte other than 0 or 1.
  status_or<tensor> take(const edge_shm& v) const;

  // How many senders' segments are held now.
  size_t links() const;

 private:
  struct link {
    uint64_t id = 0;
    shm_channel channel;
  };

  shm_receiver(std::string task, std::string secret, std::unique_ptr<handoff_server> server)
      : task_(std::move(task)), secret_(std::move(secret)), server_(std::move(server)) {}
  void accept_one(status_or<shm_channel> channel);
  void forget(uint64_t id, const char* why);

  const std::string task_;
  const std::string secret_;
  std::vector<link> links_;  // the server thread's own
  uint64_t next_id_ = 1;     // the server thread's own

  mutable std::mutex mu_;  // guards segments_
  std::map<uint64_t, std::shared_ptr<const shm_segment>> segments_;

  std::unique_ptr<handoff_server> server_;  // last: stops before everything above goes
};

}  // namespace caflow
