// ReverseV2 and BroadcastTo, both one strided copy (kernels/cpu/array_kernel_util.hpp): a
// reversed dimension is read from its last element with a negative step, a broadcast one with
// step 0. Compiled once per element size, registered per dtype. Also ReverseSequence (an
// element-wise gather) and the index computations InvertPermutation and BroadcastArgs.
#include "graph/ir/shape_inference.hpp"
#include "graph/util/array_index_util.hpp"
#include "graph/util/reverse_broadcast_rules.hpp"
#include "kernels/cpu/array_kernel_util.hpp"
#include "kernels/framework/kernel_registry.hpp"

namespace caflow {
namespace {

using namespace array_kernels;

// Output 0: `x` reversed along the dims flagged in `dims`.
void write_reversed(kernel_context& ctx, const tensor& x, const std::array<bool, max_rank>& dims) {
  const auto strides = row_strides(x.shape());
  std::array<int64_t, max_rank> steps{};
  int64_t start = 0;
  for (int k = 0; k < x.rank(); ++k) {
    const bool flip = dims[k] && x.dim(k) > 1;
    steps[k] = flip ? -strides[k] : strides[k];
    if (flip) start += (x.dim(k) - 1) * strides[k];
  }
  const auto layout = strided_layout::make(x.shape().dims(), std::span(steps.data(), x.rank()));
  if (layout.empty || layout.contiguous()) {
    ctx.set_output(0, x);
    return;
  }
  tensor* out = ctx.allocate_output(0, x.shape());
  if (!out) return;
  const size_t elem = dtype_size(x.type());
  copy_strided(ctx, layout, static_cast<const char*>(x.raw_data()) + start * elem,
               out->raw_data(), elem);
}

class reverse_bytes : public op_kernel {
 public:
  using op_kernel::op_kernel;

  void compute(kernel_context& ctx) override {
    const tensor& x = ctx.input(0);
    const tensor& axis_t = ctx.input(1);
    CAFLOW_OP_REQUIRES(ctx, axis_t.rank() == 1,
                       errors::invalid_argument("axis must be a vector, got shape ",
                                                axis_t.shape().to_string()));
    auto dims = reverse_dims(index_values(axis_t), x.rank());
    CAFLOW_OP_REQUIRES_OK(ctx, dims.get_status());
    write_reversed(ctx, x, *dims);
  }
};

// Reverse, TF's first version: one bool per dimension.
class reverse_v1_bytes : public op_kernel {
 public:
  using op_kernel::op_kernel;

  void compute(kernel_context& ctx) override {
    const tensor& x = ctx.input(0);
    const tensor& flags = ctx.input(1);
    CAFLOW_OP_REQUIRES(ctx, flags.rank() == 1 && flags.dim(0) == x.rank(),
                       errors::invalid_argument("dims must be a vector of ", x.rank(),
                                                " bools (one per dimension of ",
                                                x.shape().to_string(), "), got shape ",
                                                flags.shape().to_string()));
    std::array<bool, max_rank> dims{};
    for (int k = 0; k < x.rank(); ++k) dims[k] = flags.data<bool>()[k];
    write_reversed(ctx, x, dims);
  }
};

// Roll: output index o along a rolled dim reads input index (o - shift) mod n; one table per
// dimension, then a gather walk.
class roll_bytes : public op_kernel {
 public:
  using op_kernel::op_kernel;

