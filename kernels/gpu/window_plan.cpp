#include "kernels/gpu/window_plan.hpp"

#include <algorithm>

namespace caflow::gpu {

namespace {

// With `before` = the window's padding before the input and `after` the padding its last
// window reaches past the input (negative when trailing input is unused, by less than one
// stride), cuDNN pads both sides by p: its first window starts at -(p + extra_before), which
// must be -before, and its window count floor((in + extras + 2p - k) / stride) + 1 is the
// geometry's when the frame ends where the last window does, or less than a stride later.
dim_padding split_padding(int64_t in, int64_t window, int64_t stride, int64_t out, int64_t before) {
  const int64_t after = (out - 1) * stride + window - in - before;
  dim_padding d;
  d.cudnn = std::max<int64_t>(0, std::min(before, after));
  d.extra_before = before - d.cudnn;
  d.extra_after = std::max<int64_t>(0, after - d.cudnn);
  return d;
}

}  // namespace

window_plan plan_window(const conv2d_geometry& g) {
  window_plan p;
  p.rows = split_padding(g.in_rows, g.filter_rows, g.stride_rows, g.out_rows, g.pad_top);
  p.cols = split_padding(g.in_cols, g.filter_cols, g.stride_cols, g.out_cols, g.pad_left);
  p.input = {g.batch, g.in_rows, g.in_cols, g.in_depth};
  p.padded = {g.batch, g.in_rows + p.rows.extra_before + p.rows.extra_after,
              g.in_cols + p.cols.extra_before + p.cols.extra_after, g.in_depth};
  return p;
}

}  // namespace caflow::gpu
