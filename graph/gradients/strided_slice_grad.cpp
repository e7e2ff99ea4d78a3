// Gradient of StridedSlice for the slices that read a contiguous box of the input (unit
// strides, or single elements): the gradient, given back the dims the slice shrank and
// without the ones it added, padded with zeros to the input's shape. TensorFlow's general
// StridedSliceGrad op does not exist here; other slices fail with `unimplemented`, naming why.
#include <array>

#include "graph/gradients/grad_util.hpp"
#include "graph/ops/array_index_util.hpp"
#include "graph/ops/array_ops.hpp"
#include "graph/ops/math_ops.hpp"
#include "graph/ops/shape_ops.hpp"

namespace caflow {
namespace {

// How one input dim is read: a box [begin, begin + count), or from `begin` to the end
// whatever the dim's size. `begin` and `count` must not depend on the size.
struct dim_read {
  bool to_end = false;
  int64_t begin = 0, count = 0;
};

// Two sizes no real dim has: a dim whose read comes out the same for both does not depend on
// its size, and one read as [b, size) for both is read to the end.
constexpr int64_t probe_a = int64_t{1} << 40, probe_b = probe_a + 3;

status_or<strided_slice_spec> resolve_with(const partial_shape& shape, int64_t probe,
                                           const std::vector<int64_t>& begin,
                                           const std::vector<int64_t>& end,
                                           const std::vector<int64_t>& strides,
                                           const strided_slice_masks& masks) {
  std::vector<int64_t> dims = shape.dim_vector();
  for (int64_t& d : dims)
    if (d < 0) d = probe;
  return resolve_strided_slice(partial_shape(dims), &begin, &end, strides, masks);
}

status_or<std::vector<dim_read>> dim_reads(const grad_op_info& op, const partial_shape& shape,
                                           const std::vector<int64_t>& begin,
                                           const std::vector<int64_t>& end,
                                           const std::vector<int64_t>& strides) {
  strided_slice_masks masks;
  CAFLOW_RETURN_IF_ERROR(op.get_attr("begin_mask", &masks.begin_mask));
  CAFLOW_RETURN_IF_ERROR(op.get_attr("end_mask", &masks.end_mask));
  CAFLOW_RETURN_IF_ERROR(op.get_attr("ellipsis_mask", &masks.ellipsis_mask));
  CAFLOW_RETURN_IF_ERROR(op.get_attr("new_axis_mask", &masks.new_axis_mask));
  CAFLOW_RETURN_IF_ERROR(op.get_attr("shrink_axis_mask", &masks.shrink_axis_mask));
  CAFLOW_ASSIGN_OR_RETURN(const auto a, resolve_with(shape, probe_a, begin, end, strides, masks));
  CAFLOW_ASSIGN_OR_RETURN(const auto b, resolve_with(shape, probe_b, begin, end, strides, masks));
  std::vector<dim_read> reads(static_cast<size_t>(shape.rank()));
  for (int d = 0; d < shape.rank(); ++d) {
    dim_read& r = reads[d];
    if (a.strides[d] == 1 && a.begin[d] == b.begin[d] && a.counts[d] == probe_a - a.begin[d] &&
        b.counts[d] == probe_b - b.begin[d]) {
      r.to_end = true;
      r.begin = a.begin[d];
    } else if (a.begin[d] == b.begin[d] && a.counts[d] == b.counts[d]) {
      // Nothing read: any begin will do, and 0 keeps the padding valid.
      r.begin = a.counts[d] == 0 ? 0 : a.begin[d];
      r.count = a.counts[d];
    } else {
      return errors::unimplemented("the gradient of StridedSlice needs the size of dimension ", d,
                                   " of its input ", shape.to_string(),
                                   ", unknown at graph construction, since the slice counts from "
                                   "its end");
    }
    if (r.to_end || r.count <= 1) continue;
    if (a.strides[d] != 1)
      return errors::unimplemented(
          "the gradient of StridedSlice is implemented for unit strides "
          "(or single elements) only; dimension ",
          d, " is read with stride ", a.strides[d]);
  }
  return reads;
}

status strided_slice_grad(const scope& s, const grad_op_info& op, const std::vector<output>& dy,
                          std::vector<output>* dx) {
  const output& x = op.inputs[0];
  const partial_shape shape = s.shape_of(x);
  const auto begin = s.constant_value(op.inputs[1]), end = s.constant_value(op.inputs[2]),
             strides = s.constant_value(op.inputs[3]);
  if (!begin || !end || !strides || !shape.rank_known())
    return errors::unimplemented(
        "the gradient of StridedSlice needs constant begin, end and strides and an input of "
        "known rank; this one has ",
        !begin || !end || !strides ? "bounds computed at run time" : "an input of unknown rank");
  CAFLOW_ASSIGN_OR_RETURN(
      const std::vector<dim_read> reads,
      dim_reads(op, shape, index_values(*begin), index_values(*end), index_values(*strides)));

  // The box read, as a shape: count, or size - begin for the dims read to the end.
  std::vector<int64_t> before, counts, to_end;
  bool any_to_end = false;
  for (const dim_read& r : reads) {
    before.push_back(r.begin);
    counts.push_back(r.to_end ? -r.begin : r.count);
    to_end.push_back(r.to_end ? 1 : 0);
    any_to_end = any_to_end || r.to_end;
  }
  output box = grad::index_vector(s, counts, dtype::int32);
  if (any_to_end)
    box = ops::add(s, ops::mul(s, ops::shape(s, x), grad::index_vector(s, to_end, dtype::int32)),
                   box);
  const output in_box = ops::reshape(s, dy[0], box);
  output padded;
  if (shape.fully_defined()) {
    std::vector<std::array<int64_t, 2>> paddings;
    for (int d = 0; d < shape.rank(); ++d)
      paddings.push_back({before[d], shape.dim(d) - before[d] - counts[d]});
    padded = ops::pad(s, in_box, paddings);
  } else {
    const output first = grad::index_vector(s, before, dtype::int32);
    const output after = ops::sub(s, ops::sub(s, ops::shape(s, x), first), box);
    padded = ops::pad(s, in_box, ops::pack(s, {first, after}, {.axis = 1}));
  }
  *dx = {padded, output{}, output{}, output{}};
  return {};
}

}  // namespace

CAFLOW_REGISTER_GRADIENT("StridedSlice", strided_slice_grad);

}  // namespace caflow
