#pragma once
// A gradient accumulator for synchronous replicated training (ConditionalAccumulator), kept in
// a device's resource manager and reached through resource handles by every worker's graph
// that names it.
//
// Workers apply gradients tagged with the global step they were computed at; a gradient older
// than the accumulator's global step is dropped (and counted), so a slow worker's stale
// gradient never enters the average of a later step. A take waits, holding no thread, until
// num_required gradients have been summed, then returns their mean (or sum), empties the
// accumulator and moves its global step one ahead, as TF's does: a gradient of the step just
// taken that arrives while the chief applies the update (a backup worker's) is dropped, not
// averaged into the next step, one update stale. The chief then sets the step it reached with
// set_global_step. Takes are served in arrival order.
//
// A sparse accumulator (SparseConditionalAccumulator) sums IndexedSlices instead: the rows of
// each gradient are added per index (kernels/resources/sparse_gradient_sum.hpp), and a take returns the
// rows named so far.
//
// Completions run outside the lock: a take that completes at once runs its callback on the
// calling thread; one completed later (by an apply, or by its step's cancellation) is
// scheduled on its device.
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>

#include "devices/device.hpp"
#include "graph/core/tensor.hpp"
#include "kernels/framework/cancellation.hpp"
#include "kernels/resources/sparse_gradient_sum.hpp"

namespace caflow {

class conditional_accumulator final : public resource,
                                      public std::enable_shared_from_this<conditional_accumulator> {
 public:
  enum class reduction { mean, sum };
  // Adds `gradient` into `sum` (same dtype and shape), element by element; with `first`, copies
  // it there instead (the round's first gradient). A callable, so that the kernel can split a
  // large pass over its device's threads.
  using add_fn = std::function<void(tensor& sum, const tensor& gradient, bool first)>;
  // The gradients summed since the last take, and how many there were.
  struct taken {
    tensor sum;                // dense accumulators
    sparse_gradient_sum rows;  // sparse ones
    tensor dense_shape;        // sparse ones: the last gradient_shape given, if any
    int64_t count = 0;
  };
  using take_done = std::function<void(status, taken)>;
  struct caller {
    cancellation_manager* cancellation = nullptr;
    device* dev = nullptr;
  };

  // REQUIRES: type is an element type.
  conditional_accumulator(std::string name, dtype type, partial_shape shape, reduction r,
                          bool sparse = false);
  // "MEAN" or "SUM"; anything else is an error.
  static status_or<reduction> parse_reduction(const std::string& s);

  const std::string& name() const { return name_; }
  dtype type() const { return type_; }
  const partial_shape& shape() const { return shape_; }
  reduction reduction_type() const { return reduction_; }
  bool is_sparse() const { return sparse_; }
  std::string debug_string() const override;

  // An error unless this accumulator was made with exactly these attrs.
  status matches(dtype type, const partial_shape& shape, reduction r, bool sparse = false) const;

  // Checks dtype and shape (against the declared shape and against the gradients summed so
  // far), then adds the gradient unless it is stale (see is_stale_locked). `add` runs under
  // the lock; the first gradient of a round is copied into a buffer from `alloc`.
  status apply_gradient(int64_t local_step, const tensor& gradient,
                        const std::shared_ptr<allocator>& alloc, const add_fn& add);
  // A sparse gradient: rows `values` at `indices` (int64), each index below the declared
  // dim 0 and below dense_shape[0] when `dense_shape` (an int64 vector) is given (a
  // default-constructed tensor when not).
  status apply_sparse_gradient(int64_t local_step, const tensor& indices, const tensor& values,
                               const tensor& dense_shape, sparse_gradient_sum::add_fn add);
  // Completes with the sum once at least num_required (>= 1) gradients are in.
  void take_gradient(int64_t num_required, const caller& from, take_done done);
  // A step below the current one is a restore going back: the gradients summed so far were
  // computed for steps it undid, so they are dropped, and so is any later gradient from a step
  // beyond the restored one (computed before the restore, on values it replaced).
  void set_global_step(int64_t step);

  int64_t num_accumulated() const;
  int64_t global_step() const;
  // Gradients dropped as stale since the accumulator was made (those a restore dropped too).
  int64_t num_dropped() const;

 private:
  struct take_waiter {
    int64_t id = 0;
    int64_t required = 0;
    take_done done;
    caller from;
    int64_t token = 0;
    bool registered = false;
    bool in_call = true;
  };
  struct completion {
    device* dev = nullptr;
    std::function<void()> fn;
  };
  using completions = std::vector<completion>;

  // A gradient for a step before the global step (a straggler's), or, after a restore went
  // back, for a step beyond it. Counts it as dropped.
  bool is_stale_locked(int64_t local_step);
  void clear_locked();
  void flush_locked(completions& out);
  void finish_locked(take_waiter& w, status st, taken t, completions& out);
  void cancel_waiter(int64_t id);
  static void run(completions& out);

  const std::string name_;
  const dtype type_;
  const partial_shape shape_;
  const reduction reduction_;
  const bool sparse_;

  mutable std::mutex mu_;
  tensor sum_;  // owned alone while accumulating, so it is added to in place
  sparse_gradient_sum rows_;
  tensor dense_shape_;
  int64_t count_ = 0;
  int64_t global_step_ = 0;
  int64_t dropped_ = 0;
  bool rewound_ = false;  // set_global_step went back at least once
  std::deque<std::unique_ptr<take_waiter>> takers_;
  int64_t next_waiter_ = 0;
};

}  // namespace caflow
