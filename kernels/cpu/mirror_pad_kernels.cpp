// PadV2, MirrorPad and MirrorPadGrad. Each padded dimension gets a table mapping output index
// to input index (graph/util/pad_rules.hpp); the output is walked row-major through the tables,
// copying whole input rows where the innermost dimension is not padded. PadV2 and MirrorPad
// move bytes (one instantiation per element size); MirrorPadGrad adds, so it is typed.
#include <vector>

#include "graph/util/array_index_util.hpp"
#include "graph/util/pad_rules.hpp"
#include "kernels/cpu/array_kernel_util.hpp"
#include "kernels/framework/kernel_registry.hpp"

namespace caflow {
namespace {

using namespace array_kernels;

// The paddings input checked against a tensor of shape `in` (the unpadded shape): per
// dimension the output size and the table of source indices.
struct pad_tables {
  tensor_shape out;
  std::vector<std::vector<int64_t>> source;  // [dim][output index] -> input index or -1
};

status_or<pad_tables> make_tables(pad_mode mode, const tensor_shape& in, const tensor& pad_t) {
  const int rank = in.rank();
  if (pad_t.rank() != 2 || pad_t.dim(0) != rank || pad_t.dim(1) != 2)
    return errors::invalid_argument("paddings must have shape [", rank, ",2] for input shape ",
                                    in.to_string(), ", got shape ", pad_t.shape().to_string());
  const std::vector<int64_t> p = index_values(pad_t);
  pad_tables t;
  std::vector<int64_t> dims(rank);
  for (int k = 0; k < rank; ++k) {
    CAFLOW_RETURN_IF_ERROR(check_pads(mode, k, p[2 * k], p[2 * k + 1], in.dim(k)));
    if (__builtin_add_overflow(in.dim(k), p[2 * k], &dims[k]) ||
        __builtin_add_overflow(dims[k], p[2 * k + 1], &dims[k]))
      return errors::invalid_argument("padding dimension ", k, " of size ", in.dim(k), " by [",
                                      p[2 * k], ", ", p[2 * k + 1], "] overflows int64");
  }
  CAFLOW_ASSIGN_OR_RETURN(t.out, tensor_shape::make(dims));
  if (t.out.num_elements() == 0) return t;
  t.source.resize(rank);
  for (int k = 0; k < rank; ++k) {
    t.source[k].resize(static_cast<size_t>(dims[k]));
    for (int64_t o = 0; o < dims[k]; ++o)
      t.source[k][o] = padded_source(mode, o, p[2 * k], in.dim(k));
  }
  return t;
}

// Writes output rows [begin, end) of dimension 0 from `src`; `fill` is one element of the
// constant (PadV2) or unused.
template <class W>
struct pad_writer {
  const pad_tables& t;
  const std::array<int64_t, max_rank> in_strides, out_strides;
  const W* src;
  W* dst;
  W fill;

  void level(int k, int64_t in_off, int64_t out_off, int64_t begin, int64_t end) const {
    const std::vector<int64_t>& table = t.source[k];
    const int rank = t.out.rank();
    for (int64_t o = begin; o < end; ++o) {
      const int64_t i = table[o];
      W* out = dst + out_off + o * out_strides[k];
      if (i < 0) {
        std::fill_n(out, out_strides[k], fill);
      } else if (k == rank - 1) {
        *out = src[in_off + i];
      } else {
        level(k + 1, in_off + i * in_strides[k], out_off + o * out_strides[k], 0,
              t.out.dim(k + 1));
      }
    }
  }
};

template <class W>
void write_padded(const kernel_context& ctx, const pad_tables& t, const tensor& in, tensor* out,
                  W fill) {
  const pad_writer<W> w{t, row_strides(in.shape()), row_strides(t.out),
                        static_cast<const W*>(in.raw_data()), static_cast<W*>(out->raw_data()),
                        fill};
  if (t.out.rank() == 0) {
    *w.dst = *w.src;
    return;
  }
  parallel_for(ctx, t.out.dim(0), w.out_strides[0] * static_cast<int64_t>(sizeof(W)),
               [&](int64_t begin, int64_t end) { w.level(0, 0, 0, begin, end); });
}

class padding_kernel : public op_kernel {
 public:
  padding_kernel(kernel_construction& c, bool mirror) : op_kernel(c) {
    if (!mirror) return;
    std::string mode;
    CAFLOW_OP_REQUIRES_OK(c, c.get_attr("mode", &mode));
    auto m = parse_mirror_mode(mode);
    CAFLOW_OP_REQUIRES_OK(c, m.get_status());
    mode_ = *m;
  }

 protected:
  pad_mode mode_ = pad_mode::constant;
};

class pad_v2_bytes : public padding_kernel {
 public:
  explicit pad_v2_bytes(kernel_construction& c) : padding_kernel(c, false) {}

