// Gradients of GatherNd, ScatterNd and SparseToDense (graph/client/ops/nd_index_ops.hpp), as
// TensorFlow's array_grad.py and sparse_grad.py define them: GatherNd and ScatterNd are each
// other's adjoints; SparseToDense's values get the gradient where they went, its default value
// the rest; indices and shapes get none.
#include "graph/client/gradients/grad_util.hpp"
#include "graph/client/ops/base_ops.hpp"
#include "graph/client/ops/math_ops.hpp"
#include "graph/client/ops/nd_index_ops.hpp"
#include "graph/client/ops/reduction_ops.hpp"
#include "graph/client/ops/shape_ops.hpp"

namespace caflow {
namespace {

using grad_list = std::vector<output>;

status gather_nd_grad(const scope& s, const grad_op_info& op, const grad_list& dy,
                      grad_list* dx) {
  const output& indices = op.inputs[1];
  *dx = {ops::scatter_nd(s, indices, dy[0], grad::shape_of(s, op.inputs[0], indices.type)),
         output{}};
  return {};
}

status scatter_nd_grad(const scope& s, const grad_op_info& op, const grad_list& dy,
                       grad_list* dx) {
  *dx = {output{}, ops::gather_nd(s, dy[0], op.inputs[0]), output{}};
  return {};
}

// The indices as [n, rank] tuples: a vector (a 1-D output) becomes a column, a scalar [1, 1].
status sparse_to_dense_grad(const scope& s, const grad_op_info& op, const grad_list& dy,
                            grad_list* dx) {
  const output &indices = op.inputs[0], &values = op.inputs[2];
  const partial_shape si = s.shape_of(indices);
  if (!si.rank_known())
    return errors::invalid_argument("the gradient of ", op.def.name,
                                    " (SparseToDense) needs the rank of sparse_indices");
  const output tuples = si.rank() == 2 ? indices : ops::reshape(s, indices, {-1, 1});
  output values_grad = ops::gather_nd(s, dy[0], tuples);
  const output all = ops::sum(s, dy[0], ops::range(s, ops::constant(s, int32_t{0}),
                                                     ops::rank(s, dy[0]),
                                                     ops::constant(s, int32_t{1})));
  const output default_grad =
      ops::sub(s, all, ops::sum(s, values_grad, {0}));
  // A scalar value went to every index: like a broadcast, its gradient is the sum.
  values_grad = grad::unbroadcast(s, values, values_grad).x_grad(values_grad);
  *dx = {output{}, output{}, values_grad, default_grad};
  return {};
}

}  // namespace

CAFLOW_REGISTER_GRADIENT("SparseToDense", sparse_to_dense_grad);
CAFLOW_REGISTER_GRADIENT("GatherNd", gather_nd_grad);
CAFLOW_REGISTER_GRADIENT("ScatterNd", scatter_nd_grad);

}  // namespace caflow
