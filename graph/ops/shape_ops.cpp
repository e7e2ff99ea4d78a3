// Ops on shapes and shaped fills: Reshape, Shape, Size, Rank, ExpandDims, Squeeze, Fill,
// ZerosLike, OnesLike, Range, OneHot, Pack and Unpack: registrations and shape functions.
#include <array>
#include <type_traits>

#include "graph/ir/op_def.hpp"
#include "graph/ir/shape_inference.hpp"
#include "graph/util/array_index_util.hpp"
#include "graph/util/shape_util.hpp"

namespace caflow {
namespace {

std::vector<int64_t> with_dim_inserted(const partial_shape& s, int at, int64_t size) {
  std::vector<int64_t> dims = s.dim_vector();
  dims.insert(dims.begin() + at, size);
  return dims;
}

status reshape_shape(shape_context& c) {
  CAFLOW_RETURN_IF_ERROR(c.require_rank(1, 1));
  const partial_shape& in = c.input(0);
  const tensor* requested = c.input_value(1);
  if (!requested) {
    const int64_t out_rank = c.input(1).rank_known() ? c.input(1).dim(0) : -1;
    if (out_rank > max_rank)
      return c.error("requested shape has ", out_rank, " dimensions, above the maximum ",
                     max_rank);
    c.set_output(0, out_rank < 0 ? partial_shape::unknown()
                                 : partial_shape::unknown_of_rank(static_cast<int>(out_rank)));
    return {};
  }
  const std::vector<int64_t> dims = index_values(*requested);
  if (in.fully_defined()) {
    auto resolved = resolve_reshape(in.to_shape().num_elements(), dims);
    if (!resolved.ok()) return c.error(resolved.get_status().message());
    c.set_output(0, *resolved);
    return {};
  }
  if (status st = check_reshape_dims(dims); !st.ok()) return c.error(st.message());
  // With some input dims unknown, a fully specified request must still be a multiple of the
  // known ones (or empty when a known one is 0).
  bool has_unknown_request = false;
  int64_t requested_count = 1;
  for (int64_t d : dims) {
    if (d < 0) has_unknown_request = true;
    else if (__builtin_mul_overflow(requested_count, d, &requested_count))
      return c.error("requested shape ", format_dims(dims), " has too many elements");
  }
  if (!has_unknown_request && in.rank_known()) {
    int64_t known = 1;
    bool overflow = false;
    for (int i = 0; i < in.rank(); ++i)
      if (in.dim(i) >= 0) overflow |= __builtin_mul_overflow(known, in.dim(i), &known);
    if (!overflow &&
        ((known == 0 && requested_count != 0) || (known > 0 && requested_count % known != 0)))
      return c.error("input to reshape has shape ", in.to_string(),
                     ", whose element count cannot equal the ", requested_count,
                     " of requested shape ", format_dims(dims));
  }
  c.set_output(0, partial_shape(dims));
  return {};
}

status shape_shape(shape_context& c) {
  const partial_shape& in = c.input(0);
  c.set_output(0, partial_shape{in.rank_known() ? int64_t{in.rank()} : int64_t{-1}});
  return {};
}

status expand_dims_shape(shape_context& c) {
  const partial_shape& in = c.input(0);
  const partial_shape& axis_shape = c.input(1);
  if (axis_shape.fully_defined() && axis_shape.to_shape().num_elements() != 1)
    return c.error("axis must hold a single value, got shape ", axis_shape.to_string());
  if (!in.rank_known()) {
    c.set_output(0, partial_shape::unknown());
    return {};
  }
  const int rank = in.rank();
  if (rank >= max_rank)
    return c.error("cannot add a dimension to ", in.to_string(), ": rank ", max_rank,
                   " is the maximum");
  const tensor* axis_value = c.input_value(1);
  if (!axis_value) {
    c.set_output(0, partial_shape::unknown_of_rank(rank + 1));
    return {};
  }
  int64_t axis = index_values(*axis_value)[0];
  if (axis < -rank - 1 || axis > rank)
    return c.error("axis ", axis, " is out of range for input of shape ", in.to_string(),
                   " (allowed: [", -rank - 1, ", ", rank, "])");
  if (axis < 0) axis += rank + 1;
  c.set_output(0, partial_shape(with_dim_inserted(in, static_cast<int>(axis), 1)));
  return {};
}

status squeeze_shape(shape_context& c) {
  std::vector<int64_t> axes;
  CAFLOW_RETURN_IF_ERROR(c.get_attr("squeeze_dims", &axes));
  const partial_shape& in = c.input(0);
  if (!in.rank_known()) {
    c.set_output(0, partial_shape::unknown());
    return {};
  }
  const int rank = in.rank();
  std::array<bool, max_rank> drop{};
  for (int64_t a : axes) {
    if (a < -rank || a >= rank)
      return c.error("squeeze_dims entry ", a, " is out of range for input of shape ",
                     in.to_string());
    const int i = static_cast<int>(a < 0 ? a + rank : a);
    if (in.dim(i) >= 0 && in.dim(i) != 1)
      return c.error("cannot squeeze dimension ", i, " of shape ", in.to_string(),
                     ": its size is ", in.dim(i), ", not 1");
    drop[i] = true;
  }
  if (axes.empty()) {
    for (int i = 0; i < rank; ++i) {
      // Whether an unknown dimension goes away is only known at run time.
      if (in.dim(i) < 0) {
        c.set_output(0, partial_shape::unknown());
        return {};
      }
      drop[i] = in.dim(i) == 1;
    }
  }
  std::vector<int64_t> dims;
  for (int i = 0; i < rank; ++i)
    if (!drop[i]) dims.push_back(in.dim(i));
  c.set_output(0, partial_shape(dims));
  return {};
}

status fill_shape(shape_context& c) {
  CAFLOW_RETURN_IF_ERROR(c.require_rank(0, 1));
  CAFLOW_RETURN_IF_ERROR(c.require_rank(1, 0));
  const partial_shape& dims_shape = c.input(0);
  const int64_t out_rank = dims_shape.rank_known() ? dims_shape.dim(0) : -1;
  if (out_rank > max_rank)
    return c.error("dims has ", out_rank, " entries, above the maximum rank ", max_rank);
  const tensor* dims_value = c.input_value(0);
  if (!dims_value) {
    c.set_output(0, out_rank < 0 ? partial_shape::unknown()
                                 : partial_shape::unknown_of_rank(static_cast<int>(out_rank)));
    return {};
  }
  const std::vector<int64_t> dims = index_values(*dims_value);
  auto shape = tensor_shape::make(dims);
  if (!shape.ok())
    return c.error("dims ", format_dims(dims), ": ", shape.get_status().message());
  c.set_output(0, *shape);
  return {};
}

status_or<int64_t> range_length_of(const tensor& start, const tensor& limit, const tensor& delta) {
  status_or<int64_t> length = errors::invalid_argument("Range does not support ",
                                                       dtype_name(start.type()));
  visit_dtype(start.type(), [&]<class T>() {
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double> ||
                  std::is_same_v<T, int32_t> || std::is_same_v<T, int64_t>)
      length = range_length<T>(start.scalar_value<T>(), limit.scalar_value<T>(),
                               delta.scalar_value<T>());
  });
  return length;
}

status range_shape(shape_context& c) {
  static constexpr const char* names[] = {"start", "limit", "delta"};
  for (int i = 0; i < 3; ++i)
    if (c.input(i).rank_known() && c.input(i).rank() != 0)
      return c.error(names[i], " must be a scalar, got shape ", c.input(i).to_string());
  const tensor *start = c.input_value(0), *limit = c.input_value(1), *delta = c.input_value(2);
  if (!start || !limit || !delta) {
    c.set_output(0, partial_shape{-1});
    return {};
  }
  auto length = range_length_of(*start, *limit, *delta);
  if (!length.ok()) return c.error(length.get_status().message());
  c.set_output(0, partial_shape{*length});
  return {};
}

status one_hot_shape(shape_context& c) {
  int64_t axis = 0;
  CAFLOW_RETURN_IF_ERROR(c.get_attr("axis", &axis));
  CAFLOW_RETURN_IF_ERROR(c.require_rank(1, 0));
  CAFLOW_RETURN_IF_ERROR(c.require_rank(2, 0));
  CAFLOW_RETURN_IF_ERROR(c.require_rank(3, 0));
  if (axis < -1) return c.error("axis must be -1 or a dimension index, got ", axis);
  int64_t depth = -1;
  if (const tensor* d = c.input_value(1)) {
    depth = d->scalar_value<int32_t>();
    if (depth < 0) return c.error("depth must be non-negative, got ", depth);
  }
  const partial_shape& indices = c.input(0);
  if (!indices.rank_known()) {
    c.set_output(0, partial_shape::unknown());
    return {};
  }
  const int rank = indices.rank();
  if (axis > rank)
    return c.error("axis ", axis, " is out of range for indices of shape ", indices.to_string(),
                   " (allowed: -1 to ", rank, ")");
  if (rank >= max_rank)
    return c.error("indices of shape ", indices.to_string(), " leave no room for the depth",
                   " dimension: rank ", max_rank, " is the maximum");
  const int at = axis == -1 ? rank : static_cast<int>(axis);
  c.set_output(0, partial_shape(with_dim_inserted(indices, at, depth)));
  return {};
}

status pack_shape(shape_context& c) {
  int64_t axis = 0;
  CAFLOW_RETURN_IF_ERROR(c.get_attr("axis", &axis));
  partial_shape merged = c.input(0);
  for (int i = 1; i < c.num_inputs(); ++i) {
    auto m = merged.merge(c.input(i));
    if (!m.ok())
      return c.error("shapes of all inputs must match: values[0] has shape ",
                     c.input(0).to_string(), " but values[", i, "] has shape ",
                     c.input(i).to_string());
    merged = *m;
  }
  if (!merged.rank_known()) {
    c.set_output(0, partial_shape::unknown());
    return {};
  }
  const int rank = merged.rank();
  if (axis < -rank - 1 || axis > rank)
    return c.error("axis ", axis, " is out of range for packing inputs of shape ",
                   merged.to_string(), " (allowed: [", -rank - 1, ", ", rank, "])");
  if (rank >= max_rank)
    return c.error("cannot pack inputs of shape ", merged.to_string(), ": rank ", max_rank,
                   " is the maximum");
  if (axis < 0) axis += rank + 1;
  c.set_output(0, partial_shape(with_dim_inserted(merged, static_cast<int>(axis),
                                                  c.num_inputs())));
  return {};
}

status unpack_shape(shape_context& c) {
  int64_t axis = 0, num = 0;
  CAFLOW_RETURN_IF_ERROR(c.get_attr("axis", &axis));
  CAFLOW_RETURN_IF_ERROR(c.get_attr("num", &num));
  const partial_shape& in = c.input(0);
  if (!in.rank_known()) {
    for (int i = 0; i < c.num_outputs(); ++i) c.set_output(i, partial_shape::unknown());
    return {};
  }
  const int rank = in.rank();
  if (rank == 0) return c.error("cannot unpack a scalar");
  if (axis < -rank || axis >= rank)
    return c.error("axis ", axis, " is out of range for input of shape ", in.to_string(),
                   " (allowed: [", -rank, ", ", rank, "))");
  if (axis < 0) axis += rank;
  const int64_t size = in.dim(static_cast<int>(axis));
  if (size >= 0 && size != num)
    return c.error("num is ", num, " but dimension ", axis, " of input shape ", in.to_string(),
                   " has size ", size);
  std::vector<int64_t> dims = in.dim_vector();
  dims.erase(dims.begin() + axis);
  for (int i = 0; i < c.num_outputs(); ++i) c.set_output(i, partial_shape(dims));
  return {};
}

}  // namespace


