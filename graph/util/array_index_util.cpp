#include "graph/util/array_index_util.hpp"

#include <algorithm>
#include <cassert>

namespace caflow {

std::vector<int64_t> index_values(const tensor& t) {
  assert(t.type() == dtype::int32 || t.type() == dtype::int64);
  if (t.type() == dtype::int32) {
    const int32_t* p = t.data<int32_t>();
    return std::vector<int64_t>(p, p + t.num_elements());
  }
  return t.to_vector<int64_t>();
}

status_or<int> canonical_axis(int64_t axis, int rank, const char* what) {
  if (axis < -rank || axis >= rank)
    return errors::invalid_argument(what, " ", axis, " is out of range [", -rank, ", ", rank,
                                    ") for a tensor of rank ", rank);
  return static_cast<int>(axis < 0 ? axis + rank : axis);
}

status check_permutation(const std::vector<int64_t>& perm, int rank) {
  if (static_cast<int64_t>(perm.size()) != rank)
    return errors::invalid_argument("perm ", format_dims(perm), " has ", perm.size(),
                                    " entries but the input has rank ", rank);
  std::vector<bool> seen(perm.size(), false);
  for (int64_t p : perm) {
    if (p < 0 || p >= rank || seen[p])
      return errors::invalid_argument("perm ", format_dims(perm), " is not a permutation of 0..",
                                      rank - 1);
    seen[p] = true;
  }
  return {};
}

namespace {

// Where each output dimension comes from: an input dimension, or one of these markers.
constexpr int64_t new_axis_dim = -1;
constexpr int64_t shrunk_dim = -2;

// The most slice entries a mask can address (TensorFlow's masks are 32-bit ints).
constexpr int max_slice_entries = 32;

bool bit(int64_t mask, int i) { return ((mask >> i) & 1) != 0; }

struct dense_entry {
  int64_t begin = 0, end = 0, stride = 1;
  bool begin_masked = false, end_masked = false, shrink = false;
};

status check_masks(const strided_slice_masks& m) {
  const std::pair<const char*, int64_t> masks[] = {{"begin_mask", m.begin_mask},
                                                   {"end_mask", m.end_mask},
                                                   {"ellipsis_mask", m.ellipsis_mask},
                                                   {"new_axis_mask", m.new_axis_mask},
                                                   {"shrink_axis_mask", m.shrink_axis_mask}};
  for (const auto& [name, value] : masks)
    if (value < 0 || value >= (int64_t{1} << max_slice_entries))
      return errors::invalid_argument(name, " ", value, " is not a 32-bit bit mask");
  if ((m.ellipsis_mask & (m.ellipsis_mask - 1)) != 0)
    return errors::unimplemented("ellipsis_mask ", m.ellipsis_mask,
                                 " has more than one bit set; only a single ellipsis is "
                                 "supported");
  return {};
}

// Expands the ellipsis and new axes: one entry per input dimension, plus where each output
// dimension comes from.
status build_dense_spec(int dense_dims, const std::vector<int64_t>* begin,
                        const std::vector<int64_t>* end, const std::vector<int64_t>& strides,
                        const strided_slice_masks& m, std::vector<dense_entry>& dense,
                        std::vector<int64_t>& sources) {
  const int sparse_dims = static_cast<int>(strides.size());
  int64_t ellipsis_mask = m.ellipsis_mask;
  int new_axes_after_ellipsis = 0;
  bool ellipsis_seen = false;
  for (int i = 0; i < sparse_dims; ++i) {
    if (ellipsis_seen && bit(m.new_axis_mask, i)) ++new_axes_after_ellipsis;
    if (bit(ellipsis_mask, i)) ellipsis_seen = true;
  }
  // Without an ellipsis, the entries address the leading dimensions and the rest is taken
  // whole, as if "..." followed them.
  int total = sparse_dims;
  if (!ellipsis_seen) ellipsis_mask |= int64_t{1} << total++;

  dense.assign(dense_dims, dense_entry{});
  int full = 0;
  for (int i = 0; i < total; ++i) {
    if (bit(ellipsis_mask, i)) {
      const int next = std::min(dense_dims - (total - i) + 1 + new_axes_after_ellipsis, dense_dims);
      for (; full < next; ++full) {
        dense[full].begin_masked = dense[full].end_masked = true;
        sources.push_back(full);
      }
    } else if (bit(m.new_axis_mask, i)) {
      sources.push_back(new_axis_dim);
    } else {
      if (full == dense_dims)
        return errors::invalid_argument("slice entry ", i, " addresses dimension ", full,
                                        " but the input has only ", dense_dims, " dimensions");
      dense_entry& d = dense[full];
      if (begin) d.begin = (*begin)[i];
      if (end) d.end = (*end)[i];
      d.stride = strides[i];
      d.begin_masked = bit(m.begin_mask, i);
      d.end_masked = bit(m.end_mask, i);
      d.shrink = bit(m.shrink_axis_mask, i);
      sources.push_back(d.shrink ? shrunk_dim : full);
      ++full;
    }
  }
  return {};
}

}  // namespace

status_or<strided_slice_spec> resolve_strided_slice(const partial_shape& input,
                                                    const std::vector<int64_t>* begin,
                                                    const std::vector<int64_t>* end,
                                                    const std::vector<int64_t>& strides,
                                                    const strided_slice_masks& masks) {
  assert(input.rank_known());
  if ((begin && begin->size() != strides.size()) || (end && end->size() != strides.size()))
    return errors::invalid_argument("begin, end and strides must have the same length, got begin ",
                                    begin ? format_dims(*begin) : "<unknown>", ", end ",
                                    end ? format_dims(*end) : "<unknown>", ", strides ",
                                    format_dims(strides));
  if (strides.size() > static_cast<size_t>(max_slice_entries))
    return errors::invalid_argument("a slice has at most ", max_slice_entries, " entries, got ",
                                    strides.size());
  CAFLOW_RETURN_IF_ERROR(check_masks(masks));

  const int rank = input.rank();
  std::vector<dense_entry> dense;
  std::vector<int64_t> sources;
  CAFLOW_RETURN_IF_ERROR(build_dense_spec(rank, begin, end, strides, masks, dense, sources));

  strided_slice_spec spec;
  spec.begin.assign(rank, 0);
  spec.strides.assign(rank, 1);
  spec.counts.assign(rank, -1);
  const bool bounds_known = begin != nullptr && end != nullptr;
  for (int i = 0; i < rank; ++i) {
    const dense_entry& d = dense[i];
    const int64_t dim = input.dim(i);
    const int64_t stride = d.stride;
    if (stride == 0) return errors::invalid_argument("stride of dimension ", i, " is 0");
    if (d.shrink && stride < 0)
      return errors::invalid_argument("dimension ", i, " is indexed (shrink_axis_mask) with ",
                                      "stride ", stride, "; indexing needs a positive stride");
    spec.strides[i] = stride;
    if (dim < 0) {
      spec.counts[i] = d.shrink ? 1 : -1;
      continue;
    }
    // Valid positions of the first element and one past the last: [0, dim] going forward,
    // [-1, dim - 1] going backward.
    const int64_t lo = stride > 0 ? 0 : -1;
    const int64_t hi = stride > 0 ? dim : dim - 1;
    int64_t b = 0, e = 0;
    bool interval_known = false;
    if (bounds_known) {
      if (d.shrink) {
        b = d.begin < 0 ? d.begin + dim : d.begin;
        if (b < 0 || b >= dim)
          return errors::invalid_argument("index ", d.begin, " is out of bounds for dimension ", i,
                                          " of size ", dim);
        e = b + 1;
      } else {
        auto bound = [&](int64_t x, bool masked, bool is_begin) {
          if (masked) return (stride > 0) == is_begin ? lo : hi;
          const int64_t fwd = x < 0 ? x + dim : x;
          return std::clamp(fwd, lo, hi);
        };
        b = bound(d.begin, d.begin_masked, true);
        e = bound(d.end, d.end_masked, false);
      }
      interval_known = true;
    } else if (d.shrink) {
      b = 0;
      e = 1;
      interval_known = true;
    } else if (d.begin_masked && d.end_masked) {
      b = stride > 0 ? lo : hi;
      e = stride > 0 ? hi : lo;
      interval_known = true;
    }
    if (!interval_known) continue;
    const int64_t length = e - b;
    int64_t count = 0;
    if (length != 0 && (length < 0) == (stride < 0))
      count = length / stride + (length % stride != 0 ? 1 : 0);
    spec.begin[i] = b;
    spec.counts[i] = count;
  }

  std::vector<int64_t> final_dims;
  for (int64_t s : sources) {
    if (s == shrunk_dim) continue;
    final_dims.push_back(s == new_axis_dim ? 1 : spec.counts[s]);
  }
  if (final_dims.size() > static_cast<size_t>(max_rank))
    return errors::invalid_argument("the slice has rank ", final_dims.size(),
                                    ", more than the maximum rank ", max_rank);
  spec.final_shape = partial_shape(final_dims);
  return spec;
}

}  // namespace caflow
