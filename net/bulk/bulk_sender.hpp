#pragma once
// The sending end of the bulk channels of one worker (framing in net/bulk/bulk_frame.hpp): one
// connection per receiving task, each with a writer thread that takes queued tensors in order
// and writes header and bytes straight from the tensor's buffer. `send` only queues, so a
// _Send never blocks its executor thread on the network.
//
// When a connection cannot be made, the peer refuses the token, or a write fails or makes no
// progress for 10 s, that endpoint is given up (logged) and its tensors, the one in flight
// included, go through CAF as chunks (net/wire/wire_chunk.hpp) to the same rendezvous actor; a
// frame cut off in the middle is dropped by the receiver, so nothing arrives twice. A link given
// up is tried again after a pause (1 s, doubling to 1 min while it keeps failing): a link that
// was cut for a while (a partition) must not leave big values in CAF's connection, ahead of its
// heartbeats, for the rest of the run.
// So do tensors beyond 1 GiB queued for one link, and those with an absurdly long key. Queued
// tensors of steps that are over on this task are dropped.
#include <chrono>
#include <condition_variable>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "graph/core/tensor.hpp"
#include "net/finished_steps.hpp"
#include "net/protocol.hpp"
#include "net/bulk/socket_io.hpp"

namespace caflow {

class bulk_sender {
 public:
  // `task` names this task in logs; `abandoned` (may be null) are its steps that ended without
  // success here: their queued tensors are dropped. (A step that succeeded here may still have
  // tensors queued for other tasks.)
  bulk_sender(std::string task, std::shared_ptr<const finished_steps> abandoned);
  // Stops the writers; tensors still queued are dropped (their steps end with the worker). A
  // writer still connecting is waited for (at most the 5 s a connection may take).
  ~bulk_sender();
  bulk_sender(const bulk_sender&) = delete;
  bulk_sender& operator=(const bulk_sender&) = delete;

  // Queues `value` for the rendezvous actor `to` at `at`.
  // REQUIRES: at.port != 0, value.initialized().
  void send(const bulk_endpoint& at, const rendezvous_actor& to, int64_t step_id,
            const std::string& key, const tensor& value);

 private:
  struct item {
    rendezvous_actor to;
    int64_t step_id = 0;
    std::string key;
    tensor value;
  };
  struct link {
    bulk_endpoint at;
    std::mutex mu;
    std::condition_variable ready;
    std::deque<item> queue;
    uint64_t queued_bytes = 0;
    bool stopping = false;
    bool broken = false;    // given up: everything goes through CAF until retry_at
    std::chrono::steady_clock::time_point retry_at{};
    std::chrono::milliseconds pause{1000};  // before the next try; doubles while tries fail
    bool up = false;        // the writer's: its socket is connected and accepted
    socket_fd socket;       // the writer's; shut down to wake it when stopping
    std::thread writer;
  };

  void write_loop(link& l);
  // Connects and presents the token; false (logged) when the peer cannot be used.
  bool open(link& l);
  // Writes one frame; false (logged) on failure.
  bool write(link& l, const item& it);
  void give_up(link& l, const std::string& why);

  const std::string task_;
  const std::shared_ptr<const finished_steps> abandoned_;
  std::mutex mu_;  // guards links_
  std::map<std::string, std::unique_ptr<link>> links_;  // by "host:port/token"
};

// Sends `value` to the rendezvous actor `to` as (cf_chunk_atom, edge_chunk) messages.
void send_in_chunks(const rendezvous_actor& to, int64_t step_id, const std::string& key,
                    const tensor& value);

}  // namespace caflow
