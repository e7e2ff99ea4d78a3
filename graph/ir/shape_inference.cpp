#include "graph/ir/shape_inference.hpp"

#include <algorithm>

namespace caflow {

shape_context::shape_context(const node_def& node, const node_signature& sig,
                             std::vector<partial_shape> inputs,
                             std::vector<const tensor*> input_values)
    : node_(node),
      sig_(sig),
      inputs_(std::move(inputs)),
      values_(std::move(input_values)),
      outputs_(sig.output_types.size()) {}

status shape_context::require_rank(int i, int rank) const {
  if (inputs_[i].rank_known() && inputs_[i].rank() != rank)
    return error("input ", i, " must have rank ", rank, " but has shape ",
                 inputs_[i].to_string());
  return {};
}

status shape_context::require_rank_at_least(int i, int rank) const {
  if (inputs_[i].rank_known() && inputs_[i].rank() < rank)
    return error("input ", i, " must have rank at least ", rank, " but has shape ",
                 inputs_[i].to_string());
  return {};
}

status_or<partial_shape> broadcast_shapes(const partial_shape& a, const partial_shape& b) {
  if (!a.rank_known() || !b.rank_known()) return partial_shape::unknown();
  const int rank = std::max(a.rank(), b.rank());
  std::vector<int64_t> dims(rank);
  for (int i = 0; i < rank; ++i) {
    const int ia = a.rank() - rank + i, ib = b.rank() - rank + i;
    const int64_t da = ia >= 0 ? a.dim(ia) : 1;
    const int64_t db = ib >= 0 ? b.dim(ib) : 1;
    if (da == 1) dims[i] = db;
    else if (db == 1) dims[i] = da;
    else if (da < 0 || db < 0) dims[i] = std::max(da, db) < 0 ? -1 : std::max(da, db);
    else if (da == db) dims[i] = da;
    else
      return errors::invalid_argument("shapes ", a.to_string(), " and ", b.to_string(),
                                      " cannot be broadcast together");
  }
  return partial_shape(dims);
}

namespace shape_fns {
status unknown(shape_context& c) {
  for (int i = 0; i < c.num_outputs(); ++i) c.set_output(i, partial_shape::unknown());
  return {};
}
status unchanged(shape_context& c) {
  c.set_output(0, c.input(0));
  return {};
}
status scalar(shape_context& c) {
  for (int i = 0; i < c.num_outputs(); ++i) c.set_output(i, partial_shape(tensor_shape{}));
  return {};
}
status broadcast_binary(shape_context& c) {
  auto s = broadcast_shapes(c.input(0), c.input(1));
  if (!s.ok()) return c.error(s.get_status().message());
  c.set_output(0, *s);
  return {};
}
status merge_all_inputs(shape_context& c) {
  partial_shape merged;
  for (int i = 0; i < c.num_inputs(); ++i) {
    auto m = merged.merge(c.input(i));
    if (!m.ok()) return c.error("inputs must have one shape: ", m.get_status().message());
    merged = *m;
  }
  c.set_output(0, merged);
  return {};
}
}  // namespace shape_fns

}  // namespace caflow
