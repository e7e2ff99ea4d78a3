// BatchMatMul and BatchMatMulV2: registrations and shape functions.
#include "graph/ir/op_def.hpp"
#include "graph/ir/shape_inference.hpp"

namespace caflow {
namespace {

// The leading rank - 2 dims of a shape of known rank >= 2.
partial_shape batch_part(const partial_shape& s) {
  std::vector<int64_t> d = s.dim_vector();
  d.resize(d.size() - 2);
  return partial_shape(std::span<const int64_t>(d));
}

template <bool Broadcast>
status batch_matmul_shape(shape_context& c) {
  CAFLOW_RETURN_IF_ERROR(c.require_rank_at_least(0, 2));
  CAFLOW_RETURN_IF_ERROR(c.require_rank_at_least(1, 2));
  const partial_shape &x = c.input(0), &y = c.input(1);
  if (!x.rank_known() || !y.rank_known()) {
    c.set_output(0, partial_shape::unknown());
    return {};
  }
  bool adj_x = false, adj_y = false;
  CAFLOW_RETURN_IF_ERROR(c.get_attr("adj_x", &adj_x));
  CAFLOW_RETURN_IF_ERROR(c.get_attr("adj_y", &adj_y));
  const int xr = x.rank(), yr = y.rank();
  const int64_t m = x.dim(adj_x ? xr - 1 : xr - 2), kx = x.dim(adj_x ? xr - 2 : xr - 1);
  const int64_t ky = y.dim(adj_y ? yr - 1 : yr - 2), n = y.dim(adj_y ? yr - 2 : yr - 1);
  if (kx >= 0 && ky >= 0 && kx != ky)
    return c.error("matrix size-incompatible: x ", x.to_string(), " and y ", y.to_string(),
                   " (adj_x=", adj_x, ", adj_y=", adj_y, ") contract ", kx, " with ", ky);
  partial_shape batch;
  if constexpr (Broadcast) {
    auto b = broadcast_shapes(batch_part(x), batch_part(y));
    if (!b.ok())
      return c.error("batch dimensions of x ", x.to_string(), " and y ", y.to_string(),
                     " cannot broadcast");
    batch = *b;
  } else {
    auto b = batch_part(x).merge(batch_part(y));
    if (xr != yr || !b.ok())
      return c.error("x ", x.to_string(), " and y ", y.to_string(),
                     " must have the same batch dimensions (BatchMatMulV2 broadcasts them)");
    batch = *b;
  }
  std::vector<int64_t> out = batch.dim_vector();
  out.push_back(m);
  out.push_back(n);
  c.set_output(0, partial_shape(std::span<const int64_t>(out)));
  return {};
}

}  // namespace

CAFLOW_REGISTER_OP("BatchMatMulV2").input("x: T").input("y: T").output("output: T")
    .attr("T: {float32, float64, int32, int64}").attr("adj_x: bool = false")
    .attr("adj_y: bool = false").set_shape_fn(batch_matmul_shape<true>);
CAFLOW_REGISTER_OP("BatchMatMul").input("x: T").input("y: T").output("output: T")
    .attr("T: {float32, float64, int32, int64}").attr("adj_x: bool = false")
    .attr("adj_y: bool = false").set_shape_fn(batch_matmul_shape<false>);

}  // namespace caflow
