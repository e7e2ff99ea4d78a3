// The two halves of a cut edge (ops declared in graph/ir/partition.cpp). _Send hands its input to
// the step's rendezvous and finishes; _Recv asks for the value and finishes when it arrives,
// holding no thread meanwhile. Both move tensor handles only, so they are dtype-agnostic, and
// they serve every device type:
//   - within a task, a value crosses devices as it is, and the _Recv copies it into the memory
//     it needs (host memory for recv_on_host, else its device's): at most one copy per edge;
//   - to another task, a value in device memory goes to host memory first (the wire carries
//     host bytes), and the receiving _Recv copies it into its device.
#include <atomic>

#include "graph/core/device_name.hpp"
#include "graph/ir/partition.hpp"
#include "graph/platform/thread_sanitizer.hpp"
#include "kernels/framework/kernel_registry.hpp"
#include "kernels/framework/rendezvous.hpp"

namespace caflow {
namespace {

// What a kernel knows of its edge, read once when it is built. Every attr the key is made of
// is read with a check, so a malformed node fails then rather than meeting nobody.
struct edge {
  std::string tensor_name;  // "src:port", for messages
  std::string send_device;
  std::string key;
  bool crosses_tasks = false;
};

status read_edge(kernel_construction& c, edge* e) {
  std::string recv_device;
  int64_t incarnation = 0;
  CAFLOW_RETURN_IF_ERROR(c.get_attr("tensor_name", &e->tensor_name));
  CAFLOW_RETURN_IF_ERROR(c.get_attr("send_device", &e->send_device));
  CAFLOW_RETURN_IF_ERROR(c.get_attr("send_device_incarnation", &incarnation));
  CAFLOW_RETURN_IF_ERROR(c.get_attr("recv_device", &recv_device));
  e->key = rendezvous_key(c.def());
  e->crosses_tasks = task_of_device(e->send_device) != task_of_device(recv_device);
  return {};
}

class send_op final : public op_kernel {
 public:
  explicit send_op(kernel_construction& c) : op_kernel(c) {
    edge e;
    CAFLOW_OP_REQUIRES_OK(c, read_edge(c, &e));
    key_ = std::move(e.key);
    to_host_ = e.crosses_tasks;
  }
  void compute(kernel_context& ctx) override {
    rendezvous* rdv = ctx.step().rdv;
    CAFLOW_OP_REQUIRES(ctx, rdv != nullptr,
                       errors::internal("the step has no rendezvous to send '", key_, "' through"));
    // A dead input (an untaken branch) goes as an uninitialized tensor: its _Recv's output is
    // dead too.
    const tensor& value = ctx.input(0);
    const frame_iter& f = ctx.frame_iter();
    if (f.frame_id != 0 || f.iter != 0) {
      send(ctx, rdv, rendezvous_key_in_frame(key_, f.frame_id, f.iter), value);
      return;
    }
    send(ctx, rdv, key_, value);
  }

 private:
  void send(kernel_context& ctx, rendezvous* rdv, const std::string& key, const tensor& value) {
    if (to_host_ && value.space() != nullptr) {
      auto host = to_host(value);
      CAFLOW_OP_REQUIRES_OK(ctx, host.get_status());
      CAFLOW_OP_REQUIRES_OK(ctx, rdv->send(key, ctx.step().step_id, *host));
      return;
    }
    CAFLOW_OP_REQUIRES_OK(ctx, rdv->send(key, ctx.step().step_id, value));
  }

  std::string key_;
  bool to_host_ = false;  // bound for another task, which reads host bytes off the wire
};

class recv_op final : public async_op_kernel {
 public:
  explicit recv_op(kernel_construction& c) : async_op_kernel(c) {
    CAFLOW_OP_REQUIRES_OK(c, read_edge(c, &edge_));
    CAFLOW_OP_REQUIRES_OK(c, c.get_attr("tensor_type", &type_));
    CAFLOW_OP_REQUIRES_OK(c, c.get_attr("recv_on_host", &on_host_));
    on_host_ = on_host_ || c.dev().memory() == nullptr;
  }
  void compute_async(kernel_context& ctx, done_callback done) override {
    const step_context& step = ctx.step();
    rendezvous* rdv = step.rdv;
    if (rdv == nullptr) {
      ctx.set_status(
          errors::internal("the step has no rendezvous to receive '", edge_.key, "' from"));
      done();
      return;
    }
    // An aborted step must wake this recv: its cancellation aborts the step in the
    // rendezvous, which runs the pending callback with the error (and refuses the step's
    // later sends and recvs). `finished` keeps a cancellation racing with the value's arrival
    // from aborting a step that may already be over and cleaned up.
    struct registration {
      cancellation_manager::token token = 0;
      bool registered = false;
      std::atomic<bool> finished{false};
    };
    auto reg = std::make_shared<registration>();
    const int64_t step_id = step.step_id;
    cancellation_manager* cm = step.cancellation;
    if (cm != nullptr) {
      reg->registered = cm->register_callback(&reg->token, [rdv, step_id, reg] {
        if (!reg->finished.load(std::memory_order_acquire))
          rdv->abort_step(step_id, errors::cancelled("step ", step_id, " was cancelled"));
      });
      if (!reg->registered) {
        const status cancelled = errors::cancelled("step ", step_id, " was cancelled");
        rdv->abort_step(step_id, cancelled);
        ctx.set_status(cancelled);
        done();
        return;
      }
    }
    auto received = [this, &ctx, cm, reg, done = std::move(done)](const status& st,
                                                                   const tensor& value) {
          reg->finished.store(true, std::memory_order_release);
          if (reg->registered) cm->deregister_callback(reg->token);
          if (!st.ok()) {
            ctx.set_status(st);
          } else if (!value.initialized()) {
            // The sender's input was dead: so is this output (left unset).
          } else if (value.type() != type_) {
            ctx.set_status(errors::invalid_argument(
                "edge '", edge_.tensor_name, "' from ", edge_.send_device, " delivered ",
                dtype_name(value.type()), value.shape().to_string(), ", expected ",
                dtype_name(type_)));
          } else {
            tsan_acquire(value.raw_data());  // written by the sender's kernel, on another thread
            auto here = on_host_ ? to_host(value) : ctx.dev().copy_in(value);
            if (here.ok())
              ctx.set_output(0, std::move(here).value());
            else
              ctx.set_status(here.get_status().with_context(
                  "copying edge '" + edge_.tensor_name + "' from " + edge_.send_device));
          }
          done();
        };
    const frame_iter& f = ctx.frame_iter();
    if (f.frame_id == 0 && f.iter == 0)
      rdv->recv_async(edge_.key, step_id, std::move(received));
    else
      rdv->recv_async(rendezvous_key_in_frame(edge_.key, f.frame_id, f.iter), step_id,
                      std::move(received));
  }

 private:
  edge edge_;
  dtype type_ = dtype::invalid;
  bool on_host_ = false;  // the value is wanted in host memory
};

}  // namespace

CAFLOW_REGISTER_KERNEL(kernel_def_builder("_Send").device(any_device).passes_strings(), send_op);
CAFLOW_REGISTER_KERNEL(kernel_def_builder("_Recv").device(any_device).passes_strings(), recv_op);

}  // namespace caflow
