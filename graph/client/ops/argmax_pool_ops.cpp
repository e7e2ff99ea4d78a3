// MaxPoolWithArgmax, MaxPoolGradWithArgmax and MaxPoolGradGradWithArgmax: client functions
// (registered in graph/ops/argmax_pool_ops.cpp).
#include "graph/client/ops/argmax_pool_ops.hpp"

#include "graph/client/node_builder.hpp"

namespace caflow {
namespace ops {
namespace {

node_builder& with_attrs(node_builder& b, const argmax_pool_attrs& a) {
  return b.attr("ksize", a.ksize)
      .attr("strides", a.strides)
      .attr("padding", a.padding)
      .attr("include_batch_in_index", a.include_batch_in_index);
}

}  // namespace

std::vector<output> max_pool_with_argmax(const scope& s, const output& input,
                                         const argmax_pool_attrs& attrs) {
  node_builder b(s, "MaxPoolWithArgmax");
  b.input(input).attr("Targmax", attrs.targmax);
  const operation op = with_attrs(b, attrs).finalize();
  return {op.out(0), op.out(1)};
}

output max_pool_grad_with_argmax(const scope& s, const output& input, const output& grad,
                                 const output& argmax, const argmax_pool_attrs& attrs) {
  node_builder b(s, "MaxPoolGradWithArgmax");
  b.input(input).input(grad).input(argmax);
  return with_attrs(b, attrs).finalize().out();
}

output max_pool_grad_grad_with_argmax(const scope& s, const output& input, const output& grad,
                                      const output& argmax, const argmax_pool_attrs& attrs) {
  node_builder b(s, "MaxPoolGradGradWithArgmax");
  b.input(input).input(grad).input(argmax);
  return with_attrs(b, attrs).finalize().out();
}

}  // namespace ops
}  // namespace caflow
