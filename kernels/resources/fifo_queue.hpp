#pragma once
// A first-in first-out queue of tuples of tensors (FIFOQueueV2), kept in a device's resource
// manager and reached through resource handles by every step, and every session, that names
// it. Elements are stored as given (zero-copy: an element shares its producer's bytes).
//
// Nothing here blocks a thread. An enqueue that finds the queue full, or a dequeue that finds
// too few elements, leaves a waiter holding its completion; whichever call later makes room or
// brings elements (an enqueue, a dequeue, a close) or the waiter's step cancellation completes
// it. Waiters are served in arrival order, enqueues and dequeues each: a dequeue of n that
// arrived first takes elements before a later dequeue of 1 does, taking what there is as it
// arrives so that n may exceed the capacity.
//
// Completions run outside the queue's lock. A call that completes at once runs its own
// callback on the calling thread before returning; completions of other waiters (woken by
// this call, by a close or by a cancellation) are scheduled on the waiter's device.
//
// Close: later enqueues fail (CANCELLED); pending enqueues stay pending unless
// cancel_pending_enqueues; dequeues succeed while enough elements remain and otherwise fail
// with OUT_OF_RANGE "queue 'q' is closed and has insufficient elements (requested n, has m)".
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "devices/device.hpp"
#include "graph/core/tensor.hpp"
#include "kernels/framework/cancellation.hpp"

namespace caflow {

class fifo_queue final : public resource, public std::enable_shared_from_this<fifo_queue> {
 public:
  using tuple = std::vector<tensor>;
  using enqueue_done = std::function<void(status)>;
  using dequeue_done = std::function<void(status, std::vector<tuple>)>;

  // Where a waiting call comes from: its step's cancellation (may be null: never cancelled)
  // and the device whose threads run its completion.
  struct caller {
    cancellation_manager* cancellation = nullptr;
    device* dev = nullptr;
  };

  // REQUIRES: types non-empty; shapes empty or one per type; capacity -1 or positive
  // (`check_attrs` reports violations as errors).
  fifo_queue(std::string name, std::vector<dtype> types, std::vector<partial_shape> shapes,
             int64_t capacity);
  ~fifo_queue() override;
  static status check_attrs(const std::vector<dtype>& types,
                            const std::vector<partial_shape>& shapes, int64_t capacity);

  const std::string& name() const { return name_; }
  const std::vector<dtype>& component_types() const { return types_; }
  // Empty when the queue was made without shapes.
  const std::vector<partial_shape>& component_shapes() const { return shapes_; }
  int64_t capacity() const { return capacity_; }
  std::string debug_string() const override;

  // An error unless this queue was made with exactly these attrs (a shared queue must be
  // declared alike by every graph that names it).
  status matches(const std::vector<dtype>& types, const std::vector<partial_shape>& shapes,
                 int64_t capacity) const;
  // Whether a tensor of `type` and `shape` may be the queue's component i (for EnqueueMany,
  // `shape` is one element's, i.e. without the batch dimension). Errors name the component,
  // what the queue expects and what was given.
  status check_component(int i, dtype type, const tensor_shape& shape) const;

  // Appends the elements in order, each a complete, checked tuple; completes once the last
  // one is in. Partial progress of a cancelled or closed-out enqueue stays in the queue.
  void enqueue(std::vector<tuple> elements, const caller& from, enqueue_done done);
  // Removes n >= 0 elements, completing with them in queue order.
  // `same_shapes`: every taken element must have the first one's component shapes (they are
  // to be stacked); an element that differs fails the dequeue and stays in the queue.
  void dequeue(int64_t n, bool same_shapes, const caller& from, dequeue_done done);
  void close(bool cancel_pending_enqueues);
  bool closed() const;
  int64_t size() const;

 private:
  struct enqueue_waiter;
  struct dequeue_waiter;
  struct completion {
    device* dev = nullptr;  // null: run on the calling thread
    std::function<void()> fn;
  };
  using completions = std::vector<completion>;

  bool full_locked() const { return capacity_ >= 0 && static_cast<int64_t>(items_.size()) >= capacity_; }
  // Serves waiters until nothing moves; on a closed queue, fails dequeues that cannot be served.
  void flush_locked(completions& out);
  void finish_enqueue_locked(enqueue_waiter& w, status st, completions& out);
  void finish_dequeue_locked(dequeue_waiter& w, status st, completions& out);
  void cancel_waiter(int64_t id);
  // Registers `id`'s cancellation; false when the step is already cancelled.
  bool register_cancellation_locked(const caller& from, int64_t id, int64_t* token);
  static void run(completions& out);

  const std::string name_;
  const std::vector<dtype> types_;
  const std::vector<partial_shape> shapes_;
  const int64_t capacity_;

  mutable std::mutex mu_;
  std::deque<tuple> items_;
  std::deque<std::unique_ptr<enqueue_waiter>> enqueuers_;
  std::deque<std::unique_ptr<dequeue_waiter>> dequeuers_;
  int64_t next_waiter_ = 0;
  bool closed_ = false;
};

}  // namespace caflow
