// data::dataset: sharding, take, seeded shuffles and batch iteration over epochs. Labels are
// 0, 1, 2, ... and image i holds 10 * i + k, so every check can tell which example it sees.
#include <doctest/doctest.h>

#include <algorithm>
#include <numeric>

#include "graph/client/data/dataset.hpp"
#include "test_util/kernel_fixture.hpp"

using namespace caflow;
using caflow::testing::check_error;
using caflow::testing::check_tensor;

namespace {

// n examples of 2x1 images: image i is {10 i, 10 i + 1}, label i is i.
data::dataset numbered(int64_t n) {
  std::vector<float> pixels;
  std::vector<int32_t> labels;
  for (int64_t i = 0; i < n; ++i) {
    pixels.push_back(float(10 * i));
    pixels.push_back(float(10 * i + 1));
    labels.push_back(int32_t(i));
  }
  auto d = data::dataset::make(tensor::from_vector<float>(pixels, {n, 2, 1}),
                               tensor::from_vector<int32_t>(labels, {n}));
  REQUIRE(d.ok());
  return *d;
}

std::vector<int32_t> labels_of(const tensor& t) { return t.to_vector<int32_t>(); }

// Every image row must be the one of the label beside it.
void check_rows_follow_labels(const tensor& images, const tensor& labels) {
  const auto l = labels.to_vector<int32_t>();
  const auto p = images.to_vector<float>();
  REQUIRE(p.size() == 2 * l.size());
  for (size_t i = 0; i < l.size(); ++i) {
    CHECK(p[2 * i] == float(10 * l[i]));
    CHECK(p[2 * i + 1] == float(10 * l[i] + 1));
  }
}

}  // namespace

TEST_CASE("dataset::make checks ranks and counts") {
  check_error(data::dataset::make(tensor::filled<float>({3, 2}, 0), tensor::filled<int32_t>({2}, 0)),
              "3 images (shape [3,2]) but 2 labels");
  check_error(data::dataset::make(tensor::filled<float>({3}, 0), tensor::filled<int32_t>({3, 1}, 0)),
              "labels must be a vector, got shape [3,1]");
  check_error(data::dataset::make(tensor::scalar(1.0f), tensor::filled<int32_t>({1}, 0)),
              "images must have an example dimension (rank >= 1), got shape []");
  check_error(data::dataset::make(tensor(), tensor::filled<int32_t>({1}, 0)), "initialized");
}

TEST_CASE("flat_images is a zero-copy [N, features] view") {
  auto d = numbered(3);
  const tensor flat = d.flat_images();
  CHECK(flat.shape() == tensor_shape{3, 2});
  CHECK(flat.shares_buffer_with(d.images()));
  check_tensor(flat, {3, 2}, std::vector<float>{0, 1, 10, 11, 20, 21});
}

TEST_CASE("shard: contiguous blocks whose sizes differ by one at most, sharing the bytes") {
  auto d = numbered(10);
  // Blocks [i * 10 / 3, (i + 1) * 10 / 3): [0,3), [3,6), [6,10).
  const std::vector<std::vector<int32_t>> expected{{0, 1, 2}, {3, 4, 5}, {6, 7, 8, 9}};
  for (int64_t i = 0; i < 3; ++i) {
    auto s = d.shard(i, 3);
    REQUIRE(s.ok());
    CHECK(labels_of(s->labels()) == expected[i]);
    check_rows_follow_labels(s->images(), s->labels());
    CHECK(s->images().shares_buffer_with(d.images()));
  }
  // More shards than examples: some are empty, none overlaps.
  CHECK(d.shard(0, 20)->size() == 0);
  CHECK(labels_of(d.shard(19, 20)->labels()) == std::vector<int32_t>{9});
  check_error(d.shard(3, 3), "shard index 3 is outside [0, 3)");
  check_error(d.shard(-1, 3), "shard index -1 is outside [0, 3)");
  check_error(d.shard(0, 0), "shard count must be positive, got 0");
}

TEST_CASE("take: the first n examples, all when n exceeds the size") {
  auto d = numbered(5);
  CHECK(labels_of(d.take(2)->labels()) == std::vector<int32_t>{0, 1});
  check_rows_follow_labels(d.take(2)->images(), d.take(2)->labels());
  CHECK(d.take(0)->size() == 0);
  CHECK(d.take(100)->size() == 5);
  check_error(d.take(-1), "cannot take -1 examples");
}

