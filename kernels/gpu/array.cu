// Select, AddN and Tile on the GPU: one launch each, so graphs that use them (dropout, gradient
// sums, the gradients of reductions) stay on the GPU instead of a round trip through the host.
#include "kernels/gpu/array_launch.hpp"
#include "kernels/gpu/launch_config.cuh"

namespace caflow::gpu {
namespace {

template <class T>
__global__ void select_kernel(const bool* cond, const T* t, const T* e, T* out, int64_t n,
                              int64_t per_cond) {
  CAFLOW_GRID_LOOP(i, n) { out[i] = cond[i / per_cond] ? t[i] : e[i]; }
}

template <class T>
__global__ void add_n_kernel(add_n_inputs<T> in, T* out, int64_t n, bool accumulate) {
  CAFLOW_GRID_LOOP(i, n) {
    T sum = accumulate ? out[i] : in.p[0][i];
    for (int k = accumulate ? 0 : 1; k < in.count; ++k) sum += in.p[k][i];
    out[i] = sum;
  }
}

template <class T>
__global__ void tile_kernel(const T* in, T* out, int64_t n, tile_dims d) {
  CAFLOW_GRID_LOOP(i, n) {
    int64_t rest = i, src = 0;
    for (int k = d.rank - 1; k >= 0; --k) {
      const int64_t coord = rest % d.out_dims[k];
      rest /= d.out_dims[k];
      src += (coord % d.in_dims[k]) * d.in_strides[k];
    }
    out[i] = in[src];
  }
}

}  // namespace

template <class T>
void launch_select(const bool* cond, const T* t, const T* e, T* out, int64_t n, int64_t per_cond,
                   cudaStream_t stream) {
  if (n == 0) return;
  select_kernel<T><<<blocks_for(n), threads_per_block, 0, stream>>>(cond, t, e, out, n, per_cond);
}

template <class T>
void launch_add_n(const add_n_inputs<T>& in, T* out, int64_t n, bool accumulate,
                  cudaStream_t stream) {
  if (n == 0) return;
  add_n_kernel<T><<<blocks_for(n), threads_per_block, 0, stream>>>(in, out, n, accumulate);
}

template <class T>
void launch_tile(const T* in, T* out, int64_t n, const tile_dims& d, cudaStream_t stream) {
  if (n == 0) return;
  tile_kernel<T><<<blocks_for(n), threads_per_block, 0, stream>>>(in, out, n, d);
}

#define CAFLOW_ARRAY_LAUNCHERS(T)                                                          \
  template void launch_select<T>(const bool*, const T*, const T*, T*, int64_t, int64_t,    \
                                 cudaStream_t);                                            \
  template void launch_add_n<T>(const add_n_inputs<T>&, T*, int64_t, bool, cudaStream_t); \
  template void launch_tile<T>(const T*, T*, int64_t, const tile_dims&, cudaStream_t);
CAFLOW_ARRAY_LAUNCHERS(float)
CAFLOW_ARRAY_LAUNCHERS(double)
CAFLOW_ARRAY_LAUNCHERS(int32_t)
CAFLOW_ARRAY_LAUNCHERS(int64_t)
#undef CAFLOW_ARRAY_LAUNCHERS

}  // namespace caflow::gpu
