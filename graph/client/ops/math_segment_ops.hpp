#pragma once
// Sorted segment reductions, TensorFlow's SegmentSum, SegmentMean, SegmentMax and SegmentMin:
// output[i, ...] reduces the rows data[j, ...] with segment_ids[j] == i. segment_ids is a
// vector as long as data's first dimension, sorted ascending and non-negative (the kernel
// checks both, naming the first offending position); the output has segment_ids[-1] + 1 rows,
// and a segment no id names gives 0. Kernels in kernels/cpu/segment_reduction_kernels.cpp.
#include "graph/client/scope.hpp"

namespace caflow::ops {

output segment_sum(const scope& s, const output& data, const output& segment_ids);
output segment_mean(const scope& s, const output& data, const output& segment_ids);
output segment_max(const scope& s, const output& data, const output& segment_ids);
output segment_min(const scope& s, const output& data, const output& segment_ids);

}  // namespace caflow::ops
