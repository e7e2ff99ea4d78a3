#include "actors/rendezvous_actor.hpp"

#include <algorithm>
#include <caf/actor_system.hpp>
#include <caf/event_based_actor.hpp>
#include <caf/stateful_actor.hpp>
#include <cstring>
#include <map>
#include <mutex>
#include <set>
#include <utility>

#include "graph/allocator.hpp"
#include "net/protocol.hpp"

namespace caflow {
namespace {

// Buffers of tensors assembled from chunks. A fresh buffer this big is mmap'ed and faults in
// every page on its first write: 27 ms for 64 MiB here, about half of what moving it over
// loopback takes. An edge carries tensors of one size step after step, so it keeps the last
// buffer freed and hands it out again. Thread-safe: tensors die on executor threads.
class recycling_allocator final : public allocator {
 public:
  ~recycling_allocator() override {
    if (idle_) default_allocator()->deallocate(idle_, idle_bytes_);
  }
  const char* name() const override { return "caflow.chunk_assembly"; }
  void* allocate(size_t bytes) override {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (idle_ && idle_bytes_ == bytes) return std::exchange(idle_, nullptr);
    }
    return default_allocator()->allocate(bytes);
  }
  void deallocate(void* p, size_t bytes) override {
    void* drop = p;
    size_t drop_bytes = bytes;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (!idle_ || idle_bytes_ != bytes) {  // keep the newest size: the edge's current one
        std::swap(drop, idle_);
        std::swap(drop_bytes, idle_bytes_);
      }
    }
    if (drop) default_allocator()->deallocate(drop, drop_bytes);
  }

 private:
  std::mutex mu_;
  void* idle_ = nullptr;
  size_t idle_bytes_ = 0;
};

// A tensor arriving in chunks: allocated at the first, complete when `received` reaches its
// byte size. A refused transfer keeps its entry (without the tensor) until the step's cleanup,
// so its remaining chunks are dropped instead of each aborting the step again.
struct assembly {
  tensor value;
  uint64_t received = 0;
  bool refused = false;
};

struct rendezvous_state {
  std::string key;
  std::shared_ptr<rendezvous> local;
  std::shared_ptr<const finished_steps> finished;
  size_t max_pending = 0;
  std::set<int64_t> pending;  // steps with a value deposited or being assembled here
  std::map<int64_t, assembly> assembling;
  std::shared_ptr<recycling_allocator> buffers = std::make_shared<recycling_allocator>();
  static inline const char* name = "caflow.rendezvous";

  bool wrong_key(int64_t step_id, const std::string& other) {
    if (other == key) return false;
    local->abort_step(step_id, errors::internal("the rendezvous actor of edge '", key,
                                                "' received a value for edge '", other,
                                                "': its sender is bound to the wrong actor"));
    return true;
  }

  // Makes room for one more step's value, or aborts the step.
  bool admit(int64_t step_id) {
    if (pending.count(step_id)) return true;
    if (pending.size() >= max_pending) {
      local->abort_step(
          step_id,
          errors::resource_exhausted(
              "edge '", key, "' refuses the value of step ", step_id, ": it already holds ",
              pending.size(), " steps' values that are not cleaned up (oldest: step ",
              *pending.begin(), "; max_pending_steps_per_edge = ", max_pending,
              "): the receiving task falls behind, or its steps are never cleaned up"));
      return false;
    }
    pending.insert(step_id);
    return true;
  }

  void hand_over(int64_t step_id, const tensor& value) {
    // Fails for a second value of the step (which must fail the step) or for an aborted step
    // (where aborting again changes nothing).
    status st = local->send(key, step_id, value);
    if (!st.ok()) local->abort_step(step_id, st);
  }

  void deposit(const edge_value& v) {
    if (finished->contains(v.step_id) || wrong_key(v.step_id, v.key)) return;
    if (admit(v.step_id)) hand_over(v.step_id, v.value.value);
  }

  void refuse(int64_t step_id, const status& why) {
    chunk_sinks::global().remove(key, step_id);
    local->abort_step(step_id, why);
    assembly& a = assembling[step_id];
    a.value = tensor{};
    a.refused = true;
  }

