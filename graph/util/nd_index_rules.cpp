#include "graph/util/nd_index_rules.hpp"

#include "graph/util/array_index_util.hpp"

namespace caflow {

status_or<partial_shape> gather_nd_shape(const partial_shape& params,
                                         const partial_shape& indices) {
  if (!params.rank_known() || !indices.rank_known()) return partial_shape::unknown();
  if (indices.rank() < 1)
    return errors::invalid_argument("indices must be at least 1-D, got shape ",
                                    indices.to_string());
  const int64_t k = indices.dim(indices.rank() - 1);
  if (k < 0) return partial_shape::unknown();
  if (k > params.rank())
    return errors::invalid_argument("index innermost dimension ", k,
                                    " exceeds the rank of params ", params.to_string());
  std::vector<int64_t> dims = indices.dim_vector();
  dims.pop_back();
  for (int d = static_cast<int>(k); d < params.rank(); ++d) dims.push_back(params.dim(d));
  if (dims.size() > static_cast<size_t>(max_rank))
    return errors::invalid_argument("the output would have rank ", dims.size(),
                                    ", above the maximum");
  return partial_shape(dims);
}

status check_scatter_nd(const partial_shape& indices, const partial_shape& updates,
                        const partial_shape& shape) {
  if (!indices.rank_known() || !updates.rank_known() || !shape.rank_known()) return {};
  if (indices.rank() < 1)
    return errors::invalid_argument("indices must be at least 1-D, got shape ",
                                    indices.to_string());
  const int64_t k = indices.dim(indices.rank() - 1);
  if (k < 0) return {};
  if (k > shape.rank())
    return errors::invalid_argument("index innermost dimension ", k, " exceeds the rank of shape ",
                                    shape.to_string());
  std::vector<int64_t> expected = indices.dim_vector();
  expected.pop_back();
  for (int d = static_cast<int>(k); d < shape.rank(); ++d) expected.push_back(shape.dim(d));
  if (!updates.compatible_with(partial_shape(expected)))
    return errors::invalid_argument("updates has shape ", updates.to_string(), " but indices ",
                                    indices.to_string(), " and shape ", shape.to_string(),
                                    " need ", partial_shape(expected).to_string());
  return {};
}

status_or<std::vector<int64_t>> nd_slice_offsets(const tensor& indices, const tensor_shape& shape) {
  const int64_t k = indices.dim(indices.rank() - 1);
  int64_t tuples = 1;
  for (int d = 0; d + 1 < indices.rank(); ++d) tuples *= indices.dim(d);
  const std::vector<int64_t> idx = index_values(indices);
  std::vector<int64_t> offsets(static_cast<size_t>(tuples), 0);
  for (int64_t t = 0; t < tuples; ++t) {
    int64_t off = 0;
    for (int64_t j = 0; j < k; ++j) {
      const int64_t i = idx[static_cast<size_t>(t * k + j)];
      const int64_t dim = shape.dim(static_cast<int>(j));
      if (i < 0 || i >= dim) {
        std::vector<int64_t> tuple(idx.begin() + t * k, idx.begin() + (t + 1) * k);
        return errors::invalid_argument("index tuple ", t, " of indices ",
                                        indices.shape().to_string(), " = ", format_dims(tuple),
                                        " does not index into shape ", shape.to_string());
      }
      off = off * dim + i;
    }
    offsets[static_cast<size_t>(t)] = off;
  }
  return offsets;
}

}  // namespace caflow
