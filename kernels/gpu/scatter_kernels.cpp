// Scatter*, SparseApply* and UnsortedSegmentSum on the GPU. Their indices are a host-memory arg: TF's GPU kernels
// keep them on the device and skip an index out of range; here every index is checked under the
// variables' locks, as on the CPU, and a bad one is an error naming it, with nothing written.
// The checked indices are grouped by row (kernels/common/row_scatter_plan.hpp) and sent over in
// one copy; one launch then applies each row's updates in index order, so the results are the
// CPU's bit for bit. The hyperparameters are host-memory args too: the kernel passes them by
// value.
#include <algorithm>

#include "kernels/common/row_scatter_plan.hpp"
#include "kernels/common/sparse_update_checks.hpp"
#include "kernels/common/training_update.hpp"
#include "kernels/framework/in_place.hpp"
#include "kernels/gpu/gpu_op_kernel.hpp"
#include "kernels/gpu/scatter_launch.hpp"

namespace caflow::gpu {
namespace {

// The plan of `indices` (checked already) on the GPU; the tensor keeps its bytes.
template <class Index>
status_or<tensor> upload_plan(gpu_device& g, const tensor& indices, row_plan_view* view) {
  const row_scatter_plan plan = plan_row_scatter<Index>(
      {indices.data<Index>(), static_cast<size_t>(indices.num_elements())});
  // Staged in page-locked memory, which the copy engine reads with no second pass.
  CAFLOW_ASSIGN_OR_RETURN(
      tensor host, tensor::allocate(g.pinned_allocator(), dtype::int64,
                                    tensor_shape{static_cast<int64_t>(plan.data.size())}));
  std::copy(plan.data.begin(), plan.data.end(), host.data<int64_t>());
  CAFLOW_ASSIGN_OR_RETURN(tensor on, g.copy_in(host));
  *view = {on.data<int64_t>(), plan.updates, plan.rows};
  return on;
}

// `value` where this GPU may write some of its rows: itself when the variable owns it alone,
// else a copy in the GPU's memory, which the variable then holds (a reader keeps the old bytes).
status make_writable(tensor& value, const variable& var, gpu_device& g) {
  if (update_in_place(value, g)) return {};
  if (g.is_capturing())
    return errors::failed_precondition("variable '", var.name(),
                                       "' is shared with a reader, so its update cannot be "
                                       "recorded in place");
  CAFLOW_ASSIGN_OR_RETURN(tensor fresh,
                          tensor::allocate(g.variable_allocator(), value.type(), value.shape()));
  CAFLOW_RETURN_IF_ERROR(g.copy_into(value, fresh));
  value = std::move(fresh);
  return {};
}

int64_t row_length(const tensor& value) {
  return value.dim(0) == 0 ? 0 : value.num_elements() / value.dim(0);
}

template <class T, class Index, scatter_kind K>
class scatter_op final : public gpu_op_kernel {
 public:
  using gpu_op_kernel::gpu_op_kernel;

