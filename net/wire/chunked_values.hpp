#pragma once
// Tensors too big to ride inside a message to another process (feeds a client sends its master,
// a master's feeds to its workers, the workers' fetches, the master's fetches to its client):
// they go ahead of the message as chunks (net/wire/wire_chunk.hpp) from the same sender to the same
// receiver, which CAF delivers in order, and the message lists their indices instead of
// carrying them. So no message exceeds max_wire_tensor_bytes by much, and inside a process
// nothing is chunked or copied.
//
//   sender                                   receiver (chunked_arrivals)
//   send_chunks(self, to, transfer, key, t)  -> (cf_chunk_atom, edge_chunk)...  take()
//   the message: value left empty, index listed -> claim(transfer, key)
//
// A transfer is a step id (master <-> worker) or a client's random id (client <-> master); the
// key names the value ("feed:2", "fetch:0", "arg:1", "ret:3").
#include <cstdint>
#include <deque>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <caf/actor.hpp>
#include <caf/actor_cast.hpp>
#include <caf/local_actor.hpp>
#include <caf/send.hpp>

#include "net/wire/chunk_assembler.hpp"
#include "net/protocol.hpp"

namespace caflow {

// Whether `t`, sent to another process, goes as chunks rather than inside its message.
bool travels_in_chunks(const tensor& t);

// "fetch:3"
std::string chunk_key(std::string_view kind, size_t index);

// Sends `value`'s chunks from `self` to `to` (typed or not), in order. send_as rather than
// self->send: a typed actor may not send() to a dynamically typed one (a client's actor).
template <class Dest>
void send_chunks(caf::local_actor* self, const Dest& to, int64_t transfer,
                 const std::string& key, const tensor& value) {
  const auto from = caf::actor_cast<caf::actor>(self);
  for (edge_chunk& c : make_chunks(transfer, key, value))
    caf::send_as(from, to, cf_chunk_atom::value, std::move(c));
}

// Where the answer to the request `self` is handling goes (the last forwarding stage, else the
// sender). Read it before make_response_promise, which takes the sender out of the request.
caf::strong_actor_ptr reply_destination(caf::local_actor* self);

// Whether `who` lives in another process than `self`.
bool in_other_process(const caf::strong_actor_ptr& who, const caf::local_actor* self);

// The values that arrived in chunks at one actor and wait for the message that refers to them.
// At most `max_transfers` transfers are kept: the oldest is forgotten first (its message never
// came: the sender died or gave up).
class chunked_arrivals {
 public:
  explicit chunked_arrivals(size_t max_transfers = 256) : max_transfers_(max_transfers) {}

  // An error (naming the key) refuses the chunk's transfer; claim() reports it again.
  status take(const edge_chunk& c);
  // The complete value of (transfer, key), moved out; an error when it did not arrive whole.
  status_or<tensor> claim(int64_t transfer, const std::string& key);
  // Whether claim() has its answer: the value arrived whole, or its transfer was refused.
  bool settled(int64_t transfer, const std::string& key) const;
  void forget(int64_t transfer);

 private:
  void note(int64_t transfer);

  size_t max_transfers_;
  chunk_assembler assembler_;
  std::map<std::pair<int64_t, std::string>, tensor> done_;
  std::map<std::pair<int64_t, std::string>, status> refused_;
  std::deque<int64_t> order_;  // transfers by first arrival
};

// Moves the values whose indices `indices` lists, which came ahead of their message in chunks
// of `transfer` under keys chunk_key(kind, i), into `slots` (tensors or wire tensors). Each
// index is checked against slots.size() before its value is claimed, on every hop alike.
// Errors: an index out of range ("<kind> #i came in chunks but there are N"), or the
// transfer's own error for that value (naming its key); `failed` (may be null) receives the
// index at fault. The first error stops the claim.
template <class Slot>
status claim_chunked(chunked_arrivals& arrivals, int64_t transfer, std::string_view kind,
                     const std::vector<int32_t>& indices, std::vector<Slot>& slots,
                     int32_t* failed = nullptr) {
  for (int32_t i : indices) {
    if (failed) *failed = i;
    if (i < 0 || static_cast<size_t>(i) >= slots.size())
      return errors::invalid_argument(kind, " #", i, " came in chunks but there are ",
                                      slots.size());
    auto arrived = arrivals.claim(transfer, chunk_key(kind, static_cast<size_t>(i)));
    if (!arrived.ok()) return arrived.get_status();
    slots[static_cast<size_t>(i)] = Slot{std::move(arrived).value()};
  }
  return {};
}

}  // namespace caflow