CAFLOW_REGISTER_OP("Reshape").input("tensor: T").input("shape: Tshape").output("output: T")
    .attr("T: type").attr("Tshape: {int32, int64} = int32").cheap().set_shape_fn(reshape_shape);
CAFLOW_REGISTER_OP("Shape").input("input: T").output("output: out_type").attr("T: type")
    .attr("out_type: {int32, int64} = int32").cheap().set_shape_fn(shape_shape);
CAFLOW_REGISTER_OP("Size").input("input: T").output("output: out_type").attr("T: type")
    .attr("out_type: {int32, int64} = int32").cheap().set_shape_fn(shape_fns::scalar);
CAFLOW_REGISTER_OP("Rank").input("input: T").output("output: int32").attr("T: type").cheap()
    .set_shape_fn(shape_fns::scalar);
CAFLOW_REGISTER_OP("ExpandDims").input("input: T").input("dim: Tdim").output("output: T")
    .attr("T: type").attr("Tdim: {int32, int64} = int32").cheap()
    .set_shape_fn(expand_dims_shape);
CAFLOW_REGISTER_OP("Squeeze").input("input: T").output("output: T").attr("T: type")
    .attr("squeeze_dims: list(int) = []").cheap().set_shape_fn(squeeze_shape);
CAFLOW_REGISTER_OP("Fill").input("dims: index_type").input("value: T").output("output: T")
    .attr("T: type").attr("index_type: {int32, int64} = int32").set_shape_fn(fill_shape);
