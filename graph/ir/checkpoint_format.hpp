#pragma once
// Checkpoint formats besides caflow's own (graph/ir/checkpoint_file.hpp), registered by the
// layer that implements them: graph/tf registers TensorFlow's tensor bundles ("tf"), which the
// SaveV2/RestoreV2 kernels, layers below graph/tf, find here by name or by sniffing a prefix.
// Registration happens during static initialization; the registry is read-only afterwards, like
// the op registry.
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "graph/core/tensor.hpp"

namespace caflow {

class checkpoint_format {
 public:
  virtual ~checkpoint_format() = default;
  virtual std::string_view name() const = 0;
  // Whether `prefix` names a checkpoint of this format (a cheap look at its files).
  virtual bool holds(const std::string& prefix) const = 0;
  // The tensors `names` of dtypes `types` (each whole where its `slices` entry is empty, else
  // that shape_and_slice box of it), all or an error naming the file and the tensor.
  virtual status_or<std::vector<tensor>> read(const std::string& prefix,
                                              const std::vector<std::string>& names,
                                              const std::vector<std::string>& slices,
                                              const std::vector<dtype>& types) const = 0;
};

// REQUIRES: called during static initialization.
void register_checkpoint_format(std::unique_ptr<checkpoint_format> format);
// The registered format whose files `prefix` names, or null (caflow's own, or nothing there).
const checkpoint_format* checkpoint_format_of(const std::string& prefix);

}  // namespace caflow
