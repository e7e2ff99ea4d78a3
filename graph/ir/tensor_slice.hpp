#pragma once
// Slices of a tensor as TensorFlow's checkpoints spell them (tensor_slice.h, the
// shape_and_slice strings of SaveV2/RestoreV2): a partitioned variable's shard is saved under
// the full variable's name with the full shape and the box the shard covers, so a checkpoint
// restores into any other partitioning of the same full tensor.
//
//   "10 4 0,4:-"    full shape [10,4]; rows [0,4), every column
//   "10 4 -:-"      full shape [10,4]; the whole tensor
//   ""              the whole tensor, whatever its shape
//
// The slice spec has one extent per dimension, separated by ':': "-" (all of it) or
// "start,length". A spec is canonical when written by format_shape_and_slice: a full extent
// prints as "-".
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "graph/core/shape.hpp"
#include "graph/core/status.hpp"
#include "graph/core/tensor.hpp"

namespace caflow {

// The node attr on a partitioned variable's shard (a VariableV2): list(string)
// {full variable name, shape_and_slice of the shard}, as TF's Variable.SaveSliceInfo. Set by
// train::create_partitioned_variable; read by the saver (to save the shard as a slice of the
// full variable) and by the console (to show the shards as one variable).
inline constexpr const char* save_slice_info_attr = "_save_slice_info";

// A box inside a tensor of shape `full`: dimension d covers [start[d], start[d] + length[d]).
struct tensor_slice {
  tensor_shape full;
  std::vector<int64_t> start;
  std::vector<int64_t> length;

  tensor_shape shape() const;  // the box's own shape
  int64_t num_elements() const { return shape().num_elements(); }
  bool covers_all() const;
  // "10 4 0,4:-"; "" for a scalar's whole.
  std::string to_string() const;
};

// The whole of a tensor of shape `full`.
tensor_slice whole_slice(const tensor_shape& full);
// Rows [offset, offset + rows) of `full` along dimension 0, every other dimension whole.
// REQUIRES: full.rank() >= 1 and the rows lie inside full.dim(0).
tensor_slice row_slice(const tensor_shape& full, int64_t offset, int64_t rows);

// Parses a non-empty shape_and_slice. Errors (invalid_argument) quote the text and say what is
// wrong: a bad number, extents that do not match the rank, or a box outside the full shape.
status_or<tensor_slice> parse_shape_and_slice(std::string_view text);

// The box both cover, if any element.
std::optional<tensor_slice> intersect(const tensor_slice& a, const tensor_slice& b);

// Copies the elements of box `part` from `src`, holding box `src_box`, into `dst`, holding box
// `dst_box`. REQUIRES: the same dtype, part inside both boxes, the tensors shaped as their boxes.
void copy_slice(const tensor& src, const tensor_slice& src_box, tensor& dst,
                const tensor_slice& dst_box, const tensor_slice& part);

}  // namespace caflow
