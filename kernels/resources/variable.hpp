#pragma once
// A variable's state, held by its device's resource manager and reached by kernels through
// Ref(T) edges. Readers take a snapshot (the tensor handle, sharing the bytes); writers
// replace or mutate under the lock, mutating in place only when no snapshot shares the bytes.
#include <mutex>

#include <optional>

#include "devices/resource_manager.hpp"
#include "graph/core/tensor.hpp"
#include "graph/ir/tensor_slice.hpp"

namespace caflow {

// Where a partitioned variable's shard lies in the full variable, from its VariableV2's
// "_save_slice_info" attr (graph/ir/tensor_slice.hpp): what the console groups shards by.
struct variable_partition {
  std::string full_name;
  tensor_slice slice;
};

class variable final : public resource {
 public:
  variable(std::string name, dtype type, partial_shape shape,
           std::optional<variable_partition> partition = std::nullopt)
      : name_(std::move(name)), type_(type), shape_(std::move(shape)),
        partition_(std::move(partition)) {}
  const std::string& name() const { return name_; }
  std::string debug_string() const override;

  dtype type() const { return type_; }
  // The declared shape (from VariableV2's `shape` attr).
  const partial_shape& declared_shape() const { return shape_; }
  // Set for a partitioned variable's shard only.
  const std::optional<variable_partition>& partition() const { return partition_; }

  bool initialized() const;
  // Current value; uninitialized tensor when never assigned.
  tensor snapshot() const;
  void assign(tensor value);
  // Runs fn(value) under the lock, for read-modify-write kernels (AssignAdd, optimizers).
  template <class F>
  auto update(F&& fn) {
    std::lock_guard<std::mutex> lock(mu_);
    return fn(value_);
  }
  // update() of an initialized value: fn(value) returns a status; a variable never assigned
  // fails with TF's "attempting to use uninitialized variable" naming it, fn unrun.
  template <class F>
  status update_initialized(F&& fn) {
    std::lock_guard<std::mutex> lock(mu_);
    if (!value_.initialized())
      return errors::failed_precondition("attempting to use uninitialized variable '", name_,
                                         "'");
    return fn(value_);
  }

 private:
  mutable std::mutex mu_;
  tensor value_;
  std::string name_;
  dtype type_;
  partial_shape shape_;
  std::optional<variable_partition> partition_;
};

}  // namespace caflow
