#include "graph/client/ops/reduction_ops.hpp"

#include "graph/client/node_builder.hpp"
#include "graph/client/ops/base_ops.hpp"

namespace caflow {
namespace ops {
namespace {

output reduction(const char* op, const scope& s, const output& input, const output& axis,
                 const reduce_attrs& attrs) {
  return node_builder(s, op)
      .input(input)
      .input(axis)
      .attr("keep_dims", attrs.keep_dims)
      .finalize()
      .out();
}

// The axes Const must not take a name asked for with with_op_name: that is the reduction's.
output axes_const(const scope& s, const std::vector<int>& axes) {
  return constant(s.new_sub_scope(""),
                  tensor::from_vector<int32_t>(std::vector<int32_t>(axes.begin(), axes.end())));
}

output arg_reduction(const char* op, const scope& s, const output& input, const output& dimension,
                     const arg_max_attrs& attrs) {
  return node_builder(s, op)
      .input(input)
      .input(dimension)
      .attr("output_type", attrs.output_type)
      .finalize()
      .out();
}

}  // namespace

#define CAFLOW_DEFINE_REDUCTION(fn, op)                                                           \
  output fn(const scope& s, const output& input, const output& axis, const reduce_attrs& attrs) { \
    return reduction(op, s, input, axis, attrs);                                                  \
  }                                                                                               \
  output fn(const scope& s, const output& input, const std::vector<int>& axis,                    \
            const reduce_attrs& attrs) {                                                          \
    return reduction(op, s, input, axes_const(s, axis), attrs);                                   \
  }                                                                                               \
  output fn(const scope& s, const output& input, std::initializer_list<int> axis,                 \
            const reduce_attrs& attrs) {                                                          \
    return reduction(op, s, input, axes_const(s, axis), attrs);                                   \
  }
CAFLOW_DEFINE_REDUCTION(sum, "Sum")
CAFLOW_DEFINE_REDUCTION(mean, "Mean")
CAFLOW_DEFINE_REDUCTION(max, "Max")
CAFLOW_DEFINE_REDUCTION(min, "Min")
CAFLOW_DEFINE_REDUCTION(prod, "Prod")
CAFLOW_DEFINE_REDUCTION(all, "All")
CAFLOW_DEFINE_REDUCTION(any, "Any")
#undef CAFLOW_DEFINE_REDUCTION

output arg_max(const scope& s, const output& input, const output& dimension,
               const arg_max_attrs& attrs) {
  return arg_reduction("ArgMax", s, input, dimension, attrs);
}

output arg_max(const scope& s, const output& input, int dimension, const arg_max_attrs& attrs) {
  return arg_reduction("ArgMax", s, input, constant(s.new_sub_scope(""), int32_t{dimension}),
                       attrs);
}

output arg_min(const scope& s, const output& input, const output& dimension,
               const arg_min_attrs& attrs) {
  return arg_reduction("ArgMin", s, input, dimension, attrs);
}

output arg_min(const scope& s, const output& input, int dimension, const arg_min_attrs& attrs) {
  return arg_reduction("ArgMin", s, input, constant(s.new_sub_scope(""), int32_t{dimension}),
                       attrs);
}

}  // namespace ops
}  // namespace caflow
