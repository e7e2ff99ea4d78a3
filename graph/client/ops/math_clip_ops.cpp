#include "graph/client/ops/math_clip_ops.hpp"

#include "graph/client/node_builder.hpp"

namespace caflow {
namespace ops {

output clip_by_value(const scope& s, const output& t, const output& clip_value_min,
                     const output& clip_value_max) {
  return node_builder(s, "ClipByValue").input(t).input(clip_value_min).input(clip_value_max)
      .finalize().out();
}

}  // namespace ops
}  // namespace caflow
