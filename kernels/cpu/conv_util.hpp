#pragma once
// Shared by the three Conv2D kernels (conv_forward_kernel.cpp, conv_backprop_input_kernel.cpp,
// conv_backprop_filter_kernel.cpp). Each is "im2col + GEMM": the patches under a block of
// output positions are copied into a scratch matrix of [positions, filter_rows * filter_cols
// * in_depth] (the filter, HWIO, is already that matrix's partner [patch, out_depth]), and one
// Eigen matrix product per block does the arithmetic. Blocks are sized to a scratch budget so
// the patch matrix stays in cache, and each intra-op worker runs whole blocks (im2col and
// product) with its own scratch: no synchronisation inside a block.
#include <cstdint>
#include <functional>

#include <Eigen/Core>

#include "kernels/common/conv_checks.hpp"
#include "kernels/framework/op_kernel.hpp"

namespace caflow::conv {

// Scratch per worker for one block of patches. Measured with bench/conv2d_ms: large enough
// that the product amortises packing the filter, small enough to stay in L2.
inline constexpr int64_t scratch_budget_bytes = int64_t{1} << 20;

// Reads and checks Conv2D's attrs once (kernels/common/conv_checks.hpp).
class conv2d_kernel_base : public op_kernel {
 public:
  explicit conv2d_kernel_base(kernel_construction& c);

 protected:
  conv2d_params params_;
};

// A 1x1 filter with stride 1 and no padding: the input, as a [positions, in_depth] matrix, is
// already the patch matrix.
bool is_pointwise(const conv2d_geometry& g);

// Writes the patches of output positions [begin, end) (flat indices over batch, out_rows,
// out_cols) as rows of `cols`, each g.patch_size() long in (filter_row, filter_col, depth)
// order; taps in the padding are 0.
template <class T>
void im2col(const conv2d_geometry& g, const T* input, int64_t begin, int64_t end, T* cols);

// The adjoint of im2col: adds each row of `cols` (positions [begin, end)) onto the input
// elements its taps came from, in `input_grad` (NHWC, g's input shape). Taps in the padding
// are dropped.
template <class T>
void col2im_add(const conv2d_geometry& g, const T* cols, int64_t begin, int64_t end,
                T* input_grad);

// How `units` items of work are cut into tiles run by `shards` workers.
struct tiling {
  int64_t tile_units = 1;  // items per tile (the last tile may hold fewer)
  int64_t tiles = 0;
  int64_t shards = 1;  // workers running at once, each with its own scratch
};

// Tiles of at most scratch_budget_bytes of scratch (`unit_bytes` per item; at least one item
// per tile), several per intra-op thread so workers stay busy; one worker on the calling
// thread when the whole job (`unit_flops` per item) is too small to repay a hand-off.
tiling plan_tiles(const kernel_context& ctx, int64_t units, int64_t unit_bytes,
                  double unit_flops);

// Calls fn(shard, tile) once for every tile in [0, plan.tiles). Tiles are handed out in order
// to plan.shards workers as each finishes its last; `shard` in [0, plan.shards) names the
// worker, so it can own a slice of scratch. Returns when all tiles are done.
void run_tiles(const kernel_context& ctx, const tiling& plan,
               const std::function<void(int64_t shard, int64_t tile)>& fn);

// Row-major matrices over raw buffers, for the products.
template <class T>
using row_matrix = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
template <class T>
using matrix_map = Eigen::Map<row_matrix<T>>;
template <class T>
using const_matrix_map = Eigen::Map<const row_matrix<T>>;

}  // namespace caflow::conv
