// GatherV2: output = params[:axis] + indices.shape[batch_dims:] + params[axis+1:], one slice
// of params per index. With batch_dims b, the first b dims of params and indices are paired
// rather than crossed: batch element t gathers from params[t] with indices[t]. Every index is
// checked before any byte moves.
#include "graph/util/array_index_util.hpp"
#include "kernels/cpu/array_kernel_util.hpp"
#include "kernels/framework/kernel_registry.hpp"

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
  std::string s = format_dims(pos);
  return errors::concat("indices", s, " = ", value);
}

// Copies params rows [batch, outer, n, inner] picked by `idx` [batch, count] into out
// [batch, outer, count, inner]. Unit u of the work is output row u = (t, o, i): params row
// (t * outer + o) * n + idx[t * count + i].
template <class Index, class Copy>
void for_each_row(const kernel_context& ctx, const Index* idx, int64_t batch, int64_t outer,
                  int64_t n, int64_t count, int64_t row_bytes, const Copy& copy) {
  parallel_for(ctx, batch * outer * count, row_bytes, [&](int64_t begin, int64_t end) {
    int64_t to = begin / count, i = begin % count;  // to = t * outer + o
    const Index* batch_idx = idx + (to / outer) * count;
    for (int64_t u = begin; u < end; ++u) {
      copy(u, to * n + batch_idx[i]);
      if (++i == count) {
        i = 0;
        if (++to % outer == 0) batch_idx += count;
      }
    }
  });
}

struct gather_dims {
  int64_t batch = 1, outer = 1, n = 0, count = 1, inner = 1;
};

template <class Index>
void gather_rows(const kernel_context& ctx, const char* params, const Index* idx, char* out,
                 const gather_dims& g, size_t elem) {
  const int64_t row_bytes = g.inner * static_cast<int64_t>(elem);
  if (g.inner == 1) {
    // Single elements: a typed load and store beat a memcpy call per element.
    with_word(elem, [&]<class W>() {
      const W* p = reinterpret_cast<const W*>(params);
      W* o = reinterpret_cast<W*>(out);
      for_each_row(ctx, idx, g.batch, g.outer, g.n, g.count, row_bytes,
                   [&](int64_t u, int64_t row) { o[u] = p[row]; });
    });
    return;
  }
  for_each_row(ctx, idx, g.batch, g.outer, g.n, g.count, row_bytes, [&](int64_t u, int64_t row) {
    std::memcpy(out + u * row_bytes, params + row * row_bytes, row_bytes);
  });
}

template <class Index>
class gather_op final : public op_kernel {
 public:
  explicit gather_op(kernel_construction& c) : op_kernel(c) {
    CAFLOW_OP_REQUIRES_OK(c, c.get_attr("batch_dims", &batch_dims_));
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
    const int64_t r = indices.rank();
    CAFLOW_OP_REQUIRES(
        ctx, batch_dims_ >= -r && batch_dims_ <= r,
        errors::invalid_argument("batch_dims ", batch_dims_, " is out of range [", -r, ", ", r,
                                 "] for indices of shape ", indices.shape().to_string()));
    const int b = static_cast<int>(batch_dims_ < 0 ? batch_dims_ + r : batch_dims_);
    CAFLOW_OP_REQUIRES(
        ctx, axis >= b,
        errors::invalid_argument("axis ", axis, " must not be less than batch_dims ", b));
    for (int d = 0; d < b; ++d)
      CAFLOW_OP_REQUIRES(
          ctx, params.dim(d) == indices.dim(d),
          errors::invalid_argument("batch dimension ", d, " of params ", params.shape().to_string(),
                                   " and indices ", indices.shape().to_string(),
                                   " differ (batch_dims ", b, ")"));
    CAFLOW_OP_REQUIRES(
        ctx, params.rank() - 1 + indices.rank() - b <= max_rank,
        errors::invalid_argument("the result of gathering ", indices.shape().to_string(),
                                 " indices from ", params.shape().to_string(),
                                 " would exceed the maximum rank ", max_rank));

    gather_dims g;
    g.n = params.dim(axis);
    const int64_t total = indices.num_elements();
    const Index* idx = indices.data<Index>();
    for (int64_t k = 0; k < total; ++k)
      CAFLOW_OP_REQUIRES(ctx, idx[k] >= 0 && idx[k] < g.n,
                         errors::invalid_argument(
                             describe_index(indices.shape(), k, idx[k]), " is not in [0, ", g.n,
                             ") (params shape ", params.shape().to_string(), ", axis ", axis, ")"));

    tensor_shape out_shape;
    for (int d = 0; d < axis; ++d) {
      out_shape.add_dim(params.dim(d));
      (d < b ? g.batch : g.outer) *= params.dim(d);
    }
    for (int d = b; d < indices.rank(); ++d) {
      out_shape.add_dim(indices.dim(d));
      g.count *= indices.dim(d);
    }
    for (int d = axis + 1; d < params.rank(); ++d) {
      out_shape.add_dim(params.dim(d));
      g.inner *= params.dim(d);
    }
    tensor* out = ctx.allocate_output(0, out_shape);
    if (!out || out_shape.num_elements() == 0) return;
    gather_rows(ctx, static_cast<const char*>(params.raw_data()), idx,
                static_cast<char*>(out->raw_data()), g, dtype_size(params.type()));
  }

 private:
  int64_t batch_dims_ = 0;
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
