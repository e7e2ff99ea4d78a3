#include "kernels/common/argmax_checks.hpp"

#include <limits>

namespace caflow {

status check_arg_reduction_inputs(const tensor_shape& input, const tensor_shape& dimension) {
  if (dimension.rank() != 0)
    return errors::invalid_argument("dimension must be a scalar, got shape ",
                                    dimension.to_string());
  if (input.rank() == 0)
    return errors::invalid_argument("input must have at least one dimension, got a scalar");
  return {};
}

status_or<arg_reduction> plan_arg_reduction(const tensor_shape& input, int64_t dimension,
                                            dtype output_type) {
  const int rank = input.rank();
  if (dimension < -rank || dimension >= rank)
    return errors::invalid_argument("dimension ", dimension, " is out of range for input of rank ",
                                    rank, ": it must be in [", -rank, ", ", rank, ")");
  arg_reduction r;
  r.axis = static_cast<int>(dimension < 0 ? dimension + rank : dimension);
  r.size = input.dim(r.axis);
  if (r.size == 0)
    return errors::invalid_argument("cannot reduce over dimension ", r.axis, " of size 0 in shape ",
                                    input.to_string());
  const int64_t max_index = output_type == dtype::int32 ? std::numeric_limits<int32_t>::max()
                                                        : std::numeric_limits<int64_t>::max();
  if (r.size - 1 > max_index)
    return errors::invalid_argument("dimension ", r.axis, " has ", r.size,
                                    " elements, too many for output_type ",
                                    dtype_name(output_type));
  for (int i = 0; i < r.axis; ++i) r.outer *= input.dim(i);
  for (int i = r.axis + 1; i < rank; ++i) r.inner *= input.dim(i);
  r.output_shape = input;
  r.output_shape.remove_dim(r.axis);
  return r;
}

}  // namespace caflow
