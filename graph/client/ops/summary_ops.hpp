#pragma once
// Summaries computed in a step, as TF 1.x's tf.summary ops: each returns a string scalar holding
// one serialized Summary protocol buffer; merge them into one and hand it to an event writer
// (tf::summary_writer::add_summary, graph/tf/summary_writer.hpp) with the step.
//
//   auto loss_s = ops::scalar_summary(root, ops::string_constant(root, "loss"), loss);
//   auto w_s = ops::histogram_summary(root, ops::string_constant(root, "w"), w);
//   auto merged = ops::merge_summary(root, {loss_s, w_s});
//   // run `merged` with the step, then writer->add_summary(result.string_at(0), step)
#include <string>
#include <vector>

#include "graph/client/scope.hpp"

namespace caflow::ops {

// ScalarSummary: one simple_value per element of `values` (a real or integer tensor), tagged
// by the element of `tags` (a string tensor of the same shape) at the same index.
output scalar_summary(const scope& s, const output& tags, const output& values);

// HistogramSummary: the histogram of every element of `values` with TensorFlow's default
// buckets; a NaN or infinity fails the step naming the tag.
output histogram_summary(const scope& s, const output& tag, const output& values);

// TensorSummaryV2: `tensor` itself (any dtype) as a TensorProto, with `serialized_metadata`
// (a serialized SummaryMetadata; an empty string for none).
output tensor_summary(const scope& s, const output& tag, const output& tensor,
                      const output& serialized_metadata);

// MergeSummary: the union of the Values of `inputs`; a tag found twice fails the step.
output merge_summary(const scope& s, const std::vector<output>& inputs);

}  // namespace caflow::ops
