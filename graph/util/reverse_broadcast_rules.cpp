#include "graph/util/reverse_broadcast_rules.hpp"

namespace caflow {

status_or<std::array<bool, max_rank>> reverse_dims(const std::vector<int64_t>& axis, int rank) {
  std::array<bool, max_rank> dims{};
  for (int64_t a : axis) {
    if (a < -rank || a >= rank)
      return errors::invalid_argument("axis ", a, " is out of range for a tensor of rank ", rank,
                                      " (allowed: [", -rank, ", ", rank, "))");
    const int d = static_cast<int>(a < 0 ? a + rank : a);
    if (dims[d])
      return errors::invalid_argument("axis ", format_dims(axis), " names dimension ", d,
                                      " more than once");
    dims[d] = true;
  }
  return dims;
}

status check_broadcast_to(const partial_shape& input, const std::vector<int64_t>& target) {
  for (int64_t d : target)
    if (d < 0)
      return errors::invalid_argument("shape ", format_dims(target),
                                      " has a negative dimension");
  if (!input.rank_known()) return {};
  const int rank = input.rank(), out_rank = static_cast<int>(target.size());
  if (rank > out_rank)
    return errors::invalid_argument("cannot broadcast a tensor of shape ", input.to_string(),
                                    " to the lower-rank shape ", format_dims(target));
  for (int i = 0; i < rank; ++i) {
    const int64_t in = input.dim(i), out = target[out_rank - rank + i];
    if (in >= 0 && in != 1 && in != out)
      return errors::invalid_argument("cannot broadcast a tensor of shape ", input.to_string(),
                                      " to shape ", format_dims(target), ": dimension ", i,
                                      " has size ", in, ", not 1 or ", out);
  }
  return {};
}

status check_reverse_sequence_dims(const partial_shape& input, int64_t seq_dim,
                                   int64_t batch_dim) {
  const int rank = input.rank();
  if (seq_dim < 0 || seq_dim >= rank || batch_dim < 0 || batch_dim >= rank)
    return errors::invalid_argument("seq_dim ", seq_dim, " and batch_dim ", batch_dim,
                                    " must be dimensions of input ", input.to_string());
  if (seq_dim == batch_dim)
    return errors::invalid_argument("seq_dim and batch_dim must differ, both are ", seq_dim);
  return {};
}

}  // namespace caflow
