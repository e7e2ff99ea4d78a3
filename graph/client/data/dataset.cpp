#include "graph/client/data/dataset.hpp"

#include <algorithm>
#include <cstring>
#include <utility>

#include "graph/util/splitmix64.hpp"

namespace caflow::data {

std::vector<int64_t> random_permutation(int64_t n, uint64_t seed) {
  std::vector<int64_t> p(static_cast<size_t>(std::max<int64_t>(n, 0)));
  for (int64_t i = 0; i < n; ++i) p[i] = i;
  uint64_t state = seed;
  for (int64_t i = n - 1; i > 0; --i) {
    // A draw in [0, i] by multiply-shift: bias below 2^-40 for any dataset that fits in memory.
    const auto j = static_cast<int64_t>(
        (static_cast<unsigned __int128>(splitmix64(state)) * static_cast<uint64_t>(i + 1)) >> 64);
    std::swap(p[i], p[j]);
  }
  return p;
}

tensor gather_rows(const tensor& t, const int64_t* indices, int64_t count) {
  tensor_shape shape = t.shape();
  shape.set_dim(0, count);
  tensor out(t.type(), shape);
  const size_t row = t.dim(0) > 0 ? t.byte_size() / static_cast<size_t>(t.dim(0)) : 0;
  const auto* src = static_cast<const char*>(t.raw_data());
  auto* dst = static_cast<char*>(out.raw_data());
  for (int64_t k = 0; k < count && row > 0; ++k)
    std::memcpy(dst + k * row, src + indices[k] * row, row);
  return out;
}

status_or<dataset> dataset::make(tensor images, tensor labels) {
  if (!images.initialized() || !labels.initialized())
    return errors::invalid_argument("a dataset needs initialized images and labels");
  if (images.rank() < 1)
    return errors::invalid_argument("images must have an example dimension (rank >= 1), got shape ",
                                    images.shape().to_string());
  if (labels.rank() != 1)
    return errors::invalid_argument("labels must be a vector, got shape ", labels.shape().to_string());
  if (images.dim(0) != labels.dim(0))
    return errors::invalid_argument(images.dim(0), " images (shape ", images.shape().to_string(),
                                    ") but ", labels.dim(0), " labels");
  return dataset(std::move(images), std::move(labels));
}

tensor dataset::flat_images() const {
  int64_t features = 1;
  for (int i = 1; i < images_.rank(); ++i) features *= images_.dim(i);
  return images_.reshaped(tensor_shape{size(), features});
}

status_or<dataset> dataset::shard(int64_t index, int64_t count) const {
  if (count < 1) return errors::invalid_argument("shard count must be positive, got ", count);
  if (index < 0 || index >= count)
    return errors::invalid_argument("shard index ", index, " is outside [0, ", count, ")");
  const int64_t n = size();
  const int64_t begin = index * n / count, end = (index + 1) * n / count;
  return dataset(images_.slice_dim0(begin, end), labels_.slice_dim0(begin, end));
}

status_or<dataset> dataset::take(int64_t n) const {
  if (n < 0) return errors::invalid_argument("cannot take ", n, " examples");
  const int64_t end = std::min(n, size());
  return dataset(images_.slice_dim0(0, end), labels_.slice_dim0(0, end));
}

dataset dataset::shuffled(uint64_t seed) const {
  const std::vector<int64_t> order = random_permutation(size(), seed);
  return dataset(gather_rows(images_, order.data(), size()),
                 gather_rows(labels_, order.data(), size()));
}

status_or<batch_iterator> dataset::batches(int64_t batch_size, const batch_options& opts) const {
  if (batch_size < 1) return errors::invalid_argument("batch size must be positive, got ", batch_size);
  if (size() == 0) return errors::invalid_argument("cannot batch an empty dataset");
  if (opts.drop_remainder && batch_size > size())
    return errors::invalid_argument("batch size ", batch_size, " exceeds the ", size(),
                                    " examples and drop_remainder leaves no batch");
  return batch_iterator(*this, batch_size, opts);
}

batch_iterator::batch_iterator(dataset data, int64_t batch_size, const batch_options& opts)
    : data_(std::move(data)), batch_size_(batch_size), opts_(opts) {
  start_epoch();
}

void batch_iterator::start_epoch() {
  next_ = 0;
  // Each epoch's order depends on the seed and the epoch alone, not on what came before.
  if (opts_.shuffle)
    order_ = random_permutation(
        data_.size(), opts_.seed ^ (0x5851f42d4c957f2dULL * static_cast<uint64_t>(epoch_ + 1)));
}

int64_t batch_iterator::batches_per_epoch() const {
  const int64_t n = data_.size();
  return opts_.drop_remainder ? n / batch_size_ : (n + batch_size_ - 1) / batch_size_;
}

batch batch_iterator::next() {
  const int64_t n = data_.size();
  if (next_ >= n || (opts_.drop_remainder && next_ + batch_size_ > n)) {
    ++epoch_;
    start_epoch();
  }
  const int64_t begin = next_, end = std::min(n, begin + batch_size_);
  next_ = end;
  if (end == n || (opts_.drop_remainder && end + batch_size_ > n)) completed_ = epoch_ + 1;
  batch b;
  b.epoch = epoch_;
  if (opts_.shuffle) {
    b.images = gather_rows(data_.images(), order_.data() + begin, end - begin);
    b.labels = gather_rows(data_.labels(), order_.data() + begin, end - begin);
  } else {
    b.images = data_.images().slice_dim0(begin, end);
    b.labels = data_.labels().slice_dim0(begin, end);
  }
  return b;
}

}  // namespace caflow::data
