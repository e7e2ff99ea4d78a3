// Einsum: registration and shape function.
#include "graph/ir/op_def.hpp"
#include "graph/ir/shape_inference.hpp"
#include "graph/util/einsum_equation.hpp"

namespace caflow {
namespace {

// The equation is checked at graph construction; with every input's rank known, so are the
// sizes each label takes, and the output's dims follow.
status einsum_shape(shape_context& c) {
  std::string text;
  CAFLOW_RETURN_IF_ERROR(c.get_attr("equation", &text));
  auto eq = einsum::parse(text, c.num_inputs());
  if (!eq.ok()) return c.error(eq.get_status().message());
  std::vector<std::vector<int64_t>> dims;
  for (int i = 0; i < c.num_inputs(); ++i) {
    if (!c.input(i).rank_known()) {
      c.set_output(0, partial_shape::unknown());
      return {};
    }
    dims.push_back(c.input(i).dim_vector());
  }
  auto p = einsum::resolve(*eq, dims);
  if (!p.ok()) return c.error(p.get_status().message());
  const std::vector<int64_t> out = p->output_dims();
  c.set_output(0, partial_shape(std::span<const int64_t>(out)));
  return {};
}

}  // namespace

CAFLOW_REGISTER_OP("Einsum").input("inputs: N * T").output("output: T")
    .attr("equation: string").attr("N: int >= 1").attr("T: {float32, float64, int32, int64}")
    .set_shape_fn(einsum_shape);

}  // namespace caflow
