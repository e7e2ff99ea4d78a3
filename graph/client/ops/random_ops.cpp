#include "graph/client/ops/random_ops.hpp"

#include "graph/client/node_builder.hpp"
#include "graph/client/ops/base_ops.hpp"

namespace caflow {
namespace ops {
namespace {

output random_node(const scope& s, const char* op, const output& shape, dtype type,
                   const random_attrs& attrs) {
  return node_builder(s, op).input(shape).attr("dtype", type).attr("seed", attrs.seed)
      .attr("seed2", attrs.seed2).finalize().out();
}

// A Const named like any other in the current name scope, so the name requested for the
// random node (with_op_name) goes to the random node.
output shape_constant(const scope& s, const std::vector<int64_t>& shape) {
  return constant(s.new_sub_scope(""), tensor::from_vector<int64_t>(shape));
}

}  // namespace

output random_uniform(const scope& s, const output& shape, dtype type, const random_attrs& attrs) {
  return random_node(s, "RandomUniform", shape, type, attrs);
}
output random_uniform(const scope& s, const std::vector<int64_t>& shape, dtype type,
                      const random_attrs& attrs) {
  return random_uniform(s, shape_constant(s, shape), type, attrs);
}

output random_standard_normal(const scope& s, const output& shape, dtype type,
                              const random_attrs& attrs) {
  return random_node(s, "RandomStandardNormal", shape, type, attrs);
}
output random_standard_normal(const scope& s, const std::vector<int64_t>& shape, dtype type,
                              const random_attrs& attrs) {
  return random_standard_normal(s, shape_constant(s, shape), type, attrs);
}

output truncated_normal(const scope& s, const output& shape, dtype type,
                        const random_attrs& attrs) {
  return random_node(s, "TruncatedNormal", shape, type, attrs);
}
output truncated_normal(const scope& s, const std::vector<int64_t>& shape, dtype type,
                        const random_attrs& attrs) {
  return truncated_normal(s, shape_constant(s, shape), type, attrs);
}

}  // namespace ops
}  // namespace caflow
