#pragma once
// TensorFlow's checkpoint files for a caflow run (caflow-train --checkpoint-format tf): the
// saver's variables as a tensor bundle `dir/model.ckpt-<step>` (graph/tf/tensor_bundle.hpp) and
// the `checkpoint` state file beside it, so tf.train.latest_checkpoint(dir) finds it and
// tf.train.Saver restores it. A partitioned variable is written as tf.train.Saver writes one:
// each shard a slice of the full variable, under its full name (bundle_writer::add_slice), so
// TensorFlow restores it into any partitioning, or whole.
// Written by the client from the values it fetches, beside caflow's own checkpoint (which
// recovery keeps using); bundles of checkpoints the saver pruned are deleted with them.
#include <string>

#include "actors/session/session.hpp"
#include "graph/client/train/saver.hpp"

namespace caflow::train_app {

// Returns the bundle's prefix.
status_or<std::string> write_tf_checkpoint(session& sess, const train::saver& saver,
                                           const std::string& dir, int64_t step);

}  // namespace caflow::train_app
