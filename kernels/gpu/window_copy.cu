// Padding copies, crops, transposes and the average-pool rescaling of window_launch.hpp. One thread
// per output element, depth innermost, so neighbouring threads touch neighbouring addresses.
#include "kernels/gpu/launch_config.cuh"
#include "kernels/gpu/window_launch.hpp"

namespace caflow::gpu {

namespace {

template <class T>
__global__ void pad_nhwc(const T* in, nhwc_dims from, T* out, nhwc_dims to, int64_t top,
                         int64_t left, T fill, int64_t n) {
  CAFLOW_GRID_LOOP(i, n) {
    const int64_t c = i % to.depth;
    int64_t rest = i / to.depth;
    const int64_t col = rest % to.cols - left;
    rest /= to.cols;
    const int64_t row = rest % to.rows - top;
    const int64_t image = rest / to.rows;
    const bool inside = row >= 0 && row < from.rows && col >= 0 && col < from.cols;
    out[i] = inside ? in[((image * from.rows + row) * from.cols + col) * from.depth + c] : fill;
  }
}

template <class T>
__global__ void crop_nhwc(const T* in, nhwc_dims from, T* out, nhwc_dims to, int64_t top,
                          int64_t left, int64_t n) {
  CAFLOW_GRID_LOOP(i, n) {
    const int64_t c = i % to.depth;
    int64_t rest = i / to.depth;
    const int64_t col = rest % to.cols + left;
    rest /= to.cols;
    const int64_t row = rest % to.rows + top;
    const int64_t image = rest / to.rows;
    out[i] = in[((image * from.rows + row) * from.cols + col) * from.depth + c];
  }
}

// Reads are coalesced (threads walk `in` in order); the writes stride by `rows`, which is
// fine for filters of a few hundred thousand elements.
template <class T>
__global__ void transpose(const T* in, int64_t rows, int64_t cols, T* out, int64_t n) {
  CAFLOW_GRID_LOOP(i, n) out[(i % cols) * rows + i / cols] = in[i];
}

__device__ inline int64_t inside_count(int64_t start, int64_t window, int64_t size) {
  const int64_t begin = start < 0 ? 0 : start;
  const int64_t end = start + window < size ? start + window : size;
  return end > begin ? end - begin : 0;
}

template <class T>
__global__ void scale_to_inside_mean(const T* in, T* out, nhwc_dims y, pool_window w, int64_t n) {
  CAFLOW_GRID_LOOP(i, n) {
    const int64_t rest = i / y.depth;
    const int64_t col = rest % y.cols;
    const int64_t row = rest / y.cols % y.rows;
    const int64_t count = inside_count(row * w.stride_rows - w.pad_top, w.window_rows, w.in_rows) *
                          inside_count(col * w.stride_cols - w.pad_left, w.window_cols, w.in_cols);
    // A window wholly in the padding (impossible for SAME and VALID) averages nothing.
    out[i] = count > 0
                 ? in[i] * (static_cast<T>(w.window_rows * w.window_cols) / static_cast<T>(count))
                 : T(0);
  }
}

}  // namespace

template <class T>
void launch_pad_nhwc(const T* in, nhwc_dims from, T* out, nhwc_dims to, int64_t top, int64_t left,
                     T fill, cudaStream_t stream) {
  const int64_t n = to.elements();
  if (n == 0) return;
  pad_nhwc<T>
      <<<blocks_for(n), threads_per_block, 0, stream>>>(in, from, out, to, top, left, fill, n);
}

template <class T>
void launch_crop_nhwc(const T* in, nhwc_dims from, T* out, nhwc_dims to, int64_t top, int64_t left,
                      cudaStream_t stream) {
  const int64_t n = to.elements();
  if (n == 0) return;
  crop_nhwc<T><<<blocks_for(n), threads_per_block, 0, stream>>>(in, from, out, to, top, left, n);
}

template <class T>
void launch_transpose(const T* in, int64_t rows, int64_t cols, T* out, cudaStream_t stream) {
  const int64_t n = rows * cols;
  if (n == 0) return;
  transpose<T><<<blocks_for(n), threads_per_block, 0, stream>>>(in, rows, cols, out, n);
}

template <class T>
void launch_scale_to_inside_mean(const T* in, T* out, nhwc_dims y, const pool_window& w,
                                 cudaStream_t stream) {
  const int64_t n = y.elements();
  if (n == 0) return;
  scale_to_inside_mean<T><<<blocks_for(n), threads_per_block, 0, stream>>>(in, out, y, w, n);
}

template void launch_pad_nhwc<float>(const float*, nhwc_dims, float*, nhwc_dims, int64_t, int64_t,
                                     float, cudaStream_t);
template void launch_crop_nhwc<float>(const float*, nhwc_dims, float*, nhwc_dims, int64_t, int64_t,
                                      cudaStream_t);
template void launch_transpose<float>(const float*, int64_t, int64_t, float*, cudaStream_t);
template void launch_scale_to_inside_mean<float>(const float*, float*, nhwc_dims,
                                                 const pool_window&, cudaStream_t);

}  // namespace caflow::gpu
