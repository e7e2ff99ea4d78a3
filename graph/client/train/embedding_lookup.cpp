#include "graph/client/train/embedding_lookup.hpp"

#include "graph/client/ops/array_ops.hpp"
#include "graph/client/ops/base_ops.hpp"
#include "graph/client/ops/data_flow_ops.hpp"
#include "graph/client/ops/math_ops.hpp"
#include "graph/client/ops/shape_ops.hpp"
#include "graph/client/train/initializers.hpp"

namespace caflow::nn {

embedding_params::embedding_params(const train::partitioned_variable& v) {
  for (const train::variable& shard : v.shards) shards.push_back(shard.ref);
}

namespace {

// A gather placed with its shard (TF's colocate_with(params[p])): the scope's own device is
// dropped so that the shard's device decides.
output gather_on_shard(const scope& s, const output& shard, const output& ids) {
  return ops::gather(s.with_device("").colocate_with(shard), shard, ids);
}

// The number of rows of all shards together, as a scalar of `type`: a Const when every
// shard's dim 0 is known, else summed from their shapes at run time.
output total_rows(const scope& s, const std::vector<output>& shards, dtype type) {
  int64_t known = 0;
  bool all_known = true;
  for (const output& p : shards) {
    const partial_shape sh = s.shape_of(p);
    if (sh.rank_known() && sh.rank() > 0 && sh.dim(0) >= 0) {
      known += sh.dim(0);
    } else {
      all_known = false;
    }
  }
  if (all_known) return train::scalar_constant(s, static_cast<double>(known), type);
  std::vector<output> rows;
  for (const output& p : shards) {
    const scope on_shard = s.colocate_with(p);  // only the shape crosses, not the shard
    rows.push_back(ops::strided_slice(on_shard, ops::shape(on_shard, p, {.out_type = type}), {0},
                                      {1}, {1}, {.shrink_axis_mask = 1}));
  }
  return rows.size() == 1 ? rows.front() : ops::add_n(s, rows);
}

struct assignment {
  output shard;  // int32: which shard each flat id is on
  output row;    // the id's row within that shard (the ids' dtype)
};

// TF's "mod": shard id % n, row id / n (floored, so a negative id keeps a negative row and
// fails in its shard's gather).
assignment assign_mod(const scope& s, const output& ids, int64_t n) {
  const output np = train::scalar_constant(s, static_cast<double>(n), ids.type);
  return {ops::cast(s, ops::floor_mod(s, ids, np), dtype::int32), ops::floor_div(s, ids, np)};
}

// TF's "div": shards hold consecutive id ranges, the first `extras` shards one id more:
//   per = total / n, extras = total % n,
//   shard = max(id / (per + 1), (id - extras) / per),
//   row = shard < extras ? id % (per + 1) : (id - extras) % per.
assignment assign_div(const scope& s, const output& ids, const std::vector<output>& shards) {
  const auto n = static_cast<int64_t>(shards.size());
  const output np = train::scalar_constant(s, static_cast<double>(n), ids.type);
  const output total = total_rows(s, shards, ids.type);
  if (auto t = s.constant_value(total); t && t->num_elements() == 1) {
    const int64_t rows =
        ids.type == dtype::int32 ? t->scalar_value<int32_t>() : t->scalar_value<int64_t>();
    if (rows < n) {
      s.update_status(errors::invalid_argument(
          "embedding_lookup: partition_strategy 'div' needs at least one row per shard; ", rows,
          " rows in ", n, " shards"));
      return {};
    }
  }
  const output per = ops::floor_div(s, total, np);
  const output extras = ops::floor_mod(s, total, np);
  const output per1 = ops::add(s, per, train::scalar_constant(s, 1, ids.type));
  const output beyond = ops::sub(s, ids, extras);
  const output shard =
      ops::maximum(s, ops::floor_div(s, ids, per1), ops::floor_div(s, beyond, per));
  const output in_extras = ops::less(s, shard, extras);
  const output row =
      ops::select(s, in_extras, ops::floor_mod(s, ids, per1), ops::floor_mod(s, beyond, per));
  return {ops::cast(s, shard, dtype::int32), row};
}

// The stitched [n, row...] result in ids' shape: static when both shapes are known, so that
// later layers see it; otherwise from Shape at run time.
output reshape_to_ids(const scope& s, const output& stitched, const output& ids,
                      const output& shard0) {
  const partial_shape id_shape = s.shape_of(ids);
  const partial_shape row_shape = s.shape_of(shard0);
  bool rows_known = row_shape.rank_known();
  for (int d = 1; rows_known && d < row_shape.rank(); ++d) rows_known = row_shape.dim(d) >= 0;
  if (id_shape.fully_defined() && rows_known) {
    std::vector<int64_t> dims = id_shape.dim_vector();
    for (int d = 1; d < row_shape.rank(); ++d) dims.push_back(row_shape.dim(d));
    return ops::reshape(s, stitched, dims);
  }
  // The rows' dims as constants when known; else from the first shard's Shape colocated with
  // it (as TF's embedding_lookup does), so that a worker never reads a whole shard on a ps.
  output row_dims;
  if (rows_known) {
    std::vector<int32_t> dims;
    for (int d = 1; d < row_shape.rank(); ++d) dims.push_back(static_cast<int32_t>(row_shape.dim(d)));
    row_dims = ops::constant(s, dims, tensor_shape{static_cast<int64_t>(dims.size())});
  } else {
    const scope on_shard = s.colocate_with(shard0);
    row_dims = ops::strided_slice(on_shard, ops::shape(on_shard, shard0), {1}, {0}, {1},
                                  {.end_mask = 1});
  }
  return ops::reshape(s, stitched, ops::concat(s, {ops::shape(s, ids), row_dims}, 0));
}

status check_args(const embedding_params& params, const output& ids, const std::string& strategy,
                  const std::optional<double>& max_norm, const char* who) {
  if (params.shards.empty()) return errors::invalid_argument(who, ": no params (shards)");
  for (const output& p : params.shards)
    if (!p.valid()) return errors::invalid_argument(who, ": a shard of params is invalid");
  if (!ids.valid()) return errors::invalid_argument(who, ": ids are invalid");
  if (ids.type != dtype::int32 && ids.type != dtype::int64)
    return errors::invalid_argument(who, ": ids must be int32 or int64, not ",
                                    dtype_name(ids.type));
  if (strategy != "mod" && strategy != "div")
    return errors::invalid_argument(who, ": partition_strategy must be 'mod' or 'div', not '",
                                    strategy, "'");
  if (max_norm) return errors::unimplemented(who, ": max_norm is not supported");
  return {};
}

}  // namespace

output embedding_lookup(const scope& s, const embedding_params& params, const output& ids,
                        const embedding_lookup_attrs& attrs) {
  if (!s.ok()) return {};
  if (status st =
          check_args(params, ids, attrs.partition_strategy, attrs.max_norm, "embedding_lookup");
      !st.ok()) {
    s.update_status(st);
    return {};
  }
  const scope sc = s.new_sub_scope("embedding_lookup");
  const std::vector<output>& shards = params.shards;
  if (shards.size() == 1) return gather_on_shard(sc, shards.front(), ids);

  const auto n = static_cast<int>(shards.size());
  const output flat = ops::reshape(sc, ids, {-1});
  const assignment a =
      attrs.partition_strategy == "mod" ? assign_mod(sc, flat, n) : assign_div(sc, flat, shards);
  if (!sc.ok()) return {};
  const output positions = ops::range(sc, ops::constant(sc, int32_t{0}), ops::size(sc, flat),
                                      ops::constant(sc, int32_t{1}));
  const std::vector<output> rows = ops::dynamic_partition(sc, a.row, a.shard, n);
  const std::vector<output> where = ops::dynamic_partition(sc, positions, a.shard, n);
  if (!sc.ok()) return {};
  std::vector<output> gathered;
  for (int p = 0; p < n; ++p) gathered.push_back(gather_on_shard(sc, shards[p], rows[p]));
  const output stitched = ops::dynamic_stitch(sc, where, gathered);
  return reshape_to_ids(sc, stitched, ids, shards.front());
}

}  // namespace caflow::nn
