#pragma once
// Histograms as TensorFlow summarizes a tensor (tf.summary.histogram in TF 1.x): its default
// bucket limits grow by 10% from 1e-12 to 1e20 on each side of 0, closed by +-DBL_MAX, and the
// encoding merges every run of empty buckets into one, so a proto holds only what is populated.
#include <vector>

#include "graph/core/tensor.hpp"

namespace caflow::tfproto {
class HistogramProto;
}

namespace caflow::tf {

// The 1,551 limits, ascending: -DBL_MAX, -1e20-ish ... -1e-12, 0, 1e-12 ... , DBL_MAX.
const std::vector<double>& default_bucket_limits();

// The histogram of every element of `values` (any real or integer dtype; bool counts 0 and 1).
// NaNs are left out of the buckets, as TensorFlow's kernel refuses them; `nan_count` says how
// many there were.
void histogram_of(const tensor& values, tfproto::HistogramProto* out, int64_t* nan_count = nullptr);

}  // namespace caflow::tf
