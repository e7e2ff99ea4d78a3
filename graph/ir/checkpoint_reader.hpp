#pragma once
// Reads tensors back from the files of a checkpoint, as TensorFlow's tensor slice reader does
// (RestoreSlice, RestoreV2 with shape_and_slices): a tensor is found by name in whichever file
// holds it, and a box of it is assembled from every saved slice that overlaps the box. So a
// variable saved as 3 shards over 2 ps tasks restores into 2 shards, into 1 unpartitioned
// variable, and back; each new shard reads exactly its rows.
//
//   CAFLOW_ASSIGN_OR_RETURN(auto reader, checkpoint_reader::open({"/d/ckpt-5.shard-0-of-2",
//                                                                 "/d/ckpt-5.shard-1-of-2"}));
//   auto rows = reader.lookup("emb", "10 4 0,5:-", dtype::float32);   // rows [0,5): [5,4]
//   auto all = reader.lookup("emb", "", dtype::float32);              // the whole [10,4]
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "graph/ir/tensor_slice.hpp"

namespace caflow {

class checkpoint_reader {
 public:
  // Reads every file whole (checkpoint::read_tensors). Errors name the file: those of
  // read_tensors; data_loss for an entry key whose slice spec does not parse, a slice whose
  // tensor is not shaped as its box, and entries of one tensor that overlap or disagree on
  // dtype or full shape. The tensors' bytes come from `alloc`: a kernel passes its device's,
  // so that a restore reuses the blocks the values it replaces go back to (from the heap, a
  // ps kept each restore's few MB as high-water after the old values were freed).
  static status_or<checkpoint_reader> open(
      const std::vector<std::string>& paths,
      const std::shared_ptr<allocator>& alloc = default_allocator());

  // Tensor `name` whole (`shape_and_slice` empty) or its box `shape_and_slice`, of dtype
  // `type`. Errors name the tensor and the files: not_found when no file holds it;
  // invalid_argument for a malformed `shape_and_slice`, another dtype, or another full shape
  // than the one asked for (both shapes named); data_loss when the saved slices leave part of
  // the box uncovered.
  status_or<tensor> lookup(const std::string& name, std::string_view shape_and_slice,
                           dtype type) const;

 private:
  struct entry {
    std::string file;
    tensor value;
    tensor_slice box;  // where `value` lies in the full tensor
    bool sliced = false;
  };
  status add(const std::string& file, std::string_view key, tensor value);

  std::string where_;  // "checkpoint file 'a'" or "checkpoint files 'a', 'b'"
  bool plural_ = false;
  std::map<std::string, std::vector<entry>, std::less<>> entries_;
};

}  // namespace caflow
