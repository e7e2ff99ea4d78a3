#pragma once
// The Fashion-MNIST training and test sets as the trainer uses them.
#include <string>

#include "graph/client/data/dataset.hpp"

namespace caflow::train_app {

struct fashion_mnist {
  data::dataset train, test;

  // Reads the gzip IDX files of `dir`; a limit > 0 keeps the first that many examples.
  static status_or<fashion_mnist> load(const std::string& dir, int64_t train_limit,
                                       int64_t test_limit);
  // Worker `index` of `count` trains on the index-th contiguous slice (zero-copy). Every
  // shard has the same size (the remainder of the division is left out) so that synchronous
  // replicas take the same number of steps.
  data::dataset train_shard(int index, int count) const;
};

}  // namespace caflow::train_app
