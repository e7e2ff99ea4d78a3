#pragma once
// The rows of sparse gradients summed per index, for SparseConditionalAccumulator. Each row
// remembers how many gradients named it: TensorFlow's sparse accumulator averages a row over
// the gradients that had it, not over all gradients taken.
#include <cstdint>
#include <map>
#include <memory>
#include <vector>

#include "graph/core/allocator.hpp"
#include "graph/core/status.hpp"
#include "graph/core/tensor.hpp"

namespace caflow {

class sparse_gradient_sum {
 public:
  // Adds `n` elements of `src` into `dst`, both of the sum's dtype.
  using add_fn = void (*)(void* dst, const void* src, int64_t n);

  // indices: an int64 vector; values: [len(indices)] + row shape, the same row shape and dtype
  // as every gradient added before. A repeated index within one gradient adds both rows and
  // counts once. Checks everything before adding anything.
  status add(const tensor& indices, const tensor& values, add_fn add);

  bool empty() const { return counts_.empty(); }
  dtype type() const { return type_; }

  struct rows {
    tensor indices;               // int64 [n], ascending
    tensor values;                // [n] + row shape
    std::vector<int64_t> counts;  // per row: the gradients that named it
  };
  // The sums in ascending index order, in buffers from `alloc`; leaves this sum empty.
  status_or<rows> take(const std::shared_ptr<allocator>& alloc);

 private:
  dtype type_ = dtype::invalid;
  tensor_shape row_shape_;
  int64_t row_elems_ = 0;
  std::map<int64_t, size_t> slot_of_;  // index -> row slot in rows_
  std::vector<unsigned char> rows_;
  std::vector<int64_t> counts_;         // per slot
  int64_t gradients_ = 0;               // added so far, to count a repeated index once per gradient
  std::vector<int64_t> last_gradient_;  // per slot: the gradient that named it last
};

}  // namespace caflow
