#include "graph/client/train/partitioners.hpp"

#include <algorithm>
#include <cmath>

namespace caflow::train {
namespace {

status check_axis(const char* who, int axis, const tensor_shape& shape) {
  if (axis < 0 || axis >= shape.rank())
    return errors::invalid_argument(who, ": axis ", axis, " is out of range for shape ",
                                    shape.to_string());
  return {};
}

}  // namespace

partitioner fixed_size_partitioner(int64_t num_shards, int axis) {
  return [=](const tensor_shape& shape, dtype) -> status_or<std::vector<int64_t>> {
    CAFLOW_RETURN_IF_ERROR(check_axis("fixed_size_partitioner", axis, shape));
    if (num_shards < 0)
      return errors::invalid_argument("fixed_size_partitioner: num_shards ", num_shards,
                                      " is negative");
    std::vector<int64_t> parts(static_cast<size_t>(shape.rank()), 1);
    parts[static_cast<size_t>(axis)] = std::min(num_shards, shape.dim(axis));
    return parts;
  };
}

partitioner min_max_variable_partitioner(int64_t max_partitions, int axis, int64_t min_slice_size,
                                         int64_t /*bytes_per_string_element*/) {
  return [=](const tensor_shape& shape, dtype type) -> status_or<std::vector<int64_t>> {
    CAFLOW_RETURN_IF_ERROR(check_axis("min_max_variable_partitioner", axis, shape));
    if (max_partitions < 1)
      return errors::invalid_argument("min_max_variable_partitioner: max_partitions ",
                                      max_partitions, " must be at least 1");
    if (min_slice_size < 0)
      return errors::invalid_argument("min_max_variable_partitioner: min_slice_size ",
                                      min_slice_size, " is negative");
    std::vector<int64_t> parts(static_cast<size_t>(shape.rank()), 1);
    const int64_t rows = shape.dim(axis);
    if (rows == 0 || shape.num_elements() == 0) return parts;  // nothing to spread
    // In doubles, as TF computes it, so the rounding is TF's.
    const double bytes_per_slice = static_cast<double>(shape.num_elements()) /
                                   static_cast<double>(rows) *
                                   static_cast<double>(dtype_size(type));
    const double slices_per_shard =
        std::max(1.0, std::floor(static_cast<double>(min_slice_size) / bytes_per_slice));
    const auto num_shards =
        static_cast<int64_t>(std::ceil(static_cast<double>(rows) / slices_per_shard));
    parts[static_cast<size_t>(axis)] = std::max<int64_t>(1, std::min(num_shards, max_partitions));
    return parts;
  };
}

}  // namespace caflow::train
