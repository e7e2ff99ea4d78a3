#pragma once
// The training step counter, as tf.train.create_global_step makes it: an int64 variable named
// "global_step", initialized to 0 and not trainable. Give it to an optimizer's apply_gradients
// or minimize and every training step increments it once, after the variables' updates.
//
//   train::variable step = train::create_global_step(root);
//   auto train_op = opt.minimize(root, loss, step, vars.trainable());
#include "graph/client/train/variables.hpp"

namespace caflow::train {

// Fails (in the scope) when `s`'s name scope already has a node named "global_step".
variable create_global_step(const scope& s);

}  // namespace caflow::train