 protected:
  void compute_on(kernel_context& ctx, gpu_device& g) override {
    const auto& var = ctx.input_ref(0);
    CAFLOW_OP_REQUIRES(ctx, var != nullptr,
                       errors::invalid_argument("ref is not a variable reference"));
    const tensor& indices = ctx.input(1);
    CAFLOW_GPU_INPUT(updates, ctx, g, 2);
    status st = var->update_initialized([&](tensor& value) -> status {
      CAFLOW_RETURN_IF_ERROR(sparse_checks::scatter_updates(value, *var, indices, updates));
      CAFLOW_RETURN_IF_ERROR(sparse_checks::scatter_indices<Index>(indices, *var, value));
      if (indices.num_elements() == 0) return {};
      CAFLOW_RETURN_IF_ERROR(make_writable(value, *var, g));
      row_plan_view plan;
      // Held until the launch is queued; the GPU's allocator orders its reuse after it.
      CAFLOW_ASSIGN_OR_RETURN([[maybe_unused]] tensor held, upload_plan<Index>(g, indices, &plan));
      launch_scatter_rows<T>(K, value.data<T>(), row_length(value), updates.data<T>(),
                             updates.rank() == 0, plan, g.compute_stream());
      return launch_status("Scatter");
    });
    CAFLOW_OP_REQUIRES_OK(ctx, st);
    ctx.set_output_ref(0, var);
  }
};

// The rule's hyperparameters from host-memory scalar inputs, by name; false after setting the
// error of a bad one.
template <class T>
bool read_scalars(kernel_context& ctx, std::initializer_list<std::pair<int, const char*>> args,
                  std::initializer_list<T*> into) {
  auto out = into.begin();
  for (const auto& [index, name] : args) {
    const tensor& t = ctx.input(index);
    if (status st = training::check_scalar(t, name); !st.ok()) {
      ctx.set_status(st);
      return false;
    }
    **out++ = t.scalar_value<T>();
  }
  return true;
}

// Locks var and its N - 1 slots, checks them, grad and indices, and runs `rule` on the rows the
// indices name. A slot (or var) copied because a reader shares it gets the old values first:
// only the named rows are rewritten.
template <class T, class Index, size_t N>
void sparse_apply(kernel_context& ctx, gpu_device& g, sparse_rule rule, const sparse_hyper<T>& h,
                  const std::array<const char*, N>& names, int grad_index,
                  const std::array<bool, N>& writes) {
  CAFLOW_GPU_INPUT(grad, ctx, g, grad_index);
  const tensor& indices = ctx.input(grad_index + 1);
  CAFLOW_OP_REQUIRES_OK(ctx, sparse_checks::sparse_apply_args(grad, indices));
  auto check = [&](const tensor& value, const variable& var) {
    return sparse_checks::sparse_apply_rows<Index>(grad, indices, var, value);
  };
  auto allocate = [&](dtype type, const tensor_shape& shape) {
    return tensor::allocate(g.variable_allocator(), type, shape);
  };
  status launched;
  auto run = [&](const training::update_buffers<T, N>& b) {
    const size_t bytes = static_cast<size_t>(b.n) * sizeof(T);
    std::array<T*, 3> slots{};
    for (size_t i = 0; i < N; ++i) {
      if (b.out[i] != nullptr && b.out[i] != b.in[i] && bytes > 0 && launched.ok())
        launched = cuda_status(cudaMemcpyAsync(b.out[i], b.in[i], bytes, cudaMemcpyDeviceToDevice,
                                               g.compute_stream()),
                               "cudaMemcpyAsync");
      // A slot the rule only reads is read where it is.
      slots[i] = b.out[i] != nullptr ? b.out[i] : const_cast<T*>(b.in[i]);
    }
    if (!launched.ok() || indices.num_elements() == 0) return;
    row_plan_view plan;
    auto held = upload_plan<Index>(g, indices, &plan);
    if (!held.ok()) {
      launched = held.get_status();
      return;
    }
    launch_sparse_apply<T>(rule, h, slots[0], N > 1 ? slots[1] : nullptr,
                           N > 2 ? slots[2] : nullptr, grad.data<T>(), row_length(grad), plan,
                           g.compute_stream());
    launched = launch_status("SparseApply");
  };
  training::locked_update_checked<T, N>(ctx, names, check, writes, allocate, run);
  if (ctx.ok()) CAFLOW_OP_REQUIRES_OK(ctx, launched);
}

template <class T, class Index>
class sparse_apply_gradient_descent_op final : public gpu_op_kernel {
 public:
  using gpu_op_kernel::gpu_op_kernel;

 protected:
  void compute_on(kernel_context& ctx, gpu_device& g) override {
    sparse_hyper<T> h;
    if (!read_scalars<T>(ctx, {{1, "alpha"}}, {&h.lr})) return;
    sparse_apply<T, Index, 1>(ctx, g, sparse_rule::gradient_descent, h, {"var"}, 2, {true});
  }
};

template <class T, class Index>
class sparse_apply_momentum_op final : public gpu_op_kernel {
 public:
  explicit sparse_apply_momentum_op(kernel_construction& c) : gpu_op_kernel(c) {
    CAFLOW_OP_REQUIRES_OK(c, c.get_attr("use_nesterov", &nesterov_));
  }

 protected:
  void compute_on(kernel_context& ctx, gpu_device& g) override {
    sparse_hyper<T> h;
    h.nesterov = nesterov_;
    if (!read_scalars<T>(ctx, {{2, "lr"}, {5, "momentum"}}, {&h.lr, &h.momentum})) return;
    sparse_apply<T, Index, 2>(ctx, g, sparse_rule::momentum, h, {"var", "accum"}, 3,
                              {true, true});
  }

 private:
  bool nesterov_ = false;
};

template <class T, class Index>
class sparse_apply_adagrad_op final : public gpu_op_kernel {
 public:
  explicit sparse_apply_adagrad_op(kernel_construction& c) : gpu_op_kernel(c) {
    CAFLOW_OP_REQUIRES_OK(c, c.get_attr("update_slots", &update_slots_));
  }

 protected:
  void compute_on(kernel_context& ctx, gpu_device& g) override {
    sparse_hyper<T> h;
    h.update_slots = update_slots_;
    if (!read_scalars<T>(ctx, {{2, "lr"}}, {&h.lr})) return;
    sparse_apply<T, Index, 2>(ctx, g, sparse_rule::adagrad, h, {"var", "accum"}, 3,
                              {true, update_slots_});
  }

