#pragma once
// TensorBoard's Summary message, written and read in protobuf's wire format by the summary
// kernels. The kernels sit below the generated protobuf classes (graph/tf/proto), and a Summary
// is a short, fixed message, so its few fields are encoded here by number (TensorFlow's
// summary.proto and tensor.proto). A Summary is a list of Values, field 1, so the concatenation
// of serialized Summaries is their merge: MergeSummary only has to check them.
//
//   std::string s = summary_values::scalar("loss", 0.25f);
//   CAFLOW_ASSIGN_OR_RETURN(auto tags, summary_values::tags_of(s));  // {"loss"}
#include <string>
#include <string_view>
#include <vector>

#include "graph/core/tensor.hpp"
#include "graph/util/histogram.hpp"

namespace caflow::summary_values {

// A Summary holding one Value with `tag` and simple_value.
std::string scalar(std::string_view tag, float value);
// A Summary holding one Value with `tag` and histo.
std::string histogram_value(std::string_view tag, const histogram& h);
// A Summary holding one Value with `tag`, `metadata` (a serialized SummaryMetadata, may be
// empty) and `value` as a TensorProto (numbers in tensor_content, strings in string_val).
std::string tensor_value(std::string_view tag, std::string_view metadata, const tensor& value);
// A serialized SummaryMetadata with these fields (empty ones left out).
std::string metadata(std::string_view display_name, std::string_view description);

// The tags of a serialized Summary's Values, in order; DATA_LOSS when the bytes are not a
// Summary.
status_or<std::vector<std::string>> tags_of(std::string_view summary);

// TensorFlow's DataType number for `t` (types.proto).
int tf_data_type(dtype t);

}  // namespace caflow::summary_values
