// PadV2, MirrorPad and MirrorPadGrad: client functions (registered in
// graph/ops/padding_ops.cpp).
#include "graph/client/ops/padding_ops.hpp"

#include "graph/client/node_builder.hpp"
#include "graph/client/ops/array_op_util.hpp"

namespace caflow {
namespace ops {

output pad_v2(const scope& s, const output& input, const output& paddings,
              const output& constant_values) {
  return node_builder(s, "PadV2").input(input).input(paddings).input(constant_values).finalize()
      .out();
}

output mirror_pad(const scope& s, const output& input, const output& paddings,
                  const std::string& mode) {
  return node_builder(s, "MirrorPad").input(input).input(paddings).attr("mode", mode).finalize()
      .out();
}

output mirror_pad(const scope& s, const output& input,
                  const std::vector<std::array<int64_t, 2>>& paddings, const std::string& mode) {
  std::vector<int64_t> flat;
  for (const auto& p : paddings) flat.insert(flat.end(), p.begin(), p.end());
  return mirror_pad(s, input,
                    array_op_util::index_constant(
                        s, flat, tensor_shape{static_cast<int64_t>(paddings.size()), 2}),
                    mode);
}

output mirror_pad_grad(const scope& s, const output& input, const output& paddings,
                       const std::string& mode) {
  return node_builder(s, "MirrorPadGrad").input(input).input(paddings).attr("mode", mode)
      .finalize().out();
}

}  // namespace ops
}  // namespace caflow
