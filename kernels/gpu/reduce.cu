// Reductions over the middle dim of [outer, size, inner] views (Sum, Mean, Max, BiasAddGrad).
//
// Three shapes, three designs, each spreading the work over the whole GPU:
//   full   (outer == inner == 1): cub::DeviceReduce;
//   rows   (inner == 1): a block (or, for short rows, a warp) per row; few long rows are first
//          cut into chunks, a block each, whose partials a second pass reduces;
//   columns (inner > 1): 32 neighbouring columns per block, so every load is coalesced, and
//          the reduced dim cut into chunks when there are too few columns to fill the GPU.
//
// Determinism: no atomics. Every partition (chunks, blocks, the tree inside a block) depends
// only on the shape, so the order in which floats are added, and hence the result, is the same
// run to run. cub::DeviceReduce is run-to-run deterministic on a given GPU; its tile sizes
// depend on the architecture, so another kind of GPU may round a full Sum differently (as
// TensorFlow documents for its GPU reductions).
#include <cub/block/block_reduce.cuh>
#include <cub/device/device_reduce.cuh>
#include <cub/warp/warp_reduce.cuh>

#include <algorithm>
#include <climits>
#include <cstdint>

#include "kernels/gpu/gpu_launch.hpp"
#include "kernels/gpu/launch_config.cuh"

