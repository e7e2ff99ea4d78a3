// DynamicPartition and DynamicStitch, TensorFlow's data_flow_ops that route rows of a tensor
// by an index tensor (the halves of an embedding lookup over sharded tables): registrations and
// shape functions.
#include <algorithm>

#include "graph/ir/op_def.hpp"
#include "graph/ir/shape_inference.hpp"
#include "graph/util/array_index_util.hpp"

namespace caflow {
namespace {

// Whether `prefix` may be the leading dims of `full` (unknown dims match anything).
bool may_be_prefix(const partial_shape& prefix, const partial_shape& full) {
  if (prefix.rank() > full.rank()) return false;
  for (int d = 0; d < prefix.rank(); ++d)
    if (prefix.dim(d) >= 0 && full.dim(d) >= 0 && prefix.dim(d) != full.dim(d)) return false;
  return true;
}

// full.shape[prefix_rank:]
std::vector<int64_t> dims_after(const partial_shape& full, int prefix_rank) {
  std::vector<int64_t> out;
  for (int d = prefix_rank; d < full.rank(); ++d) out.push_back(full.dim(d));
  return out;
}

// Every output is [?] + data.shape[rank(partitions):]: how many rows land in each partition
// is known only at run time.
status dynamic_partition_shape(shape_context& c) {
  const partial_shape &data = c.input(0), &partitions = c.input(1);
  if (!data.rank_known() || !partitions.rank_known()) return shape_fns::unknown(c);
  if (!may_be_prefix(partitions, data))
    return c.error("data of shape ", data.to_string(), " must start with the shape of partitions ",
                   partitions.to_string());
  std::vector<int64_t> out = {-1};
  for (int64_t d : dims_after(data, partitions.rank())) out.push_back(d);
  for (int i = 0; i < c.num_outputs(); ++i) c.set_output(i, partial_shape(out));
  return {};
}

// merged is [max(indices) + 1] + data[i].shape[rank(indices[i]):], the trailing dims being one
// shape for every i; the first dim is known when every indices[i] is a constant.
status dynamic_stitch_shape(shape_context& c) {
  const int n = c.num_inputs() / 2;
  partial_shape row = partial_shape::unknown();
  int row_from = -1;  // which data[i] fixed `row`, for messages
  int64_t max_index = -1;
  bool all_constant = true;
  for (int i = 0; i < n; ++i) {
    const partial_shape &indices = c.input(i), &data = c.input(n + i);
    if (const tensor* v = c.input_value(i)) {
      for (int64_t k : index_values(*v)) max_index = std::max(max_index, k);
    } else {
      all_constant = false;
    }
    if (!indices.rank_known() || !data.rank_known()) continue;
    if (!may_be_prefix(indices, data))
      return c.error("data[", i, "] of shape ", data.to_string(),
                     " must start with the shape of indices[", i, "] ", indices.to_string());
    const partial_shape rest(dims_after(data, indices.rank()));
    auto merged = row.merge(rest);
    if (!merged.ok())
      return c.error("data[", i, "] of shape ", data.to_string(), " has rows of shape ",
                     rest.to_string(), " but data[", row_from, "] of shape ",
                     c.input(n + row_from).to_string(), " has rows of shape ", row.to_string());
    row = *merged;
    row_from = i;
  }
  if (!row.rank_known()) return shape_fns::unknown(c);
  std::vector<int64_t> out = {all_constant ? max_index + 1 : -1};
  for (int64_t d : row.dim_vector()) out.push_back(d);
  c.set_output(0, partial_shape(out));
  return {};
}

}  // namespace

CAFLOW_REGISTER_OP("DynamicPartition")
    .input("data: T")
    .input("partitions: int32")
    .output("outputs: num_partitions * T")
    .attr("num_partitions: int >= 1")
    .attr("T: type")
    .set_shape_fn(dynamic_partition_shape);
CAFLOW_REGISTER_OP("DynamicStitch")
    .input("indices: N * int32")
    .input("data: N * T")
    .output("merged: T")
    .attr("N: int >= 1")
    .attr("T: type")
    .set_shape_fn(dynamic_stitch_shape);

}  // namespace caflow
