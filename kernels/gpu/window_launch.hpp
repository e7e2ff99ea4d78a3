#pragma once
// Launchers for the cuDNN convolution and pooling kernels' helpers: copies of NHWC images into
// a larger (padded) frame and back out of it, a matrix transpose for filters, and the rescaling
// that turns cuDNN's average over a whole window into TensorFlow's average over the window's part
// inside the input. As gpu_launch.hpp: raw device pointers of the current GPU, queued on `stream`,
// errors from cudaGetLastError afterwards; sizes are element counts and REQUIRE >= 0.
#include <cuda_runtime_api.h>

#include <cstdint>

#include "kernels/gpu/nhwc_dims.hpp"

namespace caflow::gpu {

// out (`to`) = `in` (`from`) placed at row `top`, column `left`, every other pixel `fill`.
// REQUIRES the image to fit: top + from.rows <= to.rows, left + from.cols <= to.cols, same n
// and depth.
template <class T>
void launch_pad_nhwc(const T* in, nhwc_dims from, T* out, nhwc_dims to, int64_t top, int64_t left,
                     T fill, cudaStream_t stream);

// out (`to`) = the window of `in` (`from`) starting at row `top`, column `left`. REQUIRES the
// window inside: top + to.rows <= from.rows, left + to.cols <= from.cols, same n and depth.
template <class T>
void launch_crop_nhwc(const T* in, nhwc_dims from, T* out, nhwc_dims to, int64_t top, int64_t left,
                      cudaStream_t stream);

// out = the transpose of the row-major rows x cols matrix `in` (HWIO filters, read as
// [patch, out_depth], to cuDNN's out_depth-first order and back).
template <class T>
void launch_transpose(const T* in, int64_t rows, int64_t cols, T* out, cudaStream_t stream);

// A pooling window over an image of in_rows x in_cols: output (r, c) covers input rows
// [r * stride_rows - pad_top, + window_rows), clipped to the image, and likewise columns.
struct pool_window {
  int64_t in_rows = 0, in_cols = 0;
  int64_t window_rows = 1, window_cols = 1;
  int64_t stride_rows = 1, stride_cols = 1;
  int64_t pad_top = 0, pad_left = 0;
};

// out[i] = in[i] * window_area / (the window's pixels inside the image), over an NHWC batch of
// output positions `y`. in == out is allowed.
template <class T>
void launch_scale_to_inside_mean(const T* in, T* out, nhwc_dims y, const pool_window& w,
                                 cudaStream_t stream);

}  // namespace caflow::gpu
