#pragma once
// Histograms as TensorFlow summarizes a tensor (tf.summary.histogram in TF 1.x, the
// HistogramSummary kernel): its default bucket limits grow by 10% from 1e-12 to 1e20 on each
// side of 0, closed by +-DBL_MAX, and the encoding merges every run of empty buckets into one,
// so a histogram holds only what is populated. Shared by the summary kernels and the event
// writer, so that a histogram looks the same whichever of them made it.
#include <cstdint>
#include <vector>

#include "graph/core/tensor.hpp"

namespace caflow {

// The fields of TensorFlow's HistogramProto: bucket i counts values in
// [bucket_limit[i-1], bucket_limit[i]), the first from -DBL_MAX.
struct histogram {
  double min = 0, max = 0, num = 0, sum = 0, sum_squares = 0;
  std::vector<double> bucket_limit, bucket;
};

// The 1,551 limits, ascending: -DBL_MAX, -1e20-ish ... -1e-12, 0, 1e-12 ... , DBL_MAX.
const std::vector<double>& default_bucket_limits();

// The histogram of every element of `values` (any real or integer dtype; bool counts 0 and 1).
// NaNs are left out of the buckets; `nan_count` says how many there were (the summary kernel
// refuses them, as TensorFlow's does; the event writer counts them).
histogram histogram_of(const tensor& values, int64_t* nan_count = nullptr);

}  // namespace caflow
