// ConditionalAccumulator, SparseConditionalAccumulator and the ops on their handles. The accumulator lives in the device's
// resource manager under (container, shared_name or node name), looked up once when the
// kernel is built, so every worker graph naming it on this device shares one accumulator.
#include "kernels/cpu/array_kernel_util.hpp"
#include "kernels/resources/conditional_accumulator.hpp"
#include "kernels/framework/kernel_registry.hpp"

namespace caflow {
namespace {

using array_kernels::parallel_copy;
using array_kernels::parallel_for;

status_or<std::shared_ptr<conditional_accumulator>> accumulator_for(kernel_context& ctx) {
  auto acc = ctx.input_resource<conditional_accumulator>(0);
  if (!acc) return errors::invalid_argument("input 0 is not an accumulator handle");
  return acc;
}

status require_scalar(const kernel_context& ctx, int i, const char* what) {
  if (ctx.input(i).rank() != 0)
    return errors::invalid_argument(what, " must be a scalar, got shape ",
                                    ctx.input(i).shape().to_string());
  return {};
}

template <bool Sparse>
class accumulator_op final : public op_kernel {
 public:
  explicit accumulator_op(kernel_construction& c) : op_kernel(c) {
    dtype type;
    partial_shape shape;
    std::string container, shared_name, reduction;
    CAFLOW_OP_REQUIRES_OK(c, c.get_attr("dtype", &type));
    CAFLOW_OP_REQUIRES_OK(c, c.get_attr("shape", &shape));
    CAFLOW_OP_REQUIRES_OK(c, c.get_attr("container", &container));
    CAFLOW_OP_REQUIRES_OK(c, c.get_attr("shared_name", &shared_name));
    CAFLOW_OP_REQUIRES_OK(c, c.get_attr("reduction_type", &reduction));
    auto r = conditional_accumulator::parse_reduction(reduction);
    CAFLOW_OP_REQUIRES_OK(c, r.get_status());
    const std::string& key = shared_name.empty() ? c.def().name : shared_name;
    acc_ = c.dev().resources().lookup_or_create<conditional_accumulator>(container, key, [&] {
      return std::make_shared<conditional_accumulator>(key, type, shape, *r, Sparse);
    });
    CAFLOW_OP_REQUIRES(c, acc_,
                       errors::invalid_argument("resource '", key, "' in container '", container,
                                                "' exists and is not an accumulator"));
    CAFLOW_OP_REQUIRES_OK(c, acc_->matches(type, shape, *r, Sparse));
  }
  void compute(kernel_context& ctx) override { ctx.set_output_resource(0, acc_); }

 private:
  std::shared_ptr<conditional_accumulator> acc_;
};

// The round's first gradient copied, the others added, in shards over the device's intra-op
// threads: the ps runs these on the critical path of every synchronous step, and a large
// variable's pass (12.8 MB for the CNN's dense kernel) takes a lone thread milliseconds.
template <class T>
void add_into(const kernel_context& ctx, tensor& sum, const tensor& gradient, bool first) {
  T* s = sum.data<T>();
  const T* g = gradient.data<T>();
  if (first) {
    parallel_copy(ctx, s, g, gradient.byte_size());
    return;
  }
  parallel_for(ctx, sum.num_elements(), 3 * sizeof(T), [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) s[i] += g[i];
  });
}

template <class T>
void add_rows(void* sum, const void* gradient, int64_t n) {
  T* s = static_cast<T*>(sum);
  const T* g = static_cast<const T*>(gradient);
  for (int64_t i = 0; i < n; ++i) s[i] += g[i];
}

status require_kind(const conditional_accumulator& acc, bool sparse) {
  if (acc.is_sparse() == sparse) return {};
  return errors::invalid_argument("accumulator '", acc.name(), "' is ",
                                  acc.is_sparse() ? "sparse: use SparseAccumulator* ops"
                                                  : "dense: use Accumulator* ops");
}

template <class T>
class apply_gradient_op final : public op_kernel {
 public:
  using op_kernel::op_kernel;
  void compute(kernel_context& ctx) override {
    auto acc = accumulator_for(ctx);
    CAFLOW_OP_REQUIRES_OK(ctx, acc.get_status());
    CAFLOW_OP_REQUIRES_OK(ctx, require_scalar(ctx, 1, "local_step"));
    CAFLOW_OP_REQUIRES_OK(ctx, require_kind(**acc, false));
    CAFLOW_OP_REQUIRES_OK(
        ctx, (*acc)->apply_gradient(ctx.input(1).scalar_value<int64_t>(), ctx.input(2),
                                    ctx.dev().get_allocator(),
                                    [&ctx](tensor& sum, const tensor& gradient, bool first) {
                                      add_into<T>(ctx, sum, gradient, first);
                                    }));
  }
};

// Inputs: handle, local_step, gradient_indices, gradient_values, gradient_shape.
template <class T>
class sparse_apply_gradient_op final : public op_kernel {
 public:
  explicit sparse_apply_gradient_op(kernel_construction& c) : op_kernel(c) {
    CAFLOW_OP_REQUIRES_OK(c, c.get_attr("has_known_shape", &has_known_shape_));
  }
  void compute(kernel_context& ctx) override {
    auto acc = accumulator_for(ctx);
    CAFLOW_OP_REQUIRES_OK(ctx, acc.get_status());
    CAFLOW_OP_REQUIRES_OK(ctx, require_scalar(ctx, 1, "local_step"));
    CAFLOW_OP_REQUIRES_OK(ctx, require_kind(**acc, true));
    CAFLOW_OP_REQUIRES_OK(ctx, (*acc)->apply_sparse_gradient(
                                   ctx.input(1).scalar_value<int64_t>(), ctx.input(2),
                                   ctx.input(3), has_known_shape_ ? ctx.input(4) : tensor(),
                                   &add_rows<T>));
  }

