#pragma once
// The kernel interface. A kernel is built once per node (reading attrs and caching whatever
// it can), then `compute` runs once per step. Kernels report errors through the context and
// never throw; the executor prefixes every error with the node's name, op and device, so a
// kernel's message says only what is wrong ("matrix size-incompatible: [2,3] vs [4,5]").
//
// Asynchronous kernels (Recv, queue dequeues) derive from async_op_kernel and call `done`
// exactly once when finished; they hold no thread while waiting and must register with the
// step's cancellation manager so an aborted step wakes them.
#include <functional>
#include <memory>
#include <string>

#include "devices/device.hpp"
#include "graph/ir/node_signature.hpp"
#include "kernels/framework/step_context.hpp"
#include "kernels/resources/variable.hpp"

namespace caflow {

// What flows along an edge: a tensor, for Ref(T) outputs a reference to a variable, for
// resource outputs a handle to a queue, accumulator or other resource.
struct kernel_value {
  tensor value;
  std::shared_ptr<variable> ref;
  std::shared_ptr<resource> handle;
};

class kernel_construction {
 public:
  // `keep`, when given, owns `def` and `sig` for as long as it lives (a built graph): the kernel
  // then shares them instead of copying them. A graph of 100k nodes would otherwise hold each
  // node's definition twice.
  kernel_construction(const node_def& def, const node_signature& sig, device& dev,
                      std::shared_ptr<const void> keep = {})
      : def_(def), sig_(sig), dev_(dev), keep_(std::move(keep)) {}
  const node_def& def() const { return def_; }
  const std::shared_ptr<const void>& keep() const { return keep_; }
  const node_signature& sig() const { return sig_; }
  device& dev() const { return dev_; }
  dtype input_type(int i) const { return sig_.input_types[i]; }
  dtype output_type(int i) const { return sig_.output_types[i]; }
  int num_inputs() const { return static_cast<int>(sig_.input_types.size()); }
  int num_outputs() const { return static_cast<int>(sig_.output_types.size()); }
  template <class T>
  status get_attr(std::string_view name, T* out) const {
    return caflow::get_attr(def_, name, out);
  }
  void set_status(status s) {
    if (status_.ok()) status_ = std::move(s);
  }
  const status& get_status() const { return status_; }
  bool ok() const { return status_.ok(); }

 private:
  const node_def& def_;
  const node_signature& sig_;
  device& dev_;
  std::shared_ptr<const void> keep_;
  status status_;
};

class kernel_context;

class op_kernel {
 public:
  explicit op_kernel(kernel_construction& c);
  virtual ~op_kernel() = default;
  op_kernel(const op_kernel&) = delete;
  op_kernel& operator=(const op_kernel&) = delete;

  virtual void compute(kernel_context& ctx) = 0;
  virtual bool is_async() const { return false; }
  // Cheap kernels run inline on the scheduling thread; expensive ones may go to the device's
  // inter-op pool so independent nodes run in parallel. Defaults to the op's `cheap` flag.
  virtual bool is_expensive() const { return expensive_; }
  // True when all the kernel does beyond queuing work on its device's streams is a function of
  // its inputs' shapes, attrs and host-memory values, repeated alike each step: such kernels
  // may be recorded once and replayed (devices/device_graph.hpp). Not for kernels with host
  // state that changes per step (random generators, queues, counters) or that wait for the
  // device.
  virtual bool is_capturable() const { return false; }
  // Whether a capturable kernel is also recorded when an input comes from outside the
  // recording. Not a copy of a host value into device memory: its input is usually a batch fed
  // anew each step, which would never match the recorded one; run plainly, its output comes in
  // like any device value from outside.
  virtual bool records_outside_inputs() const { return true; }

  const std::string& name() const { return def_->name; }
  const std::string& type_string() const { return def_->op; }
  const node_def& def() const { return *def_; }
  const node_signature& sig() const { return *sig_; }
  // Which args the kernel keeps in host memory on a device with memory of its own (set by the
  // registry from kernel_def::host_memory; empty on host-memory devices and by default).
  bool input_on_host(int i) const {
    return static_cast<size_t>(i) < input_on_host_.size() && input_on_host_[static_cast<size_t>(i)];
  }
  bool output_on_host(int i) const {
    return static_cast<size_t>(i) < output_on_host_.size() && output_on_host_[static_cast<size_t>(i)];
  }
  void set_memory_types(std::vector<bool> inputs, std::vector<bool> outputs) {
    input_on_host_ = std::move(inputs);
    output_on_host_ = std::move(outputs);
  }