  void take_chunk(const edge_chunk& c) {
    if (finished->contains(c.step_id) || wrong_key(c.step_id, c.key)) return;
    auto it = assembling.find(c.step_id);
    if (it != assembling.end() && it->second.refused) return;
    if (status bad = check_chunk(c); !bad.ok()) return refuse(c.step_id, bad);
    if (it == assembling.end()) {
      if (c.offset != 0)
        return refuse(c.step_id, errors::invalid_argument(
                                     "edge '", key, "': the first chunk of step ", c.step_id,
                                     " starts at byte ", c.offset, ", not at 0"));
      if (!admit(c.step_id)) return;
      // check_chunk has bounded the size; the allocation can still fail for want of memory.
      auto shape = tensor_shape::make(c.dims);
      auto t = tensor::allocate(buffers, static_cast<dtype>(c.type), *shape);
      if (!t.ok())
        return refuse(c.step_id, t.get_status().with_context("edge '" + key + "', step " +
                                                             std::to_string(c.step_id)));
      it = assembling.emplace(c.step_id, assembly{std::move(t).value(), 0, false}).first;
    }
    assembly& a = it->second;
    const tensor& whole = a.value;
    const auto dims = whole.shape().dims();
    if (c.type != static_cast<uint8_t>(whole.type()) ||
        !std::equal(c.dims.begin(), c.dims.end(), dims.begin(), dims.end()))
      return refuse(c.step_id, errors::invalid_argument(
                                   "edge '", key, "': a chunk of step ", c.step_id,
                                   " announces another tensor than the first chunk did (",
                                   dtype_name(whole.type()), whole.shape().to_string(), ")"));
    if (c.offset != a.received)
      return refuse(c.step_id,
                    errors::invalid_argument(
                        "edge '", key, "': a chunk of step ", c.step_id, " starts at byte ",
                        c.offset, " but ", a.received, " bytes have arrived: it ",
                        c.offset < a.received ? "overlaps them" : "leaves a gap"));
    const auto data = c.payload();
    if (c.in_place) {
      // Read into place by the deserializer, which only claims in-order ranges of the tensor
      // registered below.
      if (!c.source.shares_buffer_with(whole))
        return refuse(c.step_id, errors::internal("edge '", key, "': a chunk of step ", c.step_id,
                                                  " was read into another tensor"));
    } else {
      std::memcpy(static_cast<char*>(whole.raw_data()) + c.offset, data.data(), data.size());
    }
    a.received += data.size();
    if (a.received < whole.byte_size()) {
      if (a.received == data.size())
        chunk_sinks::global().put(key, c.step_id, whole, a.received);
      else if (!c.in_place)
        chunk_sinks::global().advance(key, c.step_id, c.offset, a.received);
      return;
    }
    chunk_sinks::global().remove(key, c.step_id);
    const tensor done = std::move(a.value);
    assembling.erase(it);
    hand_over(c.step_id, done);
  }
};

caf::behavior rendezvous_endpoint(caf::stateful_actor<rendezvous_state>* self, std::string key,
                                  std::shared_ptr<rendezvous> local,
                                  std::shared_ptr<const finished_steps> finished,
                                  int max_pending_steps) {
  auto& st = self->state;
  st.key = std::move(key);
  st.local = std::move(local);
  st.finished = std::move(finished);
  st.max_pending = static_cast<size_t>(max_pending_steps > 0 ? max_pending_steps : 1);
  return {
      // By const reference: a local message keeps sharing the sender's tensor buffer.
      [self](cf_push_atom, const edge_value& v) { self->state.deposit(v); },
      [self](cf_chunk_atom, const edge_chunk& c) { self->state.take_chunk(c); },
      [self](cf_cleanup_atom, int64_t step_id) {
        auto& s = self->state;
        s.pending.erase(step_id);
        s.assembling.erase(step_id);
        chunk_sinks::global().remove(s.key, step_id);
        // A value deposited after the worker cleaned the step up (it passed the finished check
        // just before the step was marked) must not stay in the rendezvous. Values that come
        // from now on are dropped: the worker marked the step before it sent this message.
        s.local->cleanup_step(step_id);
      },
  };
}

}  // namespace

void finished_steps::add(int64_t step_id) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!steps_.insert(step_id).second) return;
  order_.push_back(step_id);
  if (order_.size() > capacity_) {
    steps_.erase(order_.front());
    order_.pop_front();
  }
}

bool finished_steps::contains(int64_t step_id) const {
  std::lock_guard<std::mutex> lock(mu_);
  return steps_.count(step_id) > 0;
}

caf::actor spawn_rendezvous_actor(caf::actor_system& sys, std::string key,
                                  std::shared_ptr<rendezvous> local,
                                  std::shared_ptr<const finished_steps> finished,
                                  int max_pending_steps) {
  return sys.spawn(rendezvous_endpoint, std::move(key), std::move(local), std::move(finished),
                   max_pending_steps);
}

}  // namespace caflow
