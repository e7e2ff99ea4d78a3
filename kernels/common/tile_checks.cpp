#include "kernels/common/tile_checks.hpp"

#include "graph/util/array_index_util.hpp"

namespace caflow {

status_or<tile_shape> tile_output_shape(const tensor_shape& input, const tensor& multiples) {
  const int rank = input.rank();
  if (multiples.rank() != 1 || multiples.num_elements() != rank)
    return errors::invalid_argument(
        "multiples must be a vector with one entry per input dimension; input shape ",
        input.to_string(), ", multiples shape ", multiples.shape().to_string());
  tile_shape t;
  t.multiples = index_values(multiples);
  std::vector<int64_t> out_dims(static_cast<size_t>(rank));
  for (int k = 0; k < rank; ++k) {
    if (t.multiples[k] < 0)
      return errors::invalid_argument("multiples[", k, "] = ", t.multiples[k],
                                      " is negative; multiples ", format_dims(t.multiples));
    if (__builtin_mul_overflow(input.dim(k), t.multiples[k], &out_dims[k]))
      return errors::invalid_argument("tiling dimension ", k, " of size ", input.dim(k), " ",
                                      t.multiples[k], " times overflows int64");
  }
  CAFLOW_ASSIGN_OR_RETURN(t.output, tensor_shape::make(out_dims));
  return t;
}

}  // namespace caflow