  void compute(kernel_context& ctx) override {
    const tensor& x = ctx.input(0);
    const tensor &shift_t = ctx.input(1), &axis_t = ctx.input(2);
    CAFLOW_OP_REQUIRES(ctx, shift_t.rank() <= 1 && axis_t.rank() <= 1 &&
                                shift_t.num_elements() == axis_t.num_elements(),
                       errors::invalid_argument("shift (shape ", shift_t.shape().to_string(),
                                                ") and axis (shape ", axis_t.shape().to_string(),
                                                ") must be scalars or vectors of one length"));
    const std::vector<int64_t> shifts = index_values(shift_t), axes = index_values(axis_t);
    std::array<int64_t, max_rank> total{};
    for (size_t i = 0; i < axes.size(); ++i) {
      auto a = canonical_axis(axes[i], x.rank(), "axis");
      CAFLOW_OP_REQUIRES_OK(ctx, a.get_status());
      total[*a] += shifts[i];
    }
    tensor* out = ctx.allocate_output(0, x.shape());
    if (!out || out->num_elements() == 0) return;
    const int rank = x.rank();
    std::vector<std::vector<int64_t>> source(rank);
    for (int k = 0; k < rank; ++k) {
      const int64_t n = x.dim(k);
      const int64_t sh = ((total[k] % n) + n) % n;
      source[k].resize(static_cast<size_t>(n));
      for (int64_t o = 0; o < n; ++o) source[k][o] = (o - sh + n) % n;
    }
    const auto strides = row_strides(x.shape());
    const int64_t count = x.num_elements();
    with_word(dtype_size(x.type()), [&]<class W>() {
      const W* src = static_cast<const W*>(x.raw_data());
      W* dst = static_cast<W*>(out->raw_data());
      std::array<int64_t, max_rank> idx{};
      for (int64_t e = 0; e < count; ++e) {
        int64_t off = 0;
        for (int k = 0; k < rank; ++k) off += source[k][idx[k]] * strides[k];
        dst[e] = src[off];
        for (int k = rank - 1; k >= 0; --k) {
          if (++idx[k] < x.dim(k)) break;
          idx[k] = 0;
        }
      }
    });
  }
};

class broadcast_to_bytes : public op_kernel {
 public:
  using op_kernel::op_kernel;

  void compute(kernel_context& ctx) override {
    const tensor& x = ctx.input(0);
    const tensor& shape_t = ctx.input(1);
    CAFLOW_OP_REQUIRES(ctx, shape_t.rank() == 1,
                       errors::invalid_argument("shape must be a vector, got shape ",
                                                shape_t.shape().to_string()));
    const std::vector<int64_t> target = index_values(shape_t);
    CAFLOW_OP_REQUIRES_OK(ctx, check_broadcast_to(x.shape(), target));
    auto out_shape = tensor_shape::make(target);
    CAFLOW_OP_REQUIRES_OK(ctx, out_shape.get_status());
    const int rank = out_shape->rank(), lead = rank - x.rank();
    const auto strides = row_strides(x.shape());
    std::array<int64_t, max_rank> steps{};
    for (int k = lead; k < rank; ++k)
      steps[k] = x.dim(k - lead) == 1 ? 0 : strides[k - lead];
    const auto layout = strided_layout::make(out_shape->dims(), std::span(steps.data(), rank));
    if (layout.contiguous()) {
      ctx.set_output(0, x.reshaped(*out_shape));
      return;
    }
    tensor* out = ctx.allocate_output(0, *out_shape);
    if (!out || out->num_elements() == 0) return;
    copy_strided(ctx, layout, x.raw_data(), out->raw_data(), dtype_size(x.type()));
  }
};

class reverse_sequence_bytes : public op_kernel {
 public:
  explicit reverse_sequence_bytes(kernel_construction& c) : op_kernel(c) {
    CAFLOW_OP_REQUIRES_OK(c, c.get_attr("seq_dim", &seq_dim_));
    CAFLOW_OP_REQUIRES_OK(c, c.get_attr("batch_dim", &batch_dim_));
  }

  void compute(kernel_context& ctx) override {
    const tensor& x = ctx.input(0);
    const tensor& lens_t = ctx.input(1);
    CAFLOW_OP_REQUIRES_OK(ctx, check_reverse_sequence_dims(x.shape(), seq_dim_, batch_dim_));
    const int sd = static_cast<int>(seq_dim_), bd = static_cast<int>(batch_dim_);
    CAFLOW_OP_REQUIRES(ctx, lens_t.rank() == 1 && lens_t.dim(0) == x.dim(bd),
                       errors::invalid_argument("seq_lengths must be a vector of ", x.dim(bd),
                                                " entries (dimension ", bd, " of input ",
                                                x.shape().to_string(), "), got shape ",
                                                lens_t.shape().to_string()));
    const std::vector<int64_t> lens = index_values(lens_t);
    for (size_t b = 0; b < lens.size(); ++b)
      CAFLOW_OP_REQUIRES(ctx, lens[b] >= 0 && lens[b] <= x.dim(sd),
                         errors::invalid_argument("seq_lengths[", b, "] = ", lens[b],
                                                  " is not in [0, ", x.dim(sd), "]"));
    tensor* out = ctx.allocate_output(0, x.shape());
    if (!out || out->num_elements() == 0) return;
    const auto strides = row_strides(x.shape());
    const int64_t n = x.num_elements();
    with_word(dtype_size(x.type()), [&]<class W>() {
      const W* src = static_cast<const W*>(x.raw_data());
      W* dst = static_cast<W*>(out->raw_data());
      for (int64_t e = 0; e < n; ++e) {
        const int64_t b = e / strides[bd] % x.dim(bd), i = e / strides[sd] % x.dim(sd);
        const int64_t len = lens[static_cast<size_t>(b)];
        dst[e] = i < len ? src[e + (len - 1 - 2 * i) * strides[sd]] : src[e];
      }
    });
  }

