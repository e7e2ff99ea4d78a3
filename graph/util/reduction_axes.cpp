#include "graph/util/reduction_axes.hpp"

#include "graph/util/array_index_util.hpp"

namespace caflow {

status_or<std::bitset<max_rank>> reduction_axes(const tensor& axes, int rank) {
  if (axes.type() != dtype::int32 && axes.type() != dtype::int64)
    return errors::invalid_argument("reduction_indices must be int32 or int64, got ",
                                    dtype_name(axes.type()));
  if (axes.rank() > 1)
    return errors::invalid_argument("reduction_indices must be a scalar or a vector, got shape ",
                                    axes.shape().to_string());
  const std::vector<int64_t> values = index_values(axes);
  std::bitset<max_rank> reduced;
  for (int64_t a : values) {
    if (a < -rank || a >= rank)
      return errors::invalid_argument("invalid reduction axis ", a, " for input of rank ", rank,
                                      ": axes must be in [", -rank, ", ", rank, ")");
    const size_t axis = static_cast<size_t>(a < 0 ? a + rank : a);
    if (reduced[axis])
      return errors::invalid_argument("reduction axis ", static_cast<long long>(axis),
                                      " appears twice in reduction_indices ", format_dims(values));
    reduced[axis] = true;
  }
  return reduced;
}

}  // namespace caflow