TEST_CASE("shuffled: a seeded permutation that keeps rows with their labels") {
  auto d = numbered(50);
  auto a = d.shuffled(42), b = d.shuffled(42), c = d.shuffled(43);
  CHECK(labels_of(a.labels()) == labels_of(b.labels()));
  CHECK(labels_of(a.labels()) != labels_of(c.labels()));
  CHECK(labels_of(a.labels()) != labels_of(d.labels()));
  auto sorted = labels_of(a.labels());
  std::sort(sorted.begin(), sorted.end());
  CHECK(sorted == labels_of(d.labels()));
  check_rows_follow_labels(a.images(), a.labels());
  CHECK_FALSE(a.images().shares_buffer_with(d.images()));
  // The original is untouched.
  CHECK(labels_of(d.take(3)->labels()) == std::vector<int32_t>{0, 1, 2});
}

TEST_CASE("random_permutation: every index once; trivial sizes") {
  CHECK(data::random_permutation(0, 1).empty());
  CHECK(data::random_permutation(1, 1) == std::vector<int64_t>{0});
  auto p = data::random_permutation(1000, 9);
  std::vector<int64_t> iota(1000);
  std::iota(iota.begin(), iota.end(), 0);
  CHECK(p != iota);
  std::sort(p.begin(), p.end());
  CHECK(p == iota);
}

TEST_CASE("batches in order: the last partial batch is kept, then the next epoch begins") {
  auto d = numbered(5);
  auto it = d.batches(2);
  REQUIRE(it.ok());
  CHECK(it->batches_per_epoch() == 3);
  const std::vector<std::vector<int32_t>> expected{{0, 1}, {2, 3}, {4}, {0, 1}};
  const std::vector<int64_t> epochs{0, 0, 0, 1}, completed{0, 0, 1, 1};
  for (size_t k = 0; k < expected.size(); ++k) {
    data::batch b = it->next();
    CHECK(labels_of(b.labels) == expected[k]);
    CHECK(b.epoch == epochs[k]);
    CHECK(it->epochs_completed() == completed[k]);
    check_rows_follow_labels(b.images, b.labels);
    CHECK(b.images.shape() == tensor_shape{int64_t(expected[k].size()), 2, 1});
    CHECK(b.images.shares_buffer_with(d.images()));  // zero-copy slices
  }
}

TEST_CASE("batches with drop_remainder never give a short batch") {
  auto d = numbered(5);
  auto it = d.batches(2, {.drop_remainder = true});
  REQUIRE(it.ok());
  CHECK(it->batches_per_epoch() == 2);
  const std::vector<std::vector<int32_t>> expected{{0, 1}, {2, 3}, {0, 1}, {2, 3}, {0, 1}};
  const std::vector<int64_t> epochs{0, 0, 1, 1, 2}, completed{0, 1, 1, 2, 2};
  for (size_t k = 0; k < expected.size(); ++k) {
    data::batch b = it->next();
    CHECK(labels_of(b.labels) == expected[k]);
    CHECK(b.epoch == epochs[k]);
    CHECK(it->epochs_completed() == completed[k]);
  }
}

TEST_CASE("shuffled batches: each epoch a new order covering every example once, seeded") {
  auto d = numbered(20);
  auto it = d.batches(6, {.shuffle = true, .seed = 5});
  auto again = d.batches(6, {.shuffle = true, .seed = 5});
  auto other = d.batches(6, {.shuffle = true, .seed = 6});
  REQUIRE(it.ok());
  std::vector<std::vector<int32_t>> epoch_orders(2);
  bool other_differs = false;
  for (int k = 0; k < 8; ++k) {  // 4 batches (6, 6, 6, 2) per epoch
    data::batch b = it->next(), b2 = again->next(), b3 = other->next();
    CHECK(b.epoch == k / 4);
    CHECK(b.labels.dim(0) == (k % 4 == 3 ? 2 : 6));
    check_rows_follow_labels(b.images, b.labels);
    CHECK(labels_of(b.labels) == labels_of(b2.labels));
    other_differs |= labels_of(b.labels) != labels_of(b3.labels);
    for (int32_t l : labels_of(b.labels)) epoch_orders[k / 4].push_back(l);
  }
  CHECK(other_differs);
  CHECK(epoch_orders[0] != epoch_orders[1]);
  for (auto order : epoch_orders) {
    std::vector<int32_t> iota(20);
    std::iota(iota.begin(), iota.end(), 0);
    CHECK(order != iota);
    std::sort(order.begin(), order.end());
    CHECK(order == iota);
  }
  CHECK(it->epochs_completed() == 2);
}

TEST_CASE("batch errors") {
  auto d = numbered(3);
  check_error(d.batches(0), "batch size must be positive, got 0");
  check_error(d.batches(4, {.drop_remainder = true}),
              "batch size 4 exceeds the 3 examples and drop_remainder leaves no batch");
  check_error(d.take(0)->batches(1), "cannot batch an empty dataset");
  // Without drop_remainder a batch larger than the dataset is the whole dataset.
  auto it = d.batches(4);
  REQUIRE(it.ok());
  CHECK(labels_of(it->next().labels) == std::vector<int32_t>{0, 1, 2});
  CHECK(it->epochs_completed() == 1);
}
