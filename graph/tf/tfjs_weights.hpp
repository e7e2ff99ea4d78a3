#pragma once
// A TensorFlow.js weights manifest and the bytes of its shards, as caflow tensors.
//
// A graph model's model.json lists its weights in `weightsManifest`: groups, each with the
// shard files (`paths`) whose bytes, concatenated in order, hold the group's `weights` one after
// another with no padding, little-endian:
//   {"paths": ["group1-shard1of2.bin", ...],
//    "weights": [{"name": "conv/kernel", "shape": [3, 3, 3, 16], "dtype": "float32",
//                 "quantization": {"dtype": "uint8", "min": -0.5, "scale": 0.004}}, ...]}
// Stored dtypes (the quantization's when there is one, else the weight's): float32, int32
// (4 bytes), bool, uint8 (1 byte), uint16, float16 (2 bytes). Decoding follows TF.js
// (tfjs-core io/io_utils decodeWeights): a uint8/uint16-quantized float32 is
// float(q * scale + min) computed in double; a quantized int32 is that value rounded half up;
// float16 becomes float32 exactly. A bool weight is a byte, nonzero meaning true.
// String and complex weights have no caflow dtype and are refused naming the weight.
//
// This file parses and decodes; it reads no files (tfjs_model.hpp does), so that a fuzzer can
// reach all of it with bytes alone.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "graph/core/tensor.hpp"

namespace caflow::tf {

struct tfjs_quantization {
  std::string dtype;  // "uint8", "uint16" or "float16": how the values are stored
  double min = 0;     // uint8/uint16 only
  double scale = 1;   // uint8/uint16 only
  std::string original_dtype;  // informational; "" when absent
};

struct tfjs_weight_spec {
  std::string name;           // the Const node the weight fills
  std::vector<int64_t> shape;
  std::string dtype;          // the weight's dtype once decoded: "float32", "int32", "bool", ...
  std::optional<tfjs_quantization> quantization;

  // The dtype of the bytes in the shard ("uint8" for a uint8-quantized float32).
  const std::string& stored_dtype() const { return quantization ? quantization->dtype : dtype; }
};

struct tfjs_weight_group {
  std::vector<std::string> paths;  // shard files, relative to model.json's folder
  std::vector<tfjs_weight_spec> weights;
};

// Parses `manifest_json`, the JSON array of groups. Every error names `origin` (the model.json
// path) and the field: "m.json: weightsManifest[0].weights[3] ('conv/bias').shape[1]: expected
// a non-negative integer, got \"x\"". Unknown quantization or weight dtypes are errors here
// (string and complex ones are refused later, at decoding, naming the weight).
status_or<std::vector<tfjs_weight_group>> parse_weights_manifest(std::string_view manifest_json,
                                                                 const std::string& origin);

// One decoded weight: its name and tensor.
using tfjs_weight = std::pair<std::string, tensor>;

// Decodes `group`'s weights from `bytes`, the concatenation of its shards in order.
// `shard_sizes` are the sizes of those shards (summing to bytes.size()), used only to name the
// shards a weight runs past: "m.json: weight 'w' (float32 [3,4]) needs bytes [96, 96 + 12 x 4)
// of group 0, but its shards (g1.bin: 100 bytes) end at 100". Bytes left over after the last
// weight are an error too: the manifest and the shards disagree, so any offset may be wrong.
status_or<std::vector<tfjs_weight>> decode_weight_group(const tfjs_weight_group& group,
                                                        int group_index, std::string_view bytes,
                                                        const std::vector<size_t>& shard_sizes,
                                                        const std::string& origin);

}  // namespace caflow::tf