 private:
  bool update_slots_ = true;
};

template <class T, class Index>
class sparse_apply_rms_prop_op final : public gpu_op_kernel {
 public:
  using gpu_op_kernel::gpu_op_kernel;

 protected:
  void compute_on(kernel_context& ctx, gpu_device& g) override {
    sparse_hyper<T> h;
    if (!read_scalars<T>(ctx, {{3, "lr"}, {4, "rho"}, {5, "momentum"}, {6, "epsilon"}},
                         {&h.lr, &h.rho, &h.momentum, &h.epsilon}))
      return;
    sparse_apply<T, Index, 3>(ctx, g, sparse_rule::rms_prop, h, {"var", "ms", "mom"}, 7,
                              {true, true, true});
  }
};

template <class T, class Index>
class sparse_apply_ftrl_op final : public gpu_op_kernel {
 public:
  using gpu_op_kernel::gpu_op_kernel;

 protected:
  void compute_on(kernel_context& ctx, gpu_device& g) override {
    sparse_hyper<T> h;
    if (!read_scalars<T>(ctx, {{5, "lr"}, {6, "l1"}, {7, "l2"}, {8, "lr_power"}},
                         {&h.lr, &h.l1, &h.l2, &h.lr_power}))
      return;
    CAFLOW_OP_REQUIRES_OK(ctx, sparse_checks::ftrl_hyperparameters(h.lr, h.l1, h.l2, h.lr_power));
    sparse_apply<T, Index, 3>(ctx, g, sparse_rule::ftrl, h, {"var", "accum", "linear"}, 3,
                              {true, true, true});
  }
};

// UnsortedSegmentSum: a zeroed output, then data's rows added into the rows their ids name, by
// the same plan (negative ids drop their rows).
template <class T, class Index>
class unsorted_segment_sum_op final : public gpu_op_kernel {
 public:
  using gpu_op_kernel::gpu_op_kernel;