 private:
  // Point into `keep_`: the construction's owner of them, or the kernel's own copy.
  const node_def* def_;
  const node_signature* sig_;
  std::shared_ptr<const void> keep_;
  bool expensive_;
  std::vector<bool> input_on_host_, output_on_host_;
};

class async_op_kernel : public op_kernel {
 public:
  using op_kernel::op_kernel;
  using done_callback = std::function<void()>;
  virtual void compute_async(kernel_context& ctx, done_callback done) = 0;
  bool is_async() const final { return true; }
  void compute(kernel_context& ctx) final;  // runs compute_async and waits; tests only
};

// Which while-loop frame and iteration a node runs in (graph/ir/control_flow.hpp); the root
// frame is {0, 0}. Keys of the values _Send and _Recv exchange end in it, TF's "frame:iter".
struct frame_iter {
  uint64_t frame_id = 0;
  int64_t iter = 0;
};

class kernel_context {
 public:
  kernel_context(const op_kernel& k, device& dev, step_context& step, kernel_value* inputs,
                 kernel_value* outputs)
      : kernel_(k), dev_(dev), step_(step), inputs_(inputs), outputs_(outputs) {}

  const op_kernel& kernel() const { return kernel_; }
  device& dev() const { return dev_; }
  step_context& step() const { return step_; }
  // REQUIRES: a CPU device.
  const Eigen::ThreadPoolDevice& eigen_cpu() const { return *dev_.eigen_cpu(); }

  int num_inputs() const { return static_cast<int>(kernel_.sig().input_types.size()); }
  int num_outputs() const { return static_cast<int>(kernel_.sig().output_types.size()); }
  dtype input_type(int i) const { return kernel_.sig().input_types[i]; }
  dtype output_type(int i) const { return kernel_.sig().output_types[i]; }

  // For Ref(T) inputs this is empty: use input_ref.
  const tensor& input(int i) const { return inputs_[i].value; }
  // The variable behind a Ref(T) input.
  const std::shared_ptr<variable>& input_ref(int i) const { return inputs_[i].ref; }
  // The resource behind a resource-typed input, or nullptr when it is not a T.
  template <class T>
  std::shared_ptr<T> input_resource(int i) const {
    return std::dynamic_pointer_cast<T>(inputs_[i].handle);
  }

  // Allocates output i from the device (or where set_output_allocators says); on failure sets
  // the status and returns nullptr.
  tensor* allocate_output(int i, const tensor_shape& shape);
  // Per output, an allocator to use instead of the device's (null entries: the device's). The
  // executor gives an output that only a same-host _Send reads the link's shared memory.
  void set_output_allocators(const std::shared_ptr<allocator>* per_output) {
    output_allocators_ = per_output;
  }
  // A scratch tensor from the device allocator.
  status_or<tensor> allocate_temp(dtype type, const tensor_shape& shape);
  // Sets output i to an existing tensor (sharing its bytes, e.g. Identity, Reshape).
  void set_output(int i, tensor t) { outputs_[i].value = std::move(t); }
  void set_output_ref(int i, std::shared_ptr<variable> v) { outputs_[i].ref = std::move(v); }
  void set_output_resource(int i, std::shared_ptr<resource> r) { outputs_[i].handle = std::move(r); }
  const tensor& output(int i) const { return outputs_[i].value; }

  void set_status(status s) {
    if (status_.ok()) status_ = std::move(s);
  }
  const status& get_status() const { return status_; }
  bool ok() const { return status_.ok(); }

  const caflow::frame_iter& frame_iter() const { return frame_iter_; }
  void set_frame_iter(const caflow::frame_iter& f) { frame_iter_ = f; }

 private:
  caflow::frame_iter frame_iter_;
  const op_kernel& kernel_;
  device& dev_;
  step_context& step_;
  kernel_value* inputs_;
  kernel_value* outputs_;
  const std::shared_ptr<allocator>* output_allocators_ = nullptr;
  status status_;
};

}  // namespace caflow

// Stops a kernel (or its constructor) with an error when `cond` fails.
#define CAFLOW_OP_REQUIRES(ctx, cond, st) \
  do {                                    \
    if (!(cond)) {                        \
      (ctx).set_status(st);               \
      return;                             \
    }                                     \
  } while (0)

#define CAFLOW_OP_REQUIRES_OK(ctx, expr)  \
  do {                                    \
    ::caflow::status caflow_k_st_ = (expr); \
    if (!caflow_k_st_.ok()) {             \
      (ctx).set_status(std::move(caflow_k_st_)); \
      return;                             \
    }                                     \
  } while (0)
