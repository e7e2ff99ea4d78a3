#pragma once
// Where the two halves of a cut edge meet: a _Send in one partition hands its tensor over
// under the edge's key (rendezvous_key in graph/ir/partition.hpp), the matching _Recv in another
// partition takes it. Each key is used once per step; values of different steps never mix, so
// consecutive steps may overlap.
//
// Implementations: local_rendezvous (kernels/framework/local_rendezvous.hpp) for partitions in one
// process; the distributed runtime supplies one that pushes to the receiving task.
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "graph/core/allocator.hpp"
#include "graph/core/status.hpp"
#include "graph/core/tensor.hpp"

namespace caflow {

class rendezvous {
 public:
  virtual ~rendezvous();

  // A producer never blocks; the value is kept until its Recv takes it. Sending the same key
  // twice in one step is an error, and so is sending in an aborted step (the abort's error).
  virtual status send(const std::string& key, int64_t step_id, const tensor& value) = 0;

  using recv_callback = std::function<void(const status&, const tensor&)>;
  // A consumer may ask before or after the value is produced; `done` runs exactly once,
  // possibly inline (here, or on the sender's thread inside `send`), with the value or the
  // step's abort error. A second Recv of the same key in one step is an error.
  virtual void recv_async(const std::string& key, int64_t step_id, recv_callback done) = 0;

  // Wakes every pending recv of this step with `error` and refuses later sends/recvs of the
  // step with it. The first abort of a step wins; later ones change nothing.
  virtual void abort_step(int64_t step_id, const status& error) = 0;

  // Forgets a finished step's leftovers (values never received, the abort state). REQUIRES:
  // none of the step's kernels still runs; a recv still pending is woken with an error.
  virtual void cleanup_step(int64_t step_id) = 0;

  // Memory for a value whose only reader is the _Send under `key`, such that sending it needs
  // no copy (a same-host link's shared segment, net/shm/shm_blocks.hpp); null: the device's.
  virtual std::shared_ptr<allocator> output_allocator(const std::string& key);

  // An executor's pass over its ready nodes. Values sent on one thread between begin_pass and
  // the end of the outermost pass may be held and leave together then; passes nest. begin_pass
  // returns the function that ends the pass (null: nothing is held), which must not need this
  // rendezvous: the step, and with it the rendezvous, may be over before its last pass ends.
  // flush() sends what this thread holds now (before a kernel that takes a while, so that the
  // receivers work meanwhile), and holding() says whether there is anything.
  using end_pass_fn = void (*)();
  virtual end_pass_fn begin_pass() { return nullptr; }
  virtual bool holding() const { return false; }
  virtual void flush() {}
};

// A pass of `r` (may be null) until destroyed.
class rendezvous_pass {
 public:
  explicit rendezvous_pass(rendezvous* r) : end_(r ? r->begin_pass() : nullptr) {}
  ~rendezvous_pass() {
    if (end_) end_();
  }
  rendezvous_pass(const rendezvous_pass&) = delete;
  rendezvous_pass& operator=(const rendezvous_pass&) = delete;

 private:
  rendezvous::end_pass_fn end_;
};

}  // namespace caflow
