#include "kernels/cpu/strided_slice_plan.hpp"

namespace caflow::array_kernels {
namespace {

template <class W>
void scatter_rows(const kernel_context& ctx, const strided_layout& l, const W* src, W* dst) {
  // The last dimension is the inner loop; the others are walked per row.
  const int outer_rank = l.rank - 1;
  const int64_t n = l.counts[outer_rank], step = l.steps[outer_rank];
  int64_t rows = 1;
  for (int k = 0; k < outer_rank; ++k) rows *= l.counts[k];
  parallel_for(ctx, rows, n * int64_t(sizeof(W)), [&](int64_t begin, int64_t end) {
    for (int64_t row = begin; row < end; ++row) {
      int64_t offset = 0;
      for (int64_t k = outer_rank - 1, r = row; k >= 0; --k) {
        offset += (r % l.counts[k]) * l.steps[k];
        r /= l.counts[k];
      }
      const W* s = src + row * n;
      W* d = dst + offset;
      if (step == 1) {
        std::memcpy(d, s, static_cast<size_t>(n) * sizeof(W));
      } else {
        for (int64_t j = 0; j < n; ++j) d[j * step] = s[j];
      }
    }
  });
}

}  // namespace

status read_strided_slice_masks(const kernel_construction& c, strided_slice_masks* masks) {
  CAFLOW_RETURN_IF_ERROR(c.get_attr("begin_mask", &masks->begin_mask));
  CAFLOW_RETURN_IF_ERROR(c.get_attr("end_mask", &masks->end_mask));
  CAFLOW_RETURN_IF_ERROR(c.get_attr("ellipsis_mask", &masks->ellipsis_mask));
  CAFLOW_RETURN_IF_ERROR(c.get_attr("new_axis_mask", &masks->new_axis_mask));
  return c.get_attr("shrink_axis_mask", &masks->shrink_axis_mask);
}

status_or<strided_slice_plan> plan_strided_slice(const tensor_shape& input, const tensor& begin,
                                                 const tensor& end, const tensor& strides,
                                                 const strided_slice_masks& masks) {
  const std::pair<const char*, const tensor*> args[] = {
      {"begin", &begin}, {"end", &end}, {"strides", &strides}};
  for (const auto& [name, t] : args)
    if (t->rank() != 1)
      return errors::invalid_argument(name, " must be a vector, got shape ",
                                      t->shape().to_string());
  const std::vector<int64_t> b = index_values(begin), e = index_values(end),
                             st = index_values(strides);
  CAFLOW_ASSIGN_OR_RETURN(const strided_slice_spec spec,
                          resolve_strided_slice(partial_shape(input), &b, &e, st, masks));
  strided_slice_plan plan;
  plan.final_shape = spec.final_shape.to_shape();
  const auto in_strides = row_strides(input);
  std::array<int64_t, max_rank> steps{};
  for (int i = 0; i < input.rank(); ++i) {
    steps[i] = spec.strides[i] * in_strides[i];
    plan.base += spec.begin[i] * in_strides[i];
  }
  plan.layout = strided_layout::make(spec.counts, std::span(steps.data(), input.rank()));
  return plan;
}

void scatter_strided(const kernel_context& ctx, const strided_layout& layout, const void* src,
                     void* dst, size_t elem_size) {
  if (layout.empty) return;
  if (layout.rank == 0) {
    std::memcpy(dst, src, elem_size);
    return;
  }
  with_word(elem_size, [&]<class W>() {
    scatter_rows(ctx, layout, static_cast<const W*>(src), static_cast<W*>(dst));
  });
}

}  // namespace caflow::array_kernels
