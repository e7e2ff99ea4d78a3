// Einsum's gradient, itself an einsum, as TF's: for z = einsum("x,y->z"), dx sums the product
// of dz and y over every label x lacks: einsum("z,y->x'"), where x' is x's labels without
// those only x has. Those x summed on its own; its gradient is dx' broadcast back along them
// (reshaped with 1s there and multiplied by ones shaped like x). One input: einsum("z->x'").
//
// Not supported (an error naming the node): an input with a repeated label (a diagonal) or
// with "...".
#include <algorithm>

#include "graph/client/gradients/grad_util.hpp"
#include "graph/client/ops/math_einsum_ops.hpp"
#include "graph/client/ops/math_ops.hpp"
#include "graph/client/ops/shape_ops.hpp"
#include "graph/util/einsum_equation.hpp"

namespace caflow {
namespace {

using grad_list = std::vector<output>;

bool has(const std::string& term, char c) { return term.find(c) != std::string::npos; }

// The gradient of input `which` (its term `x`) given the other terms.
output input_grad(const scope& s, const std::string& x, const std::string& out,
                  const std::vector<std::string>& others, const output& dz,
                  const std::vector<output>& other_inputs, const output& x_value) {
  std::string kept;
  std::vector<int64_t> keep_mask;
  for (char c : x) {
    const bool used = has(out, c) || std::any_of(others.begin(), others.end(),
                                                  [&](const std::string& t) { return has(t, c); });
    keep_mask.push_back(used ? 1 : 0);
    if (used) kept += c;
  }
  std::string eq = out;
  std::vector<output> args = {dz};
  for (size_t i = 0; i < others.size(); ++i) {
    eq += "," + others[i];
    args.push_back(other_inputs[i]);
  }
  const output g = ops::einsum(s, args, eq + "->" + kept);
  if (kept.size() == x.size()) return g;
  // x's shape with 1 at the labels only x has, then broadcast by ones shaped like x.
  const partial_shape xs = s.shape_of(x_value);
  output target;
  if (xs.fully_defined()) {
    std::vector<int64_t> d = xs.dim_vector();
    for (size_t i = 0; i < d.size(); ++i)
      if (keep_mask[i] == 0) d[i] = 1;
    target = grad::index_vector(s, d, dtype::int32);
  } else {
    std::vector<int64_t> ones_at(keep_mask.size());
    for (size_t i = 0; i < ones_at.size(); ++i) ones_at[i] = 1 - keep_mask[i];
    target = ops::add(s, ops::mul(s, ops::shape(s, x_value), grad::index_vector(s, keep_mask, dtype::int32)),
                      grad::index_vector(s, ones_at, dtype::int32));
  }
  return ops::mul(s, ops::reshape(s, g, target), ops::ones_like(s, x_value));
}

status einsum_grad(const scope& s, const grad_op_info& op, const grad_list& dz, grad_list* dx) {
  std::string text;
  CAFLOW_RETURN_IF_ERROR(op.get_attr("equation", &text));
  CAFLOW_ASSIGN_OR_RETURN(const einsum::equation eq,
                          einsum::parse(text, static_cast<int>(op.inputs.size())));
  for (const std::string& t : eq.inputs) {
    for (size_t i = 0; i < t.size(); ++i) {
      if (t[i] == einsum::ellipsis)
        return errors::unimplemented(describe_node(op.def), ": the gradient of Einsum '", text,
                                     "' is not implemented for equations with '...'");
      if (t.find(t[i], i + 1) != std::string::npos)
        return errors::unimplemented(describe_node(op.def), ": the gradient of Einsum '", text,
                                     "' is not implemented for a label repeated within an "
                                     "input ('", std::string(1, t[i]), "')");
    }
  }
  if (op.inputs.size() == 1) {
    *dx = {input_grad(s, eq.inputs[0], eq.output, {}, dz[0], {}, op.inputs[0])};
    return {};
  }
  *dx = {input_grad(s, eq.inputs[0], eq.output, {eq.inputs[1]}, dz[0], {op.inputs[1]},
                    op.inputs[0]),
         input_grad(s, eq.inputs[1], eq.output, {eq.inputs[0]}, dz[0], {op.inputs[0]},
                    op.inputs[1])};
  return {};
}

}  // namespace

CAFLOW_REGISTER_GRADIENT("Einsum", einsum_grad);

}  // namespace caflow
