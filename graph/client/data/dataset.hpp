#pragma once
// An in-memory labelled dataset (examples along dimension 0 of `images` and `labels`) and the
// batches a training loop feeds to its placeholders:
//
//   auto train = data::load_fashion_mnist(data::fashion_mnist_split::train);
//   auto mine = train->shard(worker_index, num_workers);        // this worker's examples
//   auto it = mine->batches(64, {.shuffle = true, .seed = 7});
//   for (int step = 0; step < steps; ++step) {
//     auto b = it->next();                                       // images [64,28,28,1], labels [64]
//     sess.run({{x, b.images}, {y, b.labels}}, {loss}, {train_op});
//   }
//
// Views share bytes: shard, take and batches of an unshuffled order are zero-copy slices;
// shuffling copies rows. Shuffles are deterministic for a seed on every platform (their own
// generator, not the standard library's distributions).
#include <cstdint>
#include <vector>

#include "graph/core/tensor.hpp"

namespace caflow::data {

struct batch_options {
  // Drop each epoch's last batch when it is smaller than the batch size.
  bool drop_remainder = false;
  // A fresh order every epoch, drawn from `seed` and the epoch number.
  bool shuffle = false;
  uint64_t seed = 0;
};

struct batch {
  tensor images;  // [B, ...] rows of the dataset's images
  tensor labels;  // [B]
  int64_t epoch = 0;  // 0 for the first pass over the data
};

class batch_iterator;

class dataset {
 public:
  // REQUIRES of the tensors (errors otherwise): images of rank >= 1, labels of rank 1, the
  // same number of examples in both.
  static status_or<dataset> make(tensor images, tensor labels);

  int64_t size() const { return labels_.dim(0); }
  const tensor& images() const { return images_; }
  const tensor& labels() const { return labels_; }
  // Images as a matrix [N, features] (e.g. [N, 784] for 28x28x1), sharing the bytes.
  tensor flat_images() const;

  // Worker `index` of `count`: a contiguous block of examples, [index * N / count,
  // (index + 1) * N / count), so shard sizes differ by one at most and every example is in
  // exactly one shard. Contiguous (not strided) so a shard is a zero-copy slice; shuffle
  // before sharding when the stored order is not already mixed.
  status_or<dataset> shard(int64_t index, int64_t count) const;
  // The first n examples (all of them when n >= size()), sharing the bytes.
  status_or<dataset> take(int64_t n) const;
  // The examples in an order drawn from `seed`, copied.
  dataset shuffled(uint64_t seed) const;
  // An endless iterator over batches of `batch_size`, epoch after epoch.
  status_or<batch_iterator> batches(int64_t batch_size, const batch_options& opts = {}) const;

 private:
  dataset(tensor images, tensor labels) : images_(std::move(images)), labels_(std::move(labels)) {}
  tensor images_, labels_;
};

class batch_iterator {
 public:
  // The next batch; after an epoch's last batch, the first of the next epoch.
  batch next();
  // Passes over the whole dataset delivered so far: 1 once the first epoch's last batch has
  // been returned.
  int64_t epochs_completed() const { return completed_; }
  int64_t batches_per_epoch() const;
  int64_t batch_size() const { return batch_size_; }

 private:
  friend class dataset;
  batch_iterator(dataset data, int64_t batch_size, const batch_options& opts);
  void start_epoch();

  dataset data_;
  int64_t batch_size_;
  batch_options opts_;
  int64_t epoch_ = 0;             // the epoch being delivered
  int64_t completed_ = 0;
  int64_t next_ = 0;             // the next example of this epoch
  std::vector<int64_t> order_;  // this epoch's order when shuffling
};

// A permutation of 0 .. n-1 drawn from `seed` (Fisher-Yates on a splitmix64 stream): the same
// on every platform.
std::vector<int64_t> random_permutation(int64_t n, uint64_t seed);
// Rows `indices` of t (along dimension 0), copied into a new tensor.
tensor gather_rows(const tensor& t, const int64_t* indices, int64_t count);

}  // namespace caflow::data
