#include "graph/tf/tensor_bundle.hpp"

#include "graph/tf/ordered_code.hpp"

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

std::string bundle_slice_key(std::string_view name, const std::vector<int64_t>& start,
                             const std::vector<int64_t>& length) {
  std::string key;
  ordered_code::write_num_increasing(key, 0);
  ordered_code::write_string(key, name);
  ordered_code::write_num_increasing(key, start.size());
  for (size_t d = 0; d < start.size(); ++d) {
    ordered_code::write_signed_num_increasing(key, start[d]);
    ordered_code::write_signed_num_increasing(key, length[d]);
  }
  return key;
}

std::string bundle_slice_key(std::string_view name, const tensor_slice& box) {
  std::vector<int64_t> start = box.start, length = box.length;
  for (size_t d = 0; d < start.size(); ++d)
    if (start[d] == 0 && length[d] == box.full.dim(static_cast<int>(d))) length[d] = -1;
  return bundle_slice_key(name, start, length);
}

}  // namespace caflow::tf