  void compute(kernel_context& ctx) override {
    const tensor& input = ctx.input(0);
    const tensor& value = ctx.input(2);
    CAFLOW_OP_REQUIRES(ctx, value.rank() == 0,
                       errors::invalid_argument("constant_values must be a scalar, got shape ",
                                                value.shape().to_string()));
    auto t = make_tables(mode_, input.shape(), ctx.input(1));
    CAFLOW_OP_REQUIRES_OK(ctx, t.get_status());
    tensor* out = ctx.allocate_output(0, t->out);
    if (!out || out->num_elements() == 0) return;
    with_word(dtype_size(input.type()), [&]<class W>() {
      write_padded<W>(ctx, *t, input, out, *static_cast<const W*>(value.raw_data()));
    });
  }
};

class mirror_pad_bytes : public padding_kernel {
 public:
  explicit mirror_pad_bytes(kernel_construction& c) : padding_kernel(c, true) {}

  void compute(kernel_context& ctx) override {
    const tensor& input = ctx.input(0);
    auto t = make_tables(mode_, input.shape(), ctx.input(1));
    CAFLOW_OP_REQUIRES_OK(ctx, t.get_status());
    if (t->out == input.shape()) {
      ctx.set_output(0, input);
      return;
    }
    tensor* out = ctx.allocate_output(0, t->out);
    if (!out || out->num_elements() == 0) return;
    with_word(dtype_size(input.type()),
              [&]<class W>() { write_padded<W>(ctx, *t, input, out, W{}); });
  }
};

template <class T>
class pad_v2_op final : public pad_v2_bytes {
 public:
  using pad_v2_bytes::pad_v2_bytes;
};

template <class T>
class mirror_pad_op final : public mirror_pad_bytes {
 public:
  using mirror_pad_bytes::mirror_pad_bytes;
};

// The adjoint of MirrorPad: every element of the padded gradient adds onto the input element
// it was copied from.
template <class T>
class mirror_pad_grad_op final : public padding_kernel {
 public:
  explicit mirror_pad_grad_op(kernel_construction& c) : padding_kernel(c, true) {}

  void compute(kernel_context& ctx) override {
    const tensor& grad = ctx.input(0);
    const tensor& pad_t = ctx.input(1);
    const int rank = grad.rank();
    CAFLOW_OP_REQUIRES(ctx, pad_t.rank() == 2 && pad_t.dim(0) == rank && pad_t.dim(1) == 2,
                       errors::invalid_argument("paddings must have shape [", rank,
                                                ",2] for input shape ", grad.shape().to_string(),
                                                ", got shape ", pad_t.shape().to_string()));
    const std::vector<int64_t> p = index_values(pad_t);
    std::vector<int64_t> dims(rank);
    for (int k = 0; k < rank; ++k) {
      const int64_t before = p[2 * k], after = p[2 * k + 1];
      CAFLOW_OP_REQUIRES(
          ctx, before >= 0 && after >= 0 && before + after <= grad.dim(k),
          errors::invalid_argument("paddings[", k, "] = [", before, ", ", after,
                                   "] do not fit dimension ", k, " of the padded input ",
                                   grad.shape().to_string()));
      dims[k] = grad.dim(k) - before - after;
      CAFLOW_OP_REQUIRES_OK(ctx, check_pads(mode_, k, before, after, dims[k]));
    }
    tensor* out = ctx.allocate_output(0, tensor_shape(dims));
    if (!out) return;
    T* dst = out->data<T>();
    std::fill_n(dst, out->num_elements(), T{0});
    if (grad.num_elements() == 0) return;
    const auto out_strides = row_strides(out->shape());
    const T* g = grad.data<T>();
    // Walk the gradient row-major, tracking the target offset dimension by dimension.
    std::array<int64_t, max_rank> idx{};
    const int64_t n = grad.num_elements();
    for (int64_t e = 0; e < n; ++e) {
      int64_t off = 0;
      for (int k = 0; k < rank; ++k)
        off += padded_source(mode_, idx[k], p[2 * k], dims[k]) * out_strides[k];
      dst[off] += g[e];
      for (int k = rank - 1; k >= 0; --k) {
        if (++idx[k] < grad.dim(k)) break;
        idx[k] = 0;
      }
    }
  }
};

}  // namespace

CAFLOW_REGISTER_TYPED_KERNELS("PadV2", device_cpu, "T", pad_v2_op, float, double, int32_t,
                              int64_t, uint8_t, bool);
CAFLOW_REGISTER_TYPED_KERNELS("MirrorPad", device_cpu, "T", mirror_pad_op, float, double, int32_t,
                              int64_t, uint8_t, bool);
CAFLOW_REGISTER_TYPED_KERNELS("MirrorPadGrad", device_cpu, "T", mirror_pad_grad_op, float, double,
                              int32_t, int64_t);

}  // namespace caflow
