#pragma once
// The state behind a TensorArrayV3 handle: a vector of tensors written and read by index, as
// TensorFlow's TensorArray (tensor_array.h) keeps it. A TensorArrayV3 kernel makes a fresh one
// on every run, so each step (and each iteration of a loop) has its own; it lives as long as a
// handle to it, and TensorArrayCloseV3 only marks it closed.
//
// A gradient array (TensorArrayGradV3) belongs to its forward array and a source string (one
// per gradient computation); writing one index twice adds the values, where a forward array
// refuses the second write. Reading an index never written gives zeros when the element shape
// is fully known, and is an error otherwise. With clear_after_read an element can be read once.
//
// Every call locks the array: handles may be shared by kernels running at once. Errors say
// what went wrong with which index; the executor adds the node.
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "devices/resource_manager.hpp"
#include "graph/core/tensor.hpp"

namespace caflow {

struct tensor_array_options {
  dtype type = dtype::float32;
  partial_shape element_shape;  // unknown by default
  bool dynamic_size = false;
  bool clear_after_read = true;
  bool identical_element_shapes = false;
  bool multiple_writes_aggregate = false;  // gradient arrays
  std::string name;                        // for messages
};

class tensor_array final : public resource {
 public:
  tensor_array(int64_t size, tensor_array_options opts);

  std::string debug_string() const override;
  dtype type() const { return opts_.type; }
  bool dynamic_size() const { return opts_.dynamic_size; }

  // Writes `value` at `index` (growing the array when dynamic_size).
  status write(int64_t index, const tensor& value);
  // The value at `index` (cleared afterwards with clear_after_read).
  status_or<tensor> read(int64_t index);
  // The values at 0..size-1 (read as read() does), for ConcatV3.
  status_or<std::vector<tensor>> read_all();
  status_or<int64_t> size() const;
  // The element shape known so far (after writes with identical_element_shapes).
  partial_shape element_shape() const;
  status close();
  // The gradient array for `source`, made on first use with this array's size, dtype and
  // element shape (as TF does).
  status_or<std::shared_ptr<tensor_array>> grad(const std::string& source);

 private:
  struct entry {
    tensor value;
    bool written = false;
    bool cleared = false;
  };
  status check_open() const;
  status check_index(int64_t index, const char* verb) const;
  status_or<tensor> read_locked(int64_t index);

  mutable std::mutex mu_;
  tensor_array_options opts_;
  std::vector<entry> entries_;
  bool closed_ = false;
  std::map<std::string, std::shared_ptr<tensor_array>> grads_;
};

}  // namespace caflow