 protected:
  void compute_on(kernel_context& ctx, gpu_device& g) override {
    CAFLOW_GPU_INPUT(data, ctx, g, 0);
    const tensor& ids = ctx.input(1);
    CAFLOW_OP_REQUIRES(ctx, ctx.input(2).rank() == 0,
                       errors::invalid_argument("num_segments must be a scalar, got shape ",
                                                ctx.input(2).shape().to_string()));
    auto num = host_ints(ctx, g, 2);
    CAFLOW_OP_REQUIRES_OK(ctx, num.get_status());
    auto shape = sparse_checks::unsorted_segment_shape(data, ids, (*num)[0]);
    CAFLOW_OP_REQUIRES_OK(ctx, shape.get_status());
    CAFLOW_OP_REQUIRES_OK(ctx, sparse_checks::unsorted_segment_ids<Index>(ids, (*num)[0]));
    tensor out = allocate_output(ctx, g, 0, *shape);
    if (!out.initialized() || out.num_elements() == 0) return;
    CAFLOW_OP_REQUIRES_OK(ctx, cuda_status(cudaMemsetAsync(out.raw_data(), 0, out.byte_size(),
                                                           g.compute_stream()),
                                           "cudaMemsetAsync"));
    if (ids.num_elements() == 0) return;
    row_plan_view plan;
    auto held = upload_plan<Index>(g, ids, &plan);
    CAFLOW_OP_REQUIRES_OK(ctx, held.get_status());
    launch_scatter_rows<T>(scatter_kind::add, out.data<T>(), out.num_elements() / out.dim(0),
                           data.data<T>(), false, plan, g.compute_stream());
    CAFLOW_OP_REQUIRES_OK(ctx, launch_status("UnsortedSegmentSum"));
  }
};

}  // namespace

#define CAFLOW_REGISTER_GPU_INDEXED(op, T, Index, ...)            \
  CAFLOW_REGISTER_KERNEL(kernel_def_builder(op)                   \
                             .device(device_gpu)                  \
                             .type_constraint<T>("T")             \
                             .type_constraint<Index>("Tindices"), \
                         __VA_ARGS__)
#define CAFLOW_REGISTER_GPU_SCATTER(op, kind, T)                                                \
  CAFLOW_REGISTER_GPU_INDEXED(op, T, int32_t, scatter_op<T, int32_t, scatter_kind::kind>); \
  CAFLOW_REGISTER_GPU_INDEXED(op, T, int64_t, scatter_op<T, int64_t, scatter_kind::kind>)
#define CAFLOW_REGISTER_GPU_SCATTERS(T)                    \
  CAFLOW_REGISTER_GPU_SCATTER("ScatterUpdate", update, T); \
  CAFLOW_REGISTER_GPU_SCATTER("ScatterAdd", add, T);       \
  CAFLOW_REGISTER_GPU_SCATTER("ScatterSub", sub, T);       \
  CAFLOW_REGISTER_GPU_SCATTER("ScatterMul", mul, T);       \
  CAFLOW_REGISTER_GPU_SCATTER("ScatterMin", min, T);       \
  CAFLOW_REGISTER_GPU_SCATTER("ScatterMax", max, T)
#define CAFLOW_REGISTER_GPU_SPARSE_APPLY(op, kernel, T)               \
  CAFLOW_REGISTER_GPU_INDEXED(op, T, int32_t, kernel<T, int32_t>); \
  CAFLOW_REGISTER_GPU_INDEXED(op, T, int64_t, kernel<T, int64_t>)
#define CAFLOW_REGISTER_GPU_SPARSE_APPLIES(T)                                                          \
  CAFLOW_REGISTER_GPU_SPARSE_APPLY("SparseApplyGradientDescent", sparse_apply_gradient_descent_op, T); \
  CAFLOW_REGISTER_GPU_SPARSE_APPLY("SparseApplyMomentum", sparse_apply_momentum_op, T);                \
  CAFLOW_REGISTER_GPU_SPARSE_APPLY("SparseApplyAdagrad", sparse_apply_adagrad_op, T);                  \
  CAFLOW_REGISTER_GPU_SPARSE_APPLY("SparseApplyRMSProp", sparse_apply_rms_prop_op, T);                 \
  CAFLOW_REGISTER_GPU_SPARSE_APPLY("SparseApplyFtrl", sparse_apply_ftrl_op, T)

// The indices are checked and planned on the host; the hyperparameters are read there.
CAFLOW_REGISTER_HOST_MEMORY("ScatterUpdate", device_gpu, "indices");
CAFLOW_REGISTER_HOST_MEMORY("ScatterAdd", device_gpu, "indices");
CAFLOW_REGISTER_HOST_MEMORY("ScatterSub", device_gpu, "indices");
CAFLOW_REGISTER_HOST_MEMORY("ScatterMul", device_gpu, "indices");
CAFLOW_REGISTER_HOST_MEMORY("ScatterDiv", device_gpu, "indices");
CAFLOW_REGISTER_HOST_MEMORY("ScatterMin", device_gpu, "indices");
CAFLOW_REGISTER_HOST_MEMORY("ScatterMax", device_gpu, "indices");
CAFLOW_REGISTER_HOST_MEMORY("SparseApplyGradientDescent", device_gpu, "alpha", "indices");
CAFLOW_REGISTER_HOST_MEMORY("SparseApplyMomentum", device_gpu, "lr", "momentum", "indices");
CAFLOW_REGISTER_HOST_MEMORY("SparseApplyAdagrad", device_gpu, "lr", "indices");
CAFLOW_REGISTER_HOST_MEMORY("SparseApplyRMSProp", device_gpu, "lr", "rho", "momentum", "epsilon",
                            "indices");
CAFLOW_REGISTER_HOST_MEMORY("SparseApplyFtrl", device_gpu, "lr", "l1", "l2", "lr_power", "indices");

CAFLOW_REGISTER_GPU_SCATTERS(float);
CAFLOW_REGISTER_GPU_SCATTERS(double);
CAFLOW_REGISTER_GPU_SCATTERS(int32_t);
CAFLOW_REGISTER_GPU_SCATTERS(int64_t);
// ScatterDiv by an integer zero: float types only, as on the CPU.
CAFLOW_REGISTER_GPU_SCATTER("ScatterDiv", div, float);
CAFLOW_REGISTER_GPU_SCATTER("ScatterDiv", div, double);
CAFLOW_REGISTER_GPU_SPARSE_APPLIES(float);
CAFLOW_REGISTER_GPU_SPARSE_APPLIES(double);
CAFLOW_REGISTER_HOST_MEMORY("UnsortedSegmentSum", device_gpu, "segment_ids", "num_segments");
#define CAFLOW_REGISTER_GPU_SEGMENT_SUM(T)                                           \
  CAFLOW_REGISTER_GPU_INDEXED("UnsortedSegmentSum", T, int32_t,                     \
                              unsorted_segment_sum_op<T, int32_t>);                 \
  CAFLOW_REGISTER_GPU_INDEXED("UnsortedSegmentSum", T, int64_t,                     \
                              unsorted_segment_sum_op<T, int64_t>)
CAFLOW_REGISTER_GPU_SEGMENT_SUM(float);
CAFLOW_REGISTER_GPU_SEGMENT_SUM(double);
#undef CAFLOW_REGISTER_GPU_SEGMENT_SUM
#undef CAFLOW_REGISTER_GPU_SPARSE_APPLIES
#undef CAFLOW_REGISTER_GPU_SPARSE_APPLY
#undef CAFLOW_REGISTER_GPU_SCATTERS
#undef CAFLOW_REGISTER_GPU_SCATTER
#undef CAFLOW_REGISTER_GPU_INDEXED

}  // namespace caflow::gpu
