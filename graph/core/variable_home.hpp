#pragma once
// Where a device's variables keep their bytes when something other than the device decides.
// A worker whose variables other processes on its host read (the ps's parameters, handed to
// its workers through shared memory, docs/shm_transport.md) keeps them in its export segment,
// so each step hands the workers the variable's own block instead of a copy.
#include <memory>

#include "graph/core/allocator.hpp"

namespace caflow {

class variable_home {
 public:
  virtual ~variable_home() = default;
  // The allocator for variables' bytes now; null: the device's own. Called on every update
  // that must write a fresh buffer, from any thread.
  virtual std::shared_ptr<allocator> variables() const = 0;
};

}  // namespace caflow
