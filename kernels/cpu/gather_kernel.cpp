// GatherV2: output = params[:axis] + indices.shape + params[axis+1:], one slice of params per
// index. Every index is checked before any byte moves.
#include "graph/ops/array_index_util.hpp"
#include "kernels/cpu/array_kernel_util.hpp"
#include "kernels/kernel_registry.hpp"

namespace caflow {
namespace {

using namespace array_kernels;

// "indices[1,2] = 7" for the k-th (flat) index.
std::string describe_index(const tensor_shape& shape, int64_t k, int64_t value) {
  if (shape.rank() == 0) return errors::concat("indices = ", value);
  std::vector<int64_t> pos(shape.rank());
  for (int d = shape.rank() - 1; d >= 0; --d) {
    pos[d] = k % shape.dim(d);
    k /= shape.dim(d);
  }
  std::string s = format_indices(pos);
  return errors::concat("indices", s, " = ", value);
}

// Copies params rows [outer, n, inner] picked by `idx` into out [outer, count, inner]. Unit u
// of the work is output row u = (o, i): params row o * n + idx[i].
template <class Index, class Copy>
void for_each_row(const kernel_context& ctx, const Index* idx, int64_t outer, int64_t n,
                  int64_t count, int64_t row_bytes, const Copy& copy) {
  parallel_for(ctx, outer * count, row_bytes, [&](int64_t begin, int64_t end) {
    int64_t o = begin / count, i = begin % count;
    for (int64_t u = begin; u < end; ++u) {
      copy(u, o * n + idx[i]);
      if (++i == count) {
        i = 0;
        ++o;
      }
    }
  });
}

template <class Index>
void gather_rows(const kernel_context& ctx, const char* params, const Index* idx, char* out,
                 int64_t outer, int64_t n, int64_t count, int64_t inner, size_t elem) {
  const int64_t row_bytes = inner * static_cast<int64_t>(elem);
  if (inner == 1) {
    // Single elements: a typed load and store beat a memcpy call per element.
    with_word(elem, [&]<class W>() {
      const W* p = reinterpret_cast<const W*>(params);
      W* o = reinterpret_cast<W*>(out);
      for_each_row(ctx, idx, outer, n, count, row_bytes,
                   [&](int64_t u, int64_t row) { o[u] = p[row]; });
    });
    return;
  }
  for_each_row(ctx, idx, outer, n, count, row_bytes, [&](int64_t u, int64_t row) {
    std::memcpy(out + u * row_bytes, params + row * row_bytes, row_bytes);
  });
}

template <class Index>
class gather_op final : public op_kernel {
 public:
  explicit gather_op(kernel_construction& c) : op_kernel(c) {
    int64_t batch_dims = 0;
    CAFLOW_OP_REQUIRES_OK(c, c.get_attr("batch_dims", &batch_dims));
    CAFLOW_OP_REQUIRES(c, batch_dims == 0,
                       errors::unimplemented("batch_dims = ", batch_dims,
                                             " is not supported; only batch_dims = 0 is"));
  }

  void compute(kernel_context& ctx) override {
    const tensor& params = ctx.input(0);
    const tensor& indices = ctx.input(1);
    const tensor& axis_t = ctx.input(2);
    CAFLOW_OP_REQUIRES(
        ctx, axis_t.rank() == 0,
        errors::invalid_argument("axis must be a scalar, got shape ", axis_t.shape().to_string()));
    CAFLOW_OP_REQUIRES(ctx, params.rank() >= 1,
                       errors::invalid_argument("params must have rank at least 1, got shape ",
                                                params.shape().to_string()));
    auto axis_or = canonical_axis(index_values(axis_t)[0], params.rank(), "axis");
    CAFLOW_OP_REQUIRES_OK(ctx, axis_or.get_status());
    const int axis = *axis_or;
    CAFLOW_OP_REQUIRES(
        ctx, params.rank() - 1 + indices.rank() <= max_rank,
        errors::invalid_argument("the result of gathering ", indices.shape().to_string(),
                                 " indices from ", params.shape().to_string(),
                                 " would exceed the maximum rank ", max_rank));

    const int64_t n = params.dim(axis);
    const int64_t count = indices.num_elements();
    const Index* idx = indices.data<Index>();
    for (int64_t k = 0; k < count; ++k)
      CAFLOW_OP_REQUIRES(ctx, idx[k] >= 0 && idx[k] < n,
                         errors::invalid_argument(
                             describe_index(indices.shape(), k, idx[k]), " is not in [0, ", n,
                             ") (params shape ", params.shape().to_string(), ", axis ", axis, ")"));

    tensor_shape out_shape;
    int64_t outer = 1, inner = 1;
    for (int d = 0; d < axis; ++d) {
      out_shape.add_dim(params.dim(d));
      outer *= params.dim(d);
    }
    for (int64_t d : indices.shape().dims()) out_shape.add_dim(d);
    for (int d = axis + 1; d < params.rank(); ++d) {
      out_shape.add_dim(params.dim(d));
      inner *= params.dim(d);
    }
    tensor* out = ctx.allocate_output(0, out_shape);
    if (!out || out_shape.num_elements() == 0) return;
    gather_rows(ctx, static_cast<const char*>(params.raw_data()), idx,
                static_cast<char*>(out->raw_data()), outer, n, count, inner,
                dtype_size(params.type()));
  }
};

}  // namespace

// The work depends on the element size and the index type: one kernel per index type,
// registered for every params dtype.
#define CAFLOW_REGISTER_GATHER(T)                                   \
  CAFLOW_REGISTER_KERNEL(kernel_def_builder("GatherV2")             \
                             .device(device_cpu)                    \
                             .type_constraint<T>("Tparams")         \
                             .type_constraint<int32_t>("Tindices"), \
                         gather_op<int32_t>);                       \
  CAFLOW_REGISTER_KERNEL(kernel_def_builder("GatherV2")             \
                             .device(device_cpu)                    \
                             .type_constraint<T>("Tparams")         \
                             .type_constraint<int64_t>("Tindices"), \
                         gather_op<int64_t>)

CAFLOW_REGISTER_GATHER(float);
CAFLOW_REGISTER_GATHER(double);
CAFLOW_REGISTER_GATHER(int32_t);
CAFLOW_REGISTER_GATHER(int64_t);
CAFLOW_REGISTER_GATHER(uint8_t);
CAFLOW_REGISTER_GATHER(bool);
#undef CAFLOW_REGISTER_GATHER

}  // namespace caflow