 private:
  bool has_known_shape_ = false;
};

status check_take(kernel_context& ctx, const status_or<std::shared_ptr<conditional_accumulator>>& acc,
                  dtype want, bool sparse) {
  CAFLOW_RETURN_IF_ERROR(acc.get_status());
  CAFLOW_RETURN_IF_ERROR(require_scalar(ctx, 1, "num_required"));
  CAFLOW_RETURN_IF_ERROR(require_kind(**acc, sparse));
  if (ctx.input(1).scalar_value<int32_t>() < 1)
    return errors::invalid_argument("num_required must be positive, got ",
                                    ctx.input(1).scalar_value<int32_t>());
  if ((*acc)->type() != want)
    return errors::invalid_argument("accumulator '", (*acc)->name(), "' holds ",
                                    dtype_name((*acc)->type()), " gradients, this take gives ",
                                    dtype_name(want));
  return {};
}

// Outputs indices (int64, ascending), values and shape (int64: the last gradient_shape given,
// else the accumulator's declared shape with dim 0 at least the largest index + 1). With MEAN
// each row is divided by the number of gradients that named it, as TF's.
template <class T>
class sparse_take_gradient_op final : public async_op_kernel {
 public:
  using async_op_kernel::async_op_kernel;
  void compute_async(kernel_context& ctx, done_callback done) override {
    auto acc = accumulator_for(ctx);
    if (status st = check_take(ctx, acc, dtype_v<T>, true); !st.ok()) {
      ctx.set_status(std::move(st));
      done();
      return;
    }
    const bool mean = (*acc)->reduction_type() == conditional_accumulator::reduction::mean;
    const partial_shape declared = (*acc)->shape();
    (*acc)->take_gradient(
        ctx.input(1).scalar_value<int32_t>(), {ctx.step().cancellation, &ctx.dev()},
        [&ctx, mean, declared, done = std::move(done)](status st,
                                                       conditional_accumulator::taken t) {
          if (st.ok()) st = finish(ctx, mean, declared, std::move(t));
          ctx.set_status(std::move(st));
          done();
        });
  }

