#include "graph/tf/tensor_bundle.hpp"

#include <cstdio>

namespace caflow::tf {

std::string bundle_index_path(const std::string& prefix) { return prefix + ".index"; }

std::string bundle_data_path(const std::string& prefix, int shard, int num_shards) {
  char suffix[48];
  std::snprintf(suffix, sizeof suffix, ".data-%05d-of-%05d", shard, num_shards);
  return prefix + suffix;
}

status write_bundle(const std::string& prefix, const std::map<std::string, tensor>& tensors) {
  bundle_writer out(prefix);
  for (const auto& [key, value] : tensors) CAFLOW_RETURN_IF_ERROR(out.add(key, value));
  return out.finish();
}

}  // namespace caflow::tf
