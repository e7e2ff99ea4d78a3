// The TF.js weights manifest: parsing, each stored dtype's decoding (as TF.js decodes it), and
// the errors for manifests and shards that disagree.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "graph/tf/tfjs_weights.hpp"

using namespace caflow;
using namespace caflow::tf;

namespace {

template <class T>
std::string bytes_of(const std::vector<T>& v) {
  std::string out(v.size() * sizeof(T), '\0');
  if (!v.empty()) std::memcpy(out.data(), v.data(), out.size());
  return out;
}

tfjs_weight_group parse_one(const std::string& manifest) {
  auto groups = parse_weights_manifest(manifest, "m.json");
  REQUIRE_MESSAGE(groups.ok(), groups.get_status().to_string());
  REQUIRE(groups->size() == 1);
  return groups->front();
}

status_or<std::vector<tfjs_weight>> decode(const std::string& manifest, const std::string& bytes) {
  return decode_weight_group(parse_one(manifest), 0, bytes, {bytes.size()}, "m.json");
}

std::string error_of(const status_or<std::vector<tfjs_weight_group>>& r) {
  REQUIRE_FALSE(r.ok());
  return r.get_status().message();
}

}  // namespace

TEST_CASE("a manifest's groups, paths and weight specs are read as written") {
  auto groups = parse_weights_manifest(
      R"([{"paths": ["a.bin", "b.bin"], "weights": [
            {"name": "w", "shape": [2, 3], "dtype": "float32"},
            {"name": "q", "shape": [4], "dtype": "float32",
             "quantization": {"dtype": "uint8", "min": -1.5, "scale": 0.25, "original_dtype": "float32"}}]},
          {"paths": ["c.bin"], "weights": [{"name": "s", "shape": [], "dtype": "int32"}]}])",
      "m.json");
  REQUIRE_MESSAGE(groups.ok(), groups.get_status().to_string());
  REQUIRE(groups->size() == 2);
  const auto& g = (*groups)[0];
  CHECK(g.paths == std::vector<std::string>{"a.bin", "b.bin"});
  REQUIRE(g.weights.size() == 2);
  CHECK(g.weights[0].name == "w");
  CHECK(g.weights[0].shape == std::vector<int64_t>{2, 3});
  CHECK(g.weights[0].stored_dtype() == "float32");
  REQUIRE(g.weights[1].quantization.has_value());
  CHECK(g.weights[1].stored_dtype() == "uint8");
  CHECK(g.weights[1].quantization->min == -1.5);
  CHECK(g.weights[1].quantization->scale == 0.25);
  CHECK(g.weights[1].quantization->original_dtype == "float32");
  CHECK((*groups)[1].weights[0].shape.empty());
}

TEST_CASE("weights are laid out one after another and decode to caflow tensors") {
  std::string bytes = bytes_of(std::vector<float>{1.5f, -2, 3.25f, 4, 5, 6});
  bytes += bytes_of(std::vector<int32_t>{7, -8});
  bytes += std::string("\x01\x00\x02", 3);
  auto w = decode(R"([{"paths": ["a.bin"], "weights": [
      {"name": "f", "shape": [2, 3], "dtype": "float32"},
      {"name": "i", "shape": [2], "dtype": "int32"},
      {"name": "b", "shape": [3], "dtype": "bool"}]}])",
                  bytes);
  REQUIRE_MESSAGE(w.ok(), w.get_status().to_string());
  REQUIRE(w->size() == 3);
  CHECK((*w)[0].first == "f");
  CHECK((*w)[0].second.equals(tensor::from_vector<float>({1.5f, -2, 3.25f, 4, 5, 6}, {2, 3})));
  CHECK((*w)[1].second.equals(tensor::from_vector<int32_t>({7, -8})));
  CHECK((*w)[2].second.equals(tensor::from_vector<bool>({true, false, true})));
}

TEST_CASE("uint8 and uint16 quantized floats are q * scale + min, float16 is exact") {
  std::string bytes = bytes_of(std::vector<uint8_t>{0, 1, 255});
  bytes += bytes_of(std::vector<uint16_t>{0, 1000, 65535});
  // float16 bits: 1.0, -2.0, 65504 (the largest), 2^-24 (the smallest subnormal), -0.0
  bytes += bytes_of(std::vector<uint16_t>{0x3c00, 0xc000, 0x7bff, 0x0001, 0x8000});
  auto w = decode(R"([{"paths": ["a.bin"], "weights": [
      {"name": "u8", "shape": [3], "dtype": "float32",
       "quantization": {"dtype": "uint8", "min": -0.5, "scale": 0.1}},
      {"name": "u16", "shape": [3], "dtype": "float32",
       "quantization": {"dtype": "uint16", "min": 2, "scale": 0.001}},
      {"name": "h", "shape": [5], "dtype": "float32", "quantization": {"dtype": "float16"}}]}])",
                  bytes);
  REQUIRE_MESSAGE(w.ok(), w.get_status().to_string());
  // Computed in double and rounded once to float, as TF.js writes a double into a Float32Array.
  CHECK((*w)[0].second.to_vector<float>() ==
        std::vector<float>{static_cast<float>(-0.5), static_cast<float>(1 * 0.1 - 0.5),
                           static_cast<float>(255 * 0.1 - 0.5)});
  CHECK((*w)[1].second.to_vector<float>() ==
        std::vector<float>{2.0f, static_cast<float>(1000 * 0.001 + 2),
                           static_cast<float>(65535 * 0.001 + 2)});
  const auto h = (*w)[2].second.to_vector<float>();
  CHECK(h[0] == 1.0f);
  CHECK(h[1] == -2.0f);
  CHECK(h[2] == 65504.0f);
  CHECK(h[3] == 5.9604644775390625e-08f);
  CHECK(h[4] == 0.0f);
  CHECK(std::signbit(h[4]));
}

