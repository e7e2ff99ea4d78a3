// Einsum's gradient, itself an einsum, as TF's: for z = einsum("x,y->z"), dx sums the product
// of dz and y over every label x lacks: einsum("z,y->x'"), where x' is x's labels without
// those only x has. Those x summed on its own; its gradient is dx' broadcast back along them
// (reshaped with 1s there and multiplied by ones shaped like x). One input: einsum("z->x'").
// With "...", dx' has the batch dims of all inputs broadcast; it is summed over those x lacks
// or has as 1.
//
// Not supported (an error naming the node): an input with a repeated label (a diagonal), and
// "..." when an input's shape is not known at graph construction.
#include <algorithm>

#include "graph/client/gradients/grad_util.hpp"
#include "graph/client/ops/math_einsum_ops.hpp"
#include "graph/client/ops/math_ops.hpp"
#include "graph/client/ops/reduction_ops.hpp"
#include "graph/client/ops/shape_ops.hpp"
#include "graph/util/einsum_equation.hpp"

namespace caflow {
namespace {

using grad_list = std::vector<output>;

bool has(const std::string& term, char c) { return term.find(c) != std::string::npos; }

// The ellipsis dims of dz (and of einsum("z,y->x'")) are the broadcast of every input's; x's
// own may be fewer, or 1 where others are not. Which dims of einsum("z,y->x'") (with its
// ellipsis at `at` in x') must be summed to get x's: those x lacks or has as 1. Needs every
// input's shape at graph construction.
status_or<std::vector<int>> ellipsis_sum_axes(const scope& s, const einsum::equation& eq,
                                              const std::vector<output>& inputs, size_t which,
                                              size_t at) {
  std::vector<std::vector<int64_t>> dims;
  for (const output& in : inputs) {
    const partial_shape shape = s.shape_of(in);
    if (!shape.fully_defined())
      return errors::unimplemented("the gradient of an Einsum with '...' needs the inputs' "
                                   "shapes at graph construction; input ", dims.size(),
                                   " has shape ", shape.to_string());
    dims.push_back(shape.dim_vector());
  }
  CAFLOW_ASSIGN_OR_RETURN(const einsum::plan p, einsum::resolve(eq, dims));
  const std::string& term = eq.inputs[which];
  const int named = static_cast<int>(term.size()) - 1;
  const int own = static_cast<int>(dims[which].size()) - named;  // x's ellipsis dims
  int full = 0;                                                  // the broadcast ellipsis rank
  for (size_t i = 0; i < eq.inputs.size(); ++i)
    if (has(eq.inputs[i], einsum::ellipsis))
      full = std::max(full, static_cast<int>(dims[i].size() - eq.inputs[i].size() + 1));
  const size_t x_at = term.find(einsum::ellipsis);
  std::vector<int> axes;
  for (int j = 0; j < full; ++j) {
    const int mine = j - (full - own);  // x's ellipsis dim for broadcast dim j, if any
    const int64_t broadcast = p.label_size[p.num_labels - full + j];
    if (mine < 0 || (dims[which][x_at + mine] == 1 && broadcast != 1))
      axes.push_back(static_cast<int>(at) + j);
  }
  return axes;
}

// From einsum("z,y->x'") (summed over x's missing batch dims) to x's shape: reshaped with 1
// at the labels only x has, then broadcast by ones shaped like x.
output finish(const scope& s, const std::string& x, const std::vector<bool>& only_x, output g,
              const output& x_value, bool ellipsis) {
  const bool summed_alone = std::find(only_x.begin(), only_x.end(), true) != only_x.end();
  if (!summed_alone && !ellipsis) return g;
  // x's shape with 1 at the labels only x has (then broadcast by ones shaped like x).
  const partial_shape xs = s.shape_of(x_value);
  output target;
  if (xs.fully_defined()) {
    std::vector<int64_t> d = xs.dim_vector();
    for (size_t i = 0, dim = 0; i < x.size(); ++i) {
      if (x[i] == einsum::ellipsis) {
        dim += d.size() - (x.size() - 1);
        continue;
      }
      if (only_x[i]) d[dim] = 1;
      ++dim;
    }
    target = grad::index_vector(s, d, dtype::int32);
  } else {
    // No ellipsis here (it needs known shapes): one char per dim.
    std::vector<int64_t> keep, ones_at;
    for (bool alone : only_x) {
      keep.push_back(alone ? 0 : 1);
      ones_at.push_back(alone ? 1 : 0);
    }
    target = ops::add(s, ops::mul(s, ops::shape(s, x_value), grad::index_vector(s, keep, dtype::int32)),
                      grad::index_vector(s, ones_at, dtype::int32));
  }
  g = ops::reshape(s, g, target);
  return summed_alone ? ops::mul(s, g, ops::ones_like(s, x_value)) : g;
}

// The gradient of input `which` of the forward einsum.
status_or<output> input_grad(const scope& s, const einsum::equation& eq, size_t which,
                             const output& dz, const std::vector<output>& inputs) {
  const std::string& x = eq.inputs[which];
  const output& x_value = inputs[which];
  std::vector<std::string> others;
  std::vector<output> args = {dz};
  for (size_t i = 0; i < inputs.size(); ++i)
    if (i != which) {
      others.push_back(eq.inputs[i]);
      args.push_back(inputs[i]);
    }
  // x' keeps x's labels found in the output or another input, and x's ellipsis.
  std::string kept;
  std::vector<bool> only_x;  // per char of x
  for (char c : x) {
    const bool used = c == einsum::ellipsis || has(eq.output, c) ||
                      std::any_of(others.begin(), others.end(),
                                  [&](const std::string& t) { return has(t, c); });
    only_x.push_back(!used);
    if (used) kept += c;
  }
  auto dotted = [](std::string t) {
    if (const size_t e = t.find(einsum::ellipsis); e != std::string::npos) t.replace(e, 1, "...");
    return t;
  };
  std::string grad_eq = dotted(eq.output);
  for (const std::string& o : others) grad_eq += "," + dotted(o);
  const bool ellipsis = has(x, einsum::ellipsis);
  const bool others_ellipsis = has(eq.output, einsum::ellipsis);
  if (!ellipsis && others_ellipsis) {
    // x has no batch dims of its own: its gradient sums over all of them, which the einsum
    // leaves leading for one Sum.
    const int leading = static_cast<int>(s.shape_of(dz).rank()) -
                        static_cast<int>(eq.output.size() - 1);
    if (!s.shape_of(dz).rank_known() || leading < 0)
      return errors::unimplemented("the gradient of an Einsum with '...' needs the inputs' "
                                   "shapes at graph construction");
    output g = ops::einsum(s, args, grad_eq + "->..." + kept);
    std::vector<int> axes;
    for (int j = 0; j < leading; ++j) axes.push_back(j);
    if (!axes.empty()) g = ops::sum(s, g, axes);
    return finish(s, x, only_x, g, x_value, false);
  }
  output g = ops::einsum(s, args, grad_eq + "->" + dotted(kept));
  if (ellipsis) {
    CAFLOW_ASSIGN_OR_RETURN(const std::vector<int> axes,
                            ellipsis_sum_axes(s, eq, inputs, which, kept.find(einsum::ellipsis)));
    if (!axes.empty()) g = ops::sum(s, g, axes);
  }
  return finish(s, x, only_x, g, x_value, ellipsis);
}

status einsum_grad(const scope& s, const grad_op_info& op, const grad_list& dz, grad_list* dx) {
  std::string text;
  CAFLOW_RETURN_IF_ERROR(op.get_attr("equation", &text));
  CAFLOW_ASSIGN_OR_RETURN(const einsum::equation eq,
                          einsum::parse(text, static_cast<int>(op.inputs.size())));
  for (const std::string& t : eq.inputs)
    for (size_t i = 0; i < t.size(); ++i)
      if (t[i] != einsum::ellipsis && t.find(t[i], i + 1) != std::string::npos)
        return errors::unimplemented(describe_node(op.def), ": the gradient of Einsum '", text,
                                     "' is not implemented for a label repeated within an "
                                     "input ('", std::string(1, t[i]), "')");
  dx->clear();
  for (size_t which = 0; which < op.inputs.size(); ++which) {
    auto g = input_grad(s, eq, which, dz[0], op.inputs);
    if (!g.ok()) return g.get_status().with_context(describe_node(op.def));
    dx->push_back(*g);
  }
  return {};
}

}  // namespace

CAFLOW_REGISTER_GRADIENT("Einsum", einsum_grad);

}  // namespace caflow
