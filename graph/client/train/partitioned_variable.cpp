#include "graph/client/train/partitioned_variable.hpp"

#include "graph/client/ops/array_ops.hpp"
#include "graph/client/ops/base_ops.hpp"
#include "graph/ir/tensor_slice.hpp"

namespace caflow::train {
namespace {

// The number of shards along dimension 0 that `partition` asks for, or the error naming `name`.
status_or<int64_t> num_shards(std::string_view name, const tensor_shape& shape, dtype type,
                              const partitioner& partition) {
  const auto where = [&] {
    return errors::concat("partitioned variable '", name, "' of shape ", shape.to_string());
  };
  if (shape.rank() == 0)
    return errors::invalid_argument(where(), ": a scalar cannot be partitioned");
  if (!partition) return errors::invalid_argument(where(), ": no partitioner");
  auto parts = partition(shape, type);
  if (!parts.ok()) return errors::invalid_argument(where(), ": ", parts.get_status().message());
  if (static_cast<int>(parts->size()) != shape.rank())
    return errors::invalid_argument(where(), ": the partitioner gave ", parts->size(),
                                    " partition counts for rank ", shape.rank());
  for (int d = 0; d < shape.rank(); ++d) {
    const int64_t n = (*parts)[static_cast<size_t>(d)];
    if (n < 1)
      return errors::invalid_argument(where(), ": the partitioner gave ", n,
                                      " partitions along dimension ", d, "; at least 1 needed");
    if (d > 0 && n > 1)
      return errors::unimplemented(where(), ": partitioning along dimension ", d,
                                   " (only dimension 0 is supported)");
  }
  const int64_t n = parts->front();
  if (n > shape.dim(0))
    return errors::invalid_argument(where(), ": cannot make ", n, " shards of ", shape.dim(0),
                                    " rows");
  return n;
}

// The shards themselves, each initialized by `shard_init(i)`.
template <class ShardInit>
partitioned_variable make_shards(const scope& s, std::string_view name, const tensor_shape& shape,
                                 dtype type, const partitioner& partition,
                                 const variable_attrs& attrs, const ShardInit& shard_init) {
  if (!s.ok()) return {};
  auto n = num_shards(name, shape, type, partition);
  if (!n.ok()) {
    s.update_status(n.get_status());
    return {};
  }
  // One name scope for all shards ("emb", or "emb_1" when taken), so they read as one
  // variable: "emb/part_0", "emb/part_1", ...
  const scope vs = s.new_sub_scope(name);
  const std::string full_name = vs.name_prefix().substr(0, vs.name_prefix().size() - 1);
  partitioned_variable pv;
  pv.shape = shape;
  pv.type = type;
  int64_t offset = 0;
  const std::vector<int64_t> rows = shard_rows(shape.dim(0), *n);
  for (int64_t i = 0; i < *n; ++i) {
    tensor_shape part = shape;
    part.set_dim(0, rows[static_cast<size_t>(i)]);
    // Each shard knows its place in the full variable (TF's SaveSliceInfo): the saver saves
    // it as that slice, the console shows the shards as one variable.
    variable_attrs shard_attrs = attrs;
    shard_attrs.save_slice_info = {full_name,
                                   row_slice(shape, offset, rows[static_cast<size_t>(i)]).to_string()};
    variable v = create_variable(vs, "part_" + std::to_string(i), part, type, shard_init(offset),
                                 shard_attrs);
    if (!v.valid()) return {};
    pv.shards.push_back(std::move(v));
    pv.offsets.push_back(offset);
    offset += rows[static_cast<size_t>(i)];
  }
  pv.name = full_name;
  return pv;
}

}  // namespace

std::vector<int64_t> shard_rows(int64_t rows, int64_t n) {
  std::vector<int64_t> out(static_cast<size_t>(n), rows / n);
  for (int64_t i = 0; i < rows % n; ++i) ++out[static_cast<size_t>(i)];
  return out;
}

output partitioned_variable::as_tensor(const scope& s) const {
  if (!valid()) {
    s.update_status(errors::invalid_argument("as_tensor: invalid partitioned variable '", name,
                                             "' (from a failed create_partitioned_variable?)"));
    return {};
  }
  if (shards.size() == 1) return ops::identity(s, shards.front().ref);
  std::vector<output> parts;
  for (const variable& v : shards) parts.push_back(v.ref);
  return ops::concat(s, parts, 0);
}

partitioned_variable create_partitioned_variable(const scope& s, std::string_view name,
                                                 const tensor_shape& shape, dtype type,
                                                 const initializer& init,
                                                 const partitioner& partition,
                                                 const variable_attrs& attrs) {
  // Each shard's initializer sees the shard's shape only.
  return make_shards(s, name, shape, type, partition, attrs, [&](int64_t) { return init; });
}

partitioned_variable create_partitioned_variable(const scope& s, std::string_view name,
                                                 const output& initial_value,
                                                 const partitioner& partition,
                                                 const variable_attrs& attrs) {
  if (!s.ok()) return {};
  if (!initial_value.valid()) {
    s.update_status(errors::invalid_argument("partitioned variable '", name,
                                             "': the initial value is an invalid output"));
    return {};
  }
  const partial_shape known = s.shape_of(initial_value);
  if (!known.fully_defined()) {
    s.update_status(errors::invalid_argument(
        "partitioned variable '", name, "': the initial value '", initial_value.name(),
        "' has shape ", known.to_string(), "; partitioning needs a fully known shape"));
    return {};
  }
  const tensor_shape shape = known.to_shape();
  // Shard at row `offset` takes rows [offset, offset + its rows) of the full value: TF's
  // slice of a Tensor initializer by the shard's var_offset.
  const auto slice_from = [&](int64_t offset) -> initializer {
    return [initial_value, offset](const scope& is, const tensor_shape& part, dtype) {
      std::vector<int64_t> begin(static_cast<size_t>(part.rank()), 0);
      begin[0] = offset;
      return ops::slice(is, initial_value, begin, part.dim_vector());
    };
  };
  return make_shards(s, name, shape, initial_value.type, partition, attrs, slice_from);
}

}  // namespace caflow::train
