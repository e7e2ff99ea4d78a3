#pragma once
// Launchers of the GPU's Select, AddN and Tile (array.cu); array_kernels.cpp checks the inputs
// as the CPU kernels do and calls them. REQUIRES device pointers of the current GPU; n >= 0.
#include <cuda_runtime_api.h>

#include <cstdint>

namespace caflow::gpu {

inline constexpr int max_tile_rank = 8;
inline constexpr int max_add_n_inputs = 8;

// out[i] = cond[i / per_cond] ? t[i] : e[i]: per element (per_cond 1), per row, or one
// condition for all (per_cond n).
template <class T>
void launch_select(const bool* cond, const T* t, const T* e, T* out, int64_t n, int64_t per_cond,
                   cudaStream_t stream);

// Up to max_add_n_inputs addends, passed by value; `accumulate` adds them to out's values.
template <class T>
struct add_n_inputs {
  const T* p[max_add_n_inputs] = {};
  int count = 0;
};
template <class T>
void launch_add_n(const add_n_inputs<T>& in, T* out, int64_t n, bool accumulate,
                  cudaStream_t stream);

// Row-major dims of the input and output (output dim k = input dim k * multiple k) and the
// input's element strides.
struct tile_dims {
  int rank = 0;
  int64_t in_dims[max_tile_rank] = {};
  int64_t out_dims[max_tile_rank] = {};
  int64_t in_strides[max_tile_rank] = {};
};
template <class T>
void launch_tile(const T* in, T* out, int64_t n, const tile_dims& d, cudaStream_t stream);

}  // namespace caflow::gpu