 private:
  static status finish(kernel_context& ctx, bool mean, const partial_shape& declared,
                       conditional_accumulator::taken t) {
    CAFLOW_ASSIGN_OR_RETURN(sparse_gradient_sum::rows rows,
                            t.rows.take(ctx.dev().get_allocator()));
    const int64_t n = rows.indices.num_elements();
    if (rows.values.type() == dtype::invalid) {
      // No gradient named any row: zero rows of the declared row shape.
      std::vector<int64_t> dims{0};
      for (int d = 1; declared.rank_known() && d < declared.rank(); ++d)
        dims.push_back(std::max<int64_t>(declared.dim(d), 0));
      CAFLOW_ASSIGN_OR_RETURN(rows.values, tensor::allocate(ctx.dev().get_allocator(),
                                                            dtype_v<T>, tensor_shape(dims)));
    }
    if (mean && n > 0) {
      T* v = rows.values.data<T>();
      const int64_t row = rows.values.num_elements() / n;
      for (int64_t i = 0; i < n; ++i)
        if (rows.counts[i] > 1)
          for (int64_t j = 0; j < row; ++j) v[i * row + j] /= static_cast<T>(rows.counts[i]);
    }
    tensor shape = std::move(t.dense_shape);
    if (shape.type() == dtype::invalid) {
      std::vector<int64_t> dims;
      const int rank = rows.values.rank();
      for (int d = 0; d < rank; ++d) dims.push_back(d == 0 ? -1 : rows.values.dim(d));
      if (declared.rank_known() && declared.rank() > 0 && declared.dim(0) >= 0)
        dims[0] = declared.dim(0);
      else
        dims[0] = n == 0 ? 0 : rows.indices.data<int64_t>()[n - 1] + 1;
      CAFLOW_ASSIGN_OR_RETURN(shape, tensor::allocate(ctx.dev().get_allocator(), dtype::int64,
                                                      tensor_shape{static_cast<int64_t>(dims.size())}));
      std::copy(dims.begin(), dims.end(), shape.data<int64_t>());
    }
    ctx.set_output(0, std::move(rows.indices));
    ctx.set_output(1, std::move(rows.values));
    ctx.set_output(2, std::move(shape));
    return {};
  }
};

template <class T>
class take_gradient_op final : public async_op_kernel {
 public:
  using async_op_kernel::async_op_kernel;
  void compute_async(kernel_context& ctx, done_callback done) override {
    auto acc = accumulator_for(ctx);
    if (status st = check_take(ctx, acc, dtype_v<T>, false); !st.ok()) {
      ctx.set_status(std::move(st));
      done();
      return;
    }
    const bool mean = (*acc)->reduction_type() == conditional_accumulator::reduction::mean;
    (*acc)->take_gradient(
        ctx.input(1).scalar_value<int32_t>(), {ctx.step().cancellation, &ctx.dev()},
        [&ctx, mean, done = std::move(done)](status st, conditional_accumulator::taken t) {
          if (st.ok()) {
            // The sum is handed over, owned alone: averaged in place.
            if (mean && t.count > 1) {
              T* p = t.sum.data<T>();
              const T count = static_cast<T>(t.count);
              parallel_for(ctx, t.sum.num_elements(), 2 * sizeof(T),
                           [&](int64_t begin, int64_t end) {
                             for (int64_t i = begin; i < end; ++i) p[i] /= count;
                           });
            }
            ctx.set_output(0, std::move(t.sum));
          }
          ctx.set_status(std::move(st));
          done();
        });
  }
};

class num_accumulated_op final : public op_kernel {
 public:
  using op_kernel::op_kernel;
  void compute(kernel_context& ctx) override {
    auto acc = accumulator_for(ctx);
    CAFLOW_OP_REQUIRES_OK(ctx, acc.get_status());
    tensor* out = ctx.allocate_output(0, tensor_shape{});
    if (out) *out->data<int32_t>() = static_cast<int32_t>((*acc)->num_accumulated());
  }
};

class set_global_step_op final : public op_kernel {
 public:
  using op_kernel::op_kernel;
  void compute(kernel_context& ctx) override {
    auto acc = accumulator_for(ctx);
    CAFLOW_OP_REQUIRES_OK(ctx, acc.get_status());
    CAFLOW_OP_REQUIRES_OK(ctx, require_scalar(ctx, 1, "new_global_step"));
    (*acc)->set_global_step(ctx.input(1).scalar_value<int64_t>());
  }
};

}  // namespace

CAFLOW_REGISTER_KERNEL(kernel_def_builder("ConditionalAccumulator").device(device_cpu),
                       accumulator_op<false>);
CAFLOW_REGISTER_KERNEL(kernel_def_builder("SparseConditionalAccumulator").device(device_cpu),
                       accumulator_op<true>);
CAFLOW_REGISTER_TYPED_KERNELS("SparseAccumulatorApplyGradient", device_cpu, "dtype",
                              sparse_apply_gradient_op, float, double);
CAFLOW_REGISTER_TYPED_KERNELS("SparseAccumulatorTakeGradient", device_cpu, "dtype",
                              sparse_take_gradient_op, float, double);
CAFLOW_REGISTER_TYPED_KERNELS("AccumulatorApplyGradient", device_cpu, "dtype", apply_gradient_op,
                              float, double);
CAFLOW_REGISTER_TYPED_KERNELS("AccumulatorTakeGradient", device_cpu, "dtype", take_gradient_op,
                              float, double);
CAFLOW_REGISTER_KERNEL(kernel_def_builder("AccumulatorNumAccumulated").device(device_cpu),
                       num_accumulated_op);
CAFLOW_REGISTER_KERNEL(kernel_def_builder("AccumulatorSetGlobalStep").device(device_cpu),
                       set_global_step_op);

}  // namespace caflow
