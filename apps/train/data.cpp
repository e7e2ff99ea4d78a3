#include "apps/train/data.hpp"

#include "graph/client/data/fashion_mnist.hpp"

namespace caflow::train_app {
namespace {

status_or<data::dataset> load_split(data::fashion_mnist_split split, const std::string& dir,
                                    int64_t limit) {
  CAFLOW_ASSIGN_OR_RETURN(data::dataset all, data::load_fashion_mnist(split, dir));
  if (limit <= 0) return all;
  return all.take(limit);
}

}  // namespace

status_or<train_data> load_fashion_mnist(const std::string& dir, int64_t train_limit,
                                         int64_t test_limit) {
  CAFLOW_ASSIGN_OR_RETURN(auto train, load_split(data::fashion_mnist_split::train, dir, train_limit));
  CAFLOW_ASSIGN_OR_RETURN(auto test, load_split(data::fashion_mnist_split::test, dir, test_limit));
  std::string description = std::to_string(train.size()) + " training and " +
                            std::to_string(test.size()) + " test images from " + dir;
  return train_data{std::move(train), std::move(test), std::move(description)};
}

data::dataset train_data::train_shard(int index, int count) const {
  // REQUIRES 0 <= index < count, which every caller guarantees: take and shard cannot fail.
  const int64_t even = train.size() - train.size() % count;
  return *train.take(even)->shard(index, count);
}

std::vector<data::dataset> train_data::worker_shards(int worker, int workers, int towers) const {
  std::vector<data::dataset> out;
  for (int t = 0; t < towers; ++t) out.push_back(train_shard(worker * towers + t, workers * towers));
  return out;
}

}  // namespace caflow::train_app