CAFLOW_REGISTER_OP("ZerosLike").input("x: T").output("y: T").attr("T: type")
    .set_shape_fn(shape_fns::unchanged);
CAFLOW_REGISTER_OP("OnesLike").input("x: T").output("y: T").attr("T: type")
    .set_shape_fn(shape_fns::unchanged);
CAFLOW_REGISTER_OP("Range").input("start: Tidx").input("limit: Tidx").input("delta: Tidx")
    .output("output: Tidx").attr("Tidx: {float32, float64, int32, int64} = int32")
    .set_shape_fn(range_shape);
CAFLOW_REGISTER_OP("OneHot").input("indices: TI").input("depth: int32").input("on_value: T")
    .input("off_value: T").output("output: T").attr("axis: int = -1").attr("T: type")
    .attr("TI: {uint8, int32, int64} = int64").set_shape_fn(one_hot_shape);
CAFLOW_REGISTER_OP("Pack").input("values: N * T").output("output: T").attr("N: int >= 1")
    .attr("T: type").attr("axis: int = 0").set_shape_fn(pack_shape);
CAFLOW_REGISTER_OP("Unpack").input("value: T").output("output: num * T").attr("num: int >= 0")
    .attr("T: type").attr("axis: int = 0").set_shape_fn(unpack_shape);

}  // namespace caflow