 private:
  int64_t seq_dim_ = 0, batch_dim_ = 0;
};

template <class T>
class reverse_sequence_op final : public reverse_sequence_bytes {
 public:
  using reverse_sequence_bytes::reverse_sequence_bytes;
};

template <class T>
class invert_permutation_op final : public op_kernel {
 public:
  using op_kernel::op_kernel;

  void compute(kernel_context& ctx) override {
    const tensor& x = ctx.input(0);
    CAFLOW_OP_REQUIRES(ctx, x.rank() == 1,
                       errors::invalid_argument("x must be a vector, got shape ",
                                                x.shape().to_string()));
    const std::vector<int64_t> perm = index_values(x);
    CAFLOW_OP_REQUIRES_OK(ctx, check_permutation(perm, static_cast<int>(perm.size())));
    tensor* out = ctx.allocate_output(0, x.shape());
    if (!out) return;
    for (size_t i = 0; i < perm.size(); ++i) out->data<T>()[perm[i]] = static_cast<T>(i);
  }
};

template <class T>
class broadcast_args_op final : public op_kernel {
 public:
  using op_kernel::op_kernel;

  void compute(kernel_context& ctx) override {
    const tensor &a = ctx.input(0), &b = ctx.input(1);
    CAFLOW_OP_REQUIRES(ctx, a.rank() == 1 && b.rank() == 1,
                       errors::invalid_argument("s0 and s1 must be vectors, got shapes ",
                                                a.shape().to_string(), " and ",
                                                b.shape().to_string()));
    auto s = broadcast_shapes(partial_shape(index_values(a)), partial_shape(index_values(b)));
    CAFLOW_OP_REQUIRES_OK(ctx, s.get_status());
    tensor* out = ctx.allocate_output(0, tensor_shape{s->rank()});
    if (!out) return;
    for (int i = 0; i < s->rank(); ++i) out->data<T>()[i] = static_cast<T>(s->dim(i));
  }
};

template <class T>
class reverse_v1_op final : public reverse_v1_bytes {
 public:
  using reverse_v1_bytes::reverse_v1_bytes;
};

template <class T>
class roll_op final : public roll_bytes {
 public:
  using roll_bytes::roll_bytes;
};

template <class T>
class reverse_op final : public reverse_bytes {
 public:
  using reverse_bytes::reverse_bytes;
};

template <class T>
class broadcast_to_op final : public broadcast_to_bytes {
 public:
  using broadcast_to_bytes::broadcast_to_bytes;
};

}  // namespace

CAFLOW_REGISTER_TYPED_KERNELS("ReverseV2", device_cpu, "T", reverse_op, float, double, int32_t,
                              int64_t, uint8_t, bool);
CAFLOW_REGISTER_TYPED_KERNELS("Reverse", device_cpu, "T", reverse_v1_op, float, double, int32_t,
                              int64_t, uint8_t, bool);
CAFLOW_REGISTER_TYPED_KERNELS("Roll", device_cpu, "T", roll_op, float, double, int32_t, int64_t,
                              uint8_t, bool);
CAFLOW_REGISTER_TYPED_KERNELS("ReverseSequence", device_cpu, "T", reverse_sequence_op, float,
                              double, int32_t, int64_t, uint8_t, bool);
CAFLOW_REGISTER_TYPED_KERNELS("InvertPermutation", device_cpu, "T", invert_permutation_op, int32_t,
                              int64_t);
CAFLOW_REGISTER_TYPED_KERNELS("BroadcastArgs", device_cpu, "T", broadcast_args_op, int32_t,
                              int64_t);
CAFLOW_REGISTER_TYPED_KERNELS("BroadcastTo", device_cpu, "T", broadcast_to_op, float, double,
                              int32_t, int64_t, uint8_t, bool);

}  // namespace caflow
