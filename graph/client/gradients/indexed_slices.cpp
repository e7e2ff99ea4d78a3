#include "graph/client/gradients/indexed_slices.hpp"

#include <iostream>

#include "graph/client/gradients/grad_util.hpp"
#include "graph/client/ops/array_ops.hpp"
#include "graph/client/ops/base_ops.hpp"
#include "graph/client/ops/math_ops.hpp"
#include "graph/client/ops/shape_ops.hpp"
#include "graph/util/array_index_util.hpp"

namespace caflow {

void log_to_clog(std::string_view message) { std::clog << "caflow: warning: " << message << '\n'; }

namespace grad {
namespace {

// dense_shape[0] as a scalar of the shape's dtype: a Const when the shape is one.
output rows_of(const scope& s, const output& dense_shape) {
  if (const std::optional<tensor> v = s.constant_value(dense_shape)) {
    const int64_t rows = index_values(*v).at(0);
    return dense_shape.type == dtype::int64 ? ops::constant(s, rows)
                                            : ops::constant(s, static_cast<int32_t>(rows));
  }
  return ops::reshape(s, ops::slice(s, dense_shape, {0}, {1}), std::vector<int64_t>{});
}

// A dense gradient as slices naming every row.
indexed_slices as_slices(const scope& s, const gradient_value& g, dtype index_type) {
  if (g.is_sparse()) return g.slices();
  const output shape = shape_of(s, g.dense(), index_type);
  const output rows = rows_of(s, shape);
  const output zero = index_type == dtype::int64 ? ops::constant(s, int64_t{0})
                                                 : ops::constant(s, int32_t{0});
  const output one = index_type == dtype::int64 ? ops::constant(s, int64_t{1})
                                                : ops::constant(s, int32_t{1});
  return {g.dense(), ops::range(s, zero, rows, one), shape};
}

output as_index_type(const scope& s, const output& x, dtype type) {
  return x.type == type ? x : ops::cast(s, x, type);
}

}  // namespace

output to_dense(const scope& s, const gradient_value& g) {
  if (!g.is_sparse()) return g.dense();
  const indexed_slices& x = g.slices();
  return ops::unsorted_segment_sum(s, x.values, x.indices, rows_of(s, x.dense_shape));
}

output to_dense(const scope& s, const gradient_value& g, std::string_view why,
                const dense_fallback_log& log) {
  if (g.is_sparse() && log) {
    std::string message = "converting the sparse gradient '";
    message.append(g.name()).append("' to a dense tensor: ").append(why);
    log(message);
  }
  return to_dense(s, g);
}

gradient_value aggregate(const scope& s, const std::vector<gradient_value>& grads, bool tree) {
  if (grads.size() == 1) return grads.front();
  bool any_sparse = false;
  // Indices of mixed widths are summed as int64, as TF concatenates them.
  dtype index_type = dtype::invalid;
  for (const gradient_value& g : grads) {
    if (!g.is_sparse()) continue;
    any_sparse = true;
    const dtype t = g.slices().indices.type;
    index_type = index_type == dtype::invalid || index_type == t ? t : dtype::int64;
  }
  if (!any_sparse) {
    std::vector<output> dense;
    for (const gradient_value& g : grads) dense.push_back(g.dense());
    if (!tree) return ops::add_n(s, dense);
    while (dense.size() > 1) {
      std::vector<output> next;
      for (size_t i = 0; i + 1 < dense.size(); i += 2)
        next.push_back(ops::add(s, dense[i], dense[i + 1]));
      if (dense.size() % 2 == 1) next.push_back(dense.back());
      dense = std::move(next);
    }
    return dense.front();
  }
  std::vector<output> values, indices;
  output dense_shape;
  for (const gradient_value& g : grads) {
    const indexed_slices x = as_slices(s, g, index_type);
    values.push_back(x.values);
    indices.push_back(as_index_type(s, x.indices, index_type));
    if (!dense_shape.valid() && g.is_sparse()) dense_shape = x.dense_shape;
  }
  return indexed_slices{ops::concat(s, values, 0), ops::concat(s, indices, 0), dense_shape};
}

gradient_value scale(const scope& s, const gradient_value& g, const output& factor) {
  if (!g.is_sparse()) return ops::mul(s, g.dense(), factor);
  const indexed_slices& x = g.slices();
  return indexed_slices{ops::mul(s, x.values, factor), x.indices, x.dense_shape};
}

indexed_slices deduplicate(const scope& s, const indexed_slices& g) {
  const std::vector<output> u = ops::unique(s, g.indices, g.indices.type);
  const output count = ops::size(s, u[0], {.out_type = g.indices.type});
  return {ops::unsorted_segment_sum(s, g.values, u[1], count), u[0], g.dense_shape};
}

}  // namespace grad
}  // namespace caflow
