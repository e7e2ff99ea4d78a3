#pragma once
// A model's training and test sets as the trainer uses them: inputs along dimension 0 of a
// dataset's images() (images, or a click-through model's feature ids) and int32 labels.
#include <string>
#include <vector>

#include "graph/client/data/dataset.hpp"

namespace caflow::train_app {

struct train_data {
  data::dataset train, test;
  std::string description;  // printed when training starts: what the sets are, where from
  // The AUC the true model reaches on the test set, where the data comes from a known
  // (planted) model; -1 otherwise.
  double reference_auc = -1;

  // Worker `index` of `count` trains on the index-th contiguous slice (zero-copy). Every
  // shard has the same size (the remainder of the division is left out) so that synchronous
  // replicas take the same number of steps.
  data::dataset train_shard(int index, int count) const;
  // Worker `worker` of `workers`, with `towers` towers: one shard per tower, each its own
  // slice of the worker's share (every tower of every worker sees different examples).
  std::vector<data::dataset> worker_shards(int worker, int workers, int towers) const;
};

// Fashion-MNIST from the gzip IDX files of `dir`; a limit > 0 keeps the first that many
// examples.
status_or<train_data> load_fashion_mnist(const std::string& dir, int64_t train_limit,
                                         int64_t test_limit);

}  // namespace caflow::train_app
