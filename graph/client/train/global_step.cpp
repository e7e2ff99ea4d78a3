#include "graph/client/train/global_step.hpp"

#include "graph/client/ops/base_ops.hpp"

namespace caflow::train {

variable create_global_step(const scope& s) {
  variable step = create_variable(
      s, "global_step", tensor_shape{}, dtype::int64,
      [](const scope& is, const tensor_shape&, dtype) {
        return ops::constant(is.with_op_name("zeros"), tensor::scalar<int64_t>(0));
      },
      {.trainable = false});
  if (step.valid() && detail::local_name(step.name(), "global_step") != "global_step") {
    s.update_status(errors::already_exists("create_global_step: a global step already exists; '",
                                           step.name(), "' would be a second one"));
    return {};
  }
  return step;
}

}  // namespace caflow::train
