// ClipByValue: registration and shape function.
#include "graph/ir/op_def.hpp"
#include "graph/ir/shape_inference.hpp"

namespace caflow {
namespace {

// The output has t's shape; each bound is a scalar or has t's shape.
status clip_by_value_shape(shape_context& c) {
  partial_shape t = c.input(0);
  const char* names[] = {"", "clip_value_min", "clip_value_max"};
  for (int i = 1; i <= 2; ++i) {
    const partial_shape& b = c.input(i);
    if (b.rank_known() && b.rank() == 0) continue;
    auto merged = t.merge(b);
    if (!merged.ok())
      return c.error(names[i], " of shape ", b.to_string(),
                     " must be a scalar or have the shape of t ", t.to_string());
    // A bound of unknown rank may still be a scalar: it tells nothing about t.
    if (b.rank_known()) t = *merged;
  }
  c.set_output(0, t);
  return {};
}

}  // namespace

CAFLOW_REGISTER_OP("ClipByValue").input("t: T").input("clip_value_min: T")
    .input("clip_value_max: T").output("output: T")
    .attr("T: {float32, float64, int32, int64, uint8}").cheap()
    .set_shape_fn(clip_by_value_shape);

}  // namespace caflow