namespace caflow::gpu {

struct sum_r {
  template <class T>
  __host__ __device__ static T identity() { return T(0); }
  template <class T>
  __host__ __device__ T operator()(T a, T b) const { return a + b; }
};

// -inf for floats (a max of only -inf stays -inf), the lowest value for integers.
__host__ __device__ inline float lowest_of(float) { return -__builtin_huge_valf(); }
__host__ __device__ inline double lowest_of(double) { return -__builtin_huge_val(); }
__host__ __device__ inline int32_t lowest_of(int32_t) { return INT32_MIN; }
__host__ __device__ inline int64_t lowest_of(int64_t) { return INT64_MIN; }

struct max_r {
  template <class T>
  __host__ __device__ static T identity() { return lowest_of(T{}); }
  // NaN wins, whichever side it is on, so the result does not depend on the order.
  template <class T>
  __host__ __device__ T operator()(T a, T b) const { return a > b || a != a ? a : b; }
};

namespace {

constexpr int warp = 32;
// Rows up to this long get a warp each, longer ones a block.
constexpr int64_t warp_row_limit = 256;
// Fewer rows (columns) than this leave an H200's 132 SMs partly idle: cut the reduced dim.
constexpr int64_t blocks_to_fill = 1024;
// A chunk gives each of a block's threads at least this many elements to add.
constexpr int64_t min_row_chunk = threads_per_block * 16;
constexpr int column_tile_rows = threads_per_block / warp;  // 8
constexpr int64_t min_column_chunk = column_tile_rows * 8;

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

// One warp per row; rows_per_block rows in a block.
template <class R, class T>
__global__ void reduce_short_rows(const T* in, T* out, int64_t rows, int64_t size) {
  using warp_reduce = cub::WarpReduce<T>;
  __shared__ typename warp_reduce::TempStorage temp[threads_per_block / warp];
  const R r;
  const int lane = threadIdx.x % warp, w = threadIdx.x / warp;
  const int64_t row = static_cast<int64_t>(blockIdx.x) * (threads_per_block / warp) + w;
  if (row >= rows) return;  // whole warps leave together
  const T* p = in + row * size;
  T acc = R::template identity<T>();
  for (int64_t s = lane; s < size; s += warp) acc = r(acc, p[s]);
  acc = warp_reduce(temp[w]).Reduce(acc, r);
  if (lane == 0) out[row] = acc;
}

// Block b reduces chunk c = b % chunks, elements [c * chunk, (c + 1) * chunk), of row
// o = b / chunks into out[b]. With one chunk per row this is the plain block-per-row reduction.
template <class R, class T>
__global__ void reduce_row_chunks(const T* in, T* out, int64_t size, int64_t chunks, int64_t chunk) {
  using block_reduce = cub::BlockReduce<T, threads_per_block>;
  __shared__ typename block_reduce::TempStorage temp;
  const R r;
  const int64_t o = blockIdx.x / chunks, c = blockIdx.x % chunks;
  const T* row = in + o * size;
  const int64_t end = min(size, (c + 1) * chunk);
  T acc = R::template identity<T>();
  for (int64_t s = c * chunk + threadIdx.x; s < end; s += threads_per_block) acc = r(acc, row[s]);
  acc = block_reduce(temp).Reduce(acc, r);
  if (threadIdx.x == 0) out[blockIdx.x] = acc;
}

// Block (tile, c) covers 32 neighbouring columns of one outer slice: its threads (x: column,
// y: one of 8 lanes down the column) add rows [c * chunk, (c + 1) * chunk) of the slice with a
// stride of 8, then the 8 lane sums meet in shared memory, in a fixed order. Writes
// out[(o * gridDim.y + c) * inner + i].
template <class R, class T>
__global__ void reduce_column_chunks(const T* in, T* out, int64_t size, int64_t inner,
                                     int64_t tiles_per_slice, int64_t chunk) {
  __shared__ T lanes[column_tile_rows][warp + 1];  // +1: no bank conflicts on the final read
  const R r;
  const int64_t o = blockIdx.x / tiles_per_slice;
  const int64_t i = (blockIdx.x % tiles_per_slice) * warp + threadIdx.x;
  const int64_t c = blockIdx.y;
  T acc = R::template identity<T>();
  if (i < inner) {
    const T* p = in + o * size * inner + i;
    const int64_t end = min(size, (c + 1) * chunk);
    for (int64_t s = c * chunk + threadIdx.y; s < end; s += column_tile_rows) acc = r(acc, p[s * inner]);
  }
  lanes[threadIdx.y][threadIdx.x] = acc;
  __syncthreads();
  if (threadIdx.y == 0 && i < inner) {
    for (int y = 1; y < column_tile_rows; ++y) acc = r(acc, lanes[y][threadIdx.x]);
    out[(o * gridDim.y + c) * inner + i] = acc;
  }
}

template <class T>
__global__ void divide(T* out, int64_t n, T divisor) {
  CAFLOW_GRID_LOOP(i, n) out[i] = out[i] / divisor;
}

// How a pass is cut: chunks of the reduced dim per row (column), and what scratch the
// partials (or CUB) need.
struct reduce_plan {
  enum class kind { full, short_rows, rows, columns } how;
  int64_t chunks = 1, chunk = 0;
  size_t scratch_bytes = 0;
};

// CUB's index type is that of the count: 32-bit indices where they suffice, since its 64-bit
// index arithmetic can cost bandwidth on a memory-bound pass.
template <class R, class T>
cudaError_t full_reduce(void* scratch, size_t& bytes, const T* in, T* out, int64_t size,
                        cudaStream_t stream) {
  if (size <= INT_MAX)
    return cub::DeviceReduce::Reduce(scratch, bytes, in, out, static_cast<int>(size), R{},
                                     R::template identity<T>(), stream);
  return cub::DeviceReduce::Reduce(scratch, bytes, in, out, size, R{}, R::template identity<T>(),
                                   stream);
}

template <class R, class T>
reduce_plan plan_for(int64_t outer, int64_t size, int64_t inner) {
  reduce_plan p{};
  if (outer == 1 && inner == 1) {
    p.how = reduce_plan::kind::full;
    (void)full_reduce<R, T>(nullptr, p.scratch_bytes, static_cast<const T*>(nullptr),
                            static_cast<T*>(nullptr), size, nullptr);
    return p;
  }
  if (inner == 1) {
    if (size <= warp_row_limit) {
      p.how = reduce_plan::kind::short_rows;
      return p;
    }
    p.how = reduce_plan::kind::rows;
    if (outer < blocks_to_fill)
      p.chunks = std::min(ceil_div(blocks_to_fill, outer), std::max<int64_t>(1, size / min_row_chunk));
  } else {
    p.how = reduce_plan::kind::columns;
    const int64_t tiles = outer * ceil_div(inner, warp);
    if (tiles < blocks_to_fill)
      p.chunks = std::min<int64_t>({ceil_div(blocks_to_fill, tiles),
                                    std::max<int64_t>(1, size / min_column_chunk), 65535});
  }
  p.chunk = ceil_div(size, p.chunks);
  p.chunks = ceil_div(size, p.chunk);  // no empty chunk at the end
  if (p.chunks > 1) p.scratch_bytes = static_cast<size_t>(outer * p.chunks * inner) * sizeof(T);
  return p;
}

template <class R, class T>
void launch_columns(const T* in, T* out, int64_t outer, int64_t size, int64_t inner,
                    int64_t chunks, int64_t chunk, cudaStream_t stream) {
  const int64_t tiles = ceil_div(inner, warp);
  const dim3 grid(static_cast<unsigned>(outer * tiles), static_cast<unsigned>(chunks));
  reduce_column_chunks<R><<<grid, dim3(warp, column_tile_rows), 0, stream>>>(in, out, size, inner,
                                                                            tiles, chunk);
}

}  // namespace

template <class R, class T>
size_t reduce_scratch_bytes(int64_t outer, int64_t size, int64_t inner) {
  if (outer * inner == 0) return 0;
  return plan_for<R, T>(outer, size, inner).scratch_bytes;
}

template <class R, class T>
cudaError_t launch_reduce(const T* in, T* out, int64_t outer, int64_t size, int64_t inner,
                          void* scratch, size_t scratch_bytes, cudaStream_t stream) {
  if (outer * inner == 0) return cudaSuccess;
  const reduce_plan p = plan_for<R, T>(outer, size, inner);
  if (scratch_bytes < p.scratch_bytes) return cudaErrorInvalidValue;
  switch (p.how) {
    case reduce_plan::kind::full: {
      size_t bytes = p.scratch_bytes;
      return full_reduce<R, T>(scratch, bytes, in, out, size, stream);
    }
    case reduce_plan::kind::short_rows: {
      const int64_t blocks = ceil_div(outer, threads_per_block / warp);
      if (blocks > INT_MAX) return cudaErrorInvalidConfiguration;
      reduce_short_rows<R><<<static_cast<unsigned>(blocks), threads_per_block, 0, stream>>>(
          in, out, outer, size);
      return cudaSuccess;
    }
    case reduce_plan::kind::rows: {
      if (outer * p.chunks > INT_MAX) return cudaErrorInvalidConfiguration;
      T* partial = p.chunks > 1 ? static_cast<T*>(scratch) : out;
      reduce_row_chunks<R><<<static_cast<unsigned>(outer * p.chunks), threads_per_block, 0, stream>>>(
          in, partial, size, p.chunks, p.chunk);
      // The partials are [outer, chunks]: one block per row adds them up.
      if (p.chunks > 1)
        reduce_row_chunks<R><<<static_cast<unsigned>(outer), threads_per_block, 0, stream>>>(
            partial, out, p.chunks, 1, p.chunks);
      return cudaSuccess;
    }
    case reduce_plan::kind::columns: {
      if (outer * ceil_div(inner, warp) > INT_MAX) return cudaErrorInvalidConfiguration;
      T* partial = p.chunks > 1 ? static_cast<T*>(scratch) : out;
      launch_columns<R>(in, partial, outer, size, inner, p.chunks, p.chunk, stream);
      // The partials are [outer, chunks, inner]: one more column pass over chunks.
      if (p.chunks > 1) launch_columns<R>(partial, out, outer, p.chunks, inner, 1, p.chunks, stream);
      return cudaSuccess;
    }
  }
  return cudaErrorInvalidValue;
}

template <class T>
void launch_divide(T* out, int64_t n, T divisor, cudaStream_t stream) {
  if (n > 0) divide<<<blocks_for(n), threads_per_block, 0, stream>>>(out, n, divisor);
}

#define CAFLOW_REDUCE(R, T)                                                                   \
  template size_t reduce_scratch_bytes<R, T>(int64_t, int64_t, int64_t);                      \
  template cudaError_t launch_reduce<R, T>(const T*, T*, int64_t, int64_t, int64_t, void*,    \
                                           size_t, cudaStream_t);
#define CAFLOW_REDUCERS(T) CAFLOW_REDUCE(sum_r, T) CAFLOW_REDUCE(max_r, T) \
  template void launch_divide<T>(T*, int64_t, T, cudaStream_t);
CAFLOW_REDUCERS(float)
CAFLOW_REDUCERS(double)
CAFLOW_REDUCERS(int32_t)
CAFLOW_REDUCERS(int64_t)

}  // namespace caflow::gpu
