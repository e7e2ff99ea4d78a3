#pragma once
// Checkpoints of variables, as tf.train.Saver with sharding: the variables are grouped by the
// device that holds them and each group is written by a SaveV2 on that device, so every ps
// task writes (and later reads) its own file. The client then writes the index that makes
// the checkpoint complete, and removes old ones. File layout: graph/ir/checkpoint_file.hpp.
//
//   train::saver saver(root, vars, {.keep_last = 3});
//   session sess(root);
//   ... sess.run_targets({init}); train ...
//   saver.save(sess, "/tmp/run", step);
//   auto restored = saver.restore_latest(sess, "/tmp/run");   // later, in a new process
//
// The checkpoint directory must be the same path for the client and for every task that
// holds variables (one machine, or a shared file system).
//
// Partitioned variables (partitioned_variable.hpp) are saved as tf.train.Saver saves them:
// pass their shards like any variables (vars.add(emb.shards)); each shard, recognized by its
// "_save_slice_info" attr, is written by its own ps task under the FULL variable's name with
// its slice ("emb" as "10 4 0,4:-"). Restoring reads, on each shard's device, exactly that
// shard's rows from whichever files hold them, so a checkpoint restores into another number
// of shards or ps tasks, into one unpartitioned variable, and back, when the full shapes and
// dtypes match. Otherwise the restore fails naming the variable and both shapes, and no
// variable is changed: every Assign waits for every RestoreV2 to succeed.
#include <cstdint>
#include <string>
#include <vector>

#include "graph/client/scope.hpp"
#include "graph/client/step_runner.hpp"
#include "graph/client/train/variables.hpp"

namespace caflow::train {

struct saver_options {
  int keep_last = 5;  // complete checkpoints kept; older ones are deleted by save()
};

struct restore_result {
  int64_t step = 0;
  std::string index_file;  // the checkpoint restored
  // Newer checkpoints that could not be restored (corrupt, truncated, missing shards), newest
  // first; each message names the file at fault.
  std::vector<status> skipped;
};

class saver {
 public:
  // Adds the save and restore nodes under `s`'s name scope "save" (ops on the variables'
  // devices, nothing on `s`'s device function). Errors, e.g. an empty `vars`, are kept in the
  // scope, as ops:: functions do.
  saver(const scope& s, const variable_set& vars, const saver_options& opts = {});

  // Writes checkpoint `step` into `dir` (created when missing): the shards, then the index.
  // Then deletes all but the newest `keep_last` checkpoints up to `step`, and every checkpoint
  // newer than `step` (left by a run that was resumed from an older one, which supersedes it).
  // Returns the index file's path.
  status_or<std::string> save(step_runner& sess, const std::string& dir, int64_t step) const;

  // Restores the newest checkpoint in `dir` that restores without error, trying older ones
  // when one fails. The variables need not be initialized: restoring initializes them. The
  // checkpoint may have been written by another placement (other shard counts, other tasks).
  // Errors: not_found when `dir` holds no complete checkpoint; data_loss, listing every
  // failure, when none of them restores.
  status_or<restore_result> restore_latest(step_runner& sess, const std::string& dir) const;

  // Restores every variable from the checkpoint at `prefix`, by name: a TensorFlow bundle
  // (prefix.index and its data, as tf.train.Saver writes them; graph/tf/tensor_bundle.hpp) or one
  // of caflow's checkpoint files. All variables or none: a missing name, another dtype or a
  // corrupt file fails before any Assign runs.
  status restore(step_runner& sess, const std::string& prefix) const;

  // What save() would write, read into this process: each variable's value under the name and
  // slice ("" for a whole tensor) it is saved as. For writers of other formats
  // (apps/train/tf_checkpoint.hpp writes TensorFlow's).
  struct entry {
    std::string name;
    std::string slice;
    tensor value;
  };
  status_or<std::vector<entry>> entries(step_runner& sess) const;

  // Steps of the complete checkpoints (index file present) in `dir`, newest first.
  static std::vector<int64_t> checkpoint_steps(const std::string& dir);

  int num_shards() const { return static_cast<int>(shards_.size()); }

 private:
  struct shard {
    std::string device;
    output prefix;   // uint8 placeholder: the shard file's path
    output pattern;  // uint8 placeholder: the glob of every shard file of the checkpoint
    operation save;
    std::vector<std::string> names, slices;  // how each of `values` is saved
    std::vector<output> values;
  };
  std::vector<std::pair<output, tensor>> prefix_feeds(const std::string& dir, int64_t step) const;
  std::vector<std::pair<output, tensor>> pattern_feeds(const std::string& dir, int64_t step,
                                                       int saved_shards) const;
  status prune(const std::string& dir, int64_t step) const;

  saver_options opts_;
  std::vector<shard> shards_;
  operation restore_;  // runs every shard's RestoreV2, then (only if all succeed) the Assigns
};

}  // namespace caflow::train