TEST_CASE("quantized int32 weights round half up, as JavaScript's Math.round") {
  auto w = decode(R"([{"paths": ["a.bin"], "weights": [
      {"name": "i", "shape": [4], "dtype": "int32",
       "quantization": {"dtype": "uint8", "min": -2, "scale": 0.5}}]}])",
                  bytes_of(std::vector<uint8_t>{0, 1, 3, 9}));
  REQUIRE_MESSAGE(w.ok(), w.get_status().to_string());
  // -2, -1.5 -> -1, -0.5 -> 0, 2.5 -> 3
  CHECK((*w)[0].second.to_vector<int32_t>() == std::vector<int32_t>{-2, -1, 0, 3});
}

TEST_CASE("shards shorter or longer than the manifest says are errors naming weight and shard") {
  const std::string manifest = R"([{"paths": ["g1.bin"], "weights": [
      {"name": "a", "shape": [2], "dtype": "float32"},
      {"name": "conv/kernel", "shape": [3, 2], "dtype": "float32"}]}])";
  auto short_shard = decode(manifest, std::string(20, '\0'));
  REQUIRE_FALSE(short_shard.ok());
  CHECK(short_shard.get_status().code() == error_code::invalid_argument);
  const std::string msg = short_shard.get_status().message();
  CHECK(msg.find("m.json: weight 'conv/kernel'") == 0);
  CHECK(msg.find("float32 [3,2]") != std::string::npos);
  CHECK(msg.find("g1.bin: 20 bytes") != std::string::npos);

  auto long_shard = decode(manifest, std::string(33, '\0'));
  REQUIRE_FALSE(long_shard.ok());
  CHECK(long_shard.get_status().message() ==
        "m.json: weightsManifest[0]: its weights take 32 bytes, but its shards (g1.bin: 33 bytes) hold 33");
}

TEST_CASE("a huge shape is refused against the bytes, without allocating it") {
  auto w = decode(R"([{"paths": ["a.bin"], "weights": [
      {"name": "big", "shape": [1000000000, 1000000000], "dtype": "float32"}]}])",
                  std::string(8, '\0'));
  REQUIRE_FALSE(w.ok());
  CHECK(w.get_status().message().find("weight 'big'") != std::string::npos);
}

TEST_CASE("string and complex weights are refused by name") {
  auto w = decode(R"([{"paths": ["a.bin"], "weights": [{"name": "labels", "shape": [2], "dtype": "string"}]}])",
                  std::string(8, '\0'));
  REQUIRE_FALSE(w.ok());
  CHECK(w.get_status().code() == error_code::unimplemented);
  CHECK(w.get_status().message().find("m.json: weight 'labels': dtype string has no caflow counterpart") == 0);
}

TEST_CASE("bad JSON types in the manifest are errors naming the field") {
  CHECK(error_of(parse_weights_manifest("{", "m.json")) == "m.json: weightsManifest is not valid JSON");
  CHECK(error_of(parse_weights_manifest("{}", "m.json")) ==
        "m.json: weightsManifest: expected an array, got object {}");
  CHECK(error_of(parse_weights_manifest(R"([{"weights": []}])", "m.json")) ==
        "m.json: weightsManifest[0]: missing field 'paths'");
  CHECK(error_of(parse_weights_manifest(R"([{"paths": [7], "weights": []}])", "m.json")) ==
        "m.json: weightsManifest[0].paths[0]: expected a file name, got number 7");
  CHECK(error_of(parse_weights_manifest(
            R"([{"paths": [], "weights": [{"name": "w", "shape": [2, "x"], "dtype": "float32"}]}])",
            "m.json")) ==
        "m.json: weightsManifest[0].weights[0] ('w').shape[1]: expected a non-negative integer, got string \"x\"");
  CHECK(error_of(parse_weights_manifest(
            R"([{"paths": [], "weights": [{"name": "w", "shape": [-1], "dtype": "float32"}]}])",
            "m.json")) ==
        "m.json: weightsManifest[0].weights[0] ('w').shape[0]: expected a non-negative integer, got number -1");
  CHECK(error_of(parse_weights_manifest(
            R"([{"paths": [], "weights": [{"name": "w", "shape": [], "dtype": "float64"}]}])",
            "m.json")) ==
        "m.json: weightsManifest[0].weights[0] ('w').dtype: unknown weight dtype 'float64' (expected "
        "float32, int32, bool, string or complex64)");
  CHECK(error_of(parse_weights_manifest(
            R"([{"paths": [], "weights": [{"name": "w", "shape": [], "dtype": "float32",
                 "quantization": {"dtype": "uint8", "scale": 1}}]}])",
            "m.json")) == "m.json: weightsManifest[0].weights[0] ('w').quantization: missing field 'min'");
  CHECK(error_of(parse_weights_manifest(
            R"([{"paths": [], "weights": [{"name": "w", "shape": [], "dtype": "float32",
                 "quantization": {"dtype": "int4"}}]}])",
            "m.json")) ==
        "m.json: weightsManifest[0].weights[0] ('w').quantization.dtype: unknown quantization dtype "
        "'int4' (expected uint8, uint16 or float16)");
  CHECK(error_of(parse_weights_manifest(
            R"([{"paths": [], "weights": [{"name": "w", "shape": [], "dtype": "int32",
                 "quantization": {"dtype": "float16"}}]}])",
            "m.json")) ==
        "m.json: weightsManifest[0].weights[0] ('w').quantization: float16 quantization of a int32 "
        "weight (only float32 weights are stored as float16)");
}
