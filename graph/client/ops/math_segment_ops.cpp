#include "graph/client/ops/math_segment_ops.hpp"

#include "graph/client/node_builder.hpp"

namespace caflow {
namespace ops {
namespace {

output segment(const scope& s, const char* op, const output& data, const output& ids) {
  return node_builder(s, op).input(data).input(ids).finalize().out();
}

}  // namespace

output segment_sum(const scope& s, const output& data, const output& segment_ids) {
  return segment(s, "SegmentSum", data, segment_ids);
}
output segment_mean(const scope& s, const output& data, const output& segment_ids) {
  return segment(s, "SegmentMean", data, segment_ids);
}
output segment_max(const scope& s, const output& data, const output& segment_ids) {
  return segment(s, "SegmentMax", data, segment_ids);
}
output segment_min(const scope& s, const output& data, const output& segment_ids) {
  return segment(s, "SegmentMin", data, segment_ids);
}

}  // namespace ops
}  // namespace caflow
