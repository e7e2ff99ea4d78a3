#pragma once
// How a device whose threads each own one element applies row updates (Scatter*, SparseApply*,
// UnsortedSegmentSum) as the CPU kernels do: every destination row gets the updates that name
// it one after another, in index order. The plan groups the update positions by destination
// row, stably, so a thread per (row, column) runs its row's updates in that order: a repeated
// index gives the CPU's result bit for bit, with no atomics, in parallel over distinct rows.
// Made on the host from indices the kernel has already checked; one int64 array, so one copy
// takes it to the device.
#include <cstdint>
#include <span>
#include <vector>

namespace caflow {

struct row_scatter_plan {
  int64_t updates = 0;  // positions k of the indices kept (those >= 0)
  int64_t rows = 0;     // distinct destination rows
  // order[updates]: positions grouped by row, index order within a row | starts[rows + 1]: where
  // each row's positions begin in order | dest[rows]: the row.
  std::vector<int64_t> data;

  std::span<const int64_t> order() const { return {data.data(), static_cast<size_t>(updates)}; }
  std::span<const int64_t> starts() const {
    return {data.data() + updates, static_cast<size_t>(rows + 1)};
  }
  std::span<const int64_t> dest() const {
    return {data.data() + updates + rows + 1, static_cast<size_t>(rows)};
  }
};

// A negative index takes no row: its position is left out (UnsortedSegmentSum drops such rows,
// as TF does); `updates` counts the positions kept.
template <class Index>
row_scatter_plan plan_row_scatter(std::span<const Index> idx);

}  // namespace caflow
