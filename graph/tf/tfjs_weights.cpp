#include "graph/tf/tfjs_weights.hpp"

#include <cmath>
#include <cstring>
#include <limits>

#include <nlohmann/json.hpp>


namespace caflow::tf {
namespace {

using json = nlohmann::ordered_json;

// JSON's own name for a value's type, for "expected X, got Y" messages.
std::string describe(const json& v) {
  std::string text = v.dump();
  if (text.size() > 40) text = text.substr(0, 37) + "...";
  return std::string(v.type_name()) + " " + text;
}

status type_error(const std::string& where, const char* expected, const json& got) {
  return errors::invalid_argument(where, ": expected ", expected, ", got ", describe(got));
}

// Bytes per stored element; 0 for a dtype the manifest may not use.
size_t stored_size(std::string_view dtype) {
  if (dtype == "float32" || dtype == "int32") return 4;
  if (dtype == "uint16" || dtype == "float16") return 2;
  if (dtype == "uint8" || dtype == "bool") return 1;
  return 0;
}

bool known_weight_dtype(std::string_view d) {
  return d == "float32" || d == "int32" || d == "bool" || d == "string" || d == "complex64";
}

status_or<std::string> string_field(const json& obj, const char* key, const std::string& where) {
  auto it = obj.find(key);
  if (it == obj.end()) return errors::invalid_argument(where, ": missing field '", key, "'");
  if (!it->is_string()) return type_error(where + "." + key, "a string", *it);
  return it->get<std::string>();
}

status_or<double> number_field(const json& obj, const char* key, const std::string& where) {
  auto it = obj.find(key);
  if (it == obj.end()) return errors::invalid_argument(where, ": missing field '", key, "'");
  if (!it->is_number()) return type_error(where + "." + key, "a number", *it);
  const double v = it->get<double>();
  if (!std::isfinite(v)) return type_error(where + "." + key, "a finite number", *it);
  return v;
}

status_or<tfjs_quantization> parse_quantization(const json& q, const std::string& dtype,
                                                const std::string& where) {
  if (!q.is_object()) return type_error(where, "an object", q);
  tfjs_quantization out;
  CAFLOW_ASSIGN_OR_RETURN(out.dtype, string_field(q, "dtype", where));
  if (out.dtype == "uint8" || out.dtype == "uint16") {
    if (dtype != "float32" && dtype != "int32")
      return errors::invalid_argument(where, ": ", out.dtype, " quantization of a ", dtype,
                                      " weight (only float32 and int32 weights are quantized)");
    CAFLOW_ASSIGN_OR_RETURN(out.min, number_field(q, "min", where));
    CAFLOW_ASSIGN_OR_RETURN(out.scale, number_field(q, "scale", where));
  } else if (out.dtype == "float16") {
    if (dtype != "float32")
      return errors::invalid_argument(where, ": float16 quantization of a ", dtype,
                                      " weight (only float32 weights are stored as float16)");
  } else {
    return errors::invalid_argument(where, ".dtype: unknown quantization dtype '", out.dtype,
                                    "' (expected uint8, uint16 or float16)");
  }
  if (auto it = q.find("original_dtype"); it != q.end()) {
    if (!it->is_string()) return type_error(where + ".original_dtype", "a string", *it);
    out.original_dtype = it->get<std::string>();
  }
  return out;
}

status_or<tfjs_weight_spec> parse_weight(const json& w, const std::string& where_index) {
  if (!w.is_object()) return type_error(where_index, "an object", w);
  tfjs_weight_spec out;
  CAFLOW_ASSIGN_OR_RETURN(out.name, string_field(w, "name", where_index));
  const std::string where = where_index + " ('" + out.name + "')";
  auto shape = w.find("shape");
  if (shape == w.end()) return errors::invalid_argument(where, ": missing field 'shape'");
  if (!shape->is_array()) return type_error(where + ".shape", "an array", *shape);
  if (shape->size() > static_cast<size_t>(max_rank))
    return errors::invalid_argument(where, ".shape: rank ", shape->size(), " is above caflow's ",
                                    max_rank);
  for (size_t i = 0; i < shape->size(); ++i) {
    const json& d = (*shape)[i];
    if (!d.is_number_integer() || d.get<int64_t>() < 0)
      return type_error(where + ".shape[" + std::to_string(i) + "]", "a non-negative integer", d);
    out.shape.push_back(d.get<int64_t>());
  }
  CAFLOW_ASSIGN_OR_RETURN(out.dtype, string_field(w, "dtype", where));
  if (!known_weight_dtype(out.dtype))
    return errors::invalid_argument(where, ".dtype: unknown weight dtype '", out.dtype,
                                    "' (expected float32, int32, bool, string or complex64)");
  if (auto q = w.find("quantization"); q != w.end() && !q->is_null()) {
    CAFLOW_ASSIGN_OR_RETURN(out.quantization,
                            parse_quantization(*q, out.dtype, where + ".quantization"));
  }
  return out;
}

status_or<tfjs_weight_group> parse_group(const json& g, const std::string& where) {
  if (!g.is_object()) return type_error(where, "an object", g);
  tfjs_weight_group out;
  auto paths = g.find("paths");
  if (paths == g.end()) return errors::invalid_argument(where, ": missing field 'paths'");
  if (!paths->is_array()) return type_error(where + ".paths", "an array", *paths);
  for (size_t i = 0; i < paths->size(); ++i) {
    const json& p = (*paths)[i];
    if (!p.is_string() || p.get<std::string>().empty())
      return type_error(where + ".paths[" + std::to_string(i) + "]", "a file name", p);
    out.paths.push_back(p.get<std::string>());
  }
  auto weights = g.find("weights");
  if (weights == g.end()) return errors::invalid_argument(where, ": missing field 'weights'");
  if (!weights->is_array()) return type_error(where + ".weights", "an array", *weights);
  for (size_t i = 0; i < weights->size(); ++i) {
    CAFLOW_ASSIGN_OR_RETURN(auto w,
                            parse_weight((*weights)[i], where + ".weights[" + std::to_string(i) + "]"));
    out.weights.push_back(std::move(w));
  }
  return out;
}

// "g1.bin: 100 bytes, g2.bin: 20 bytes"
std::string describe_shards(const tfjs_weight_group& group, const std::vector<size_t>& sizes) {
  std::string out;
  for (size_t i = 0; i < group.paths.size(); ++i) {
    if (!out.empty()) out += ", ";
    out += group.paths[i] + ": " + (i < sizes.size() ? std::to_string(sizes[i]) : "?") + " bytes";
  }
  return out.empty() ? "none" : out;
}

// IEEE binary16 bits as float, exactly (every half is a float). Written here rather than taken
// from tensor_proto.hpp so that this file, and the fuzz target over it, need no protobuf.
float half_bits_to_float(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t exponent = (h >> 10) & 0x1fu;
  const uint32_t mantissa = h & 0x3ffu;
  uint32_t bits;
  if (exponent == 0x1f) {
    bits = sign | 0x7f800000u | (mantissa << 13);  // infinity, NaN
  } else if (exponent != 0) {
    bits = sign | ((exponent + 112) << 23) | (mantissa << 13);  // rebias 15 -> 127
  } else {
    const float magnitude = static_cast<float>(mantissa) * 5.9604644775390625e-08f;  // 2^-24
    std::memcpy(&bits, &magnitude, sizeof bits);
    bits |= sign;  // zero and subnormals
  }
  float out;
  std::memcpy(&out, &bits, sizeof out);
  return out;
}

template <class T>
T load(const char* p) {
  T v;
  std::memcpy(&v, p, sizeof v);  // shards are little-endian, as is every machine caflow targets
  return v;
}

// Fills `out` (of the weight's decoded dtype) from `n` stored elements at `p`.
status decode_values(const tfjs_weight_spec& w, const char* p, int64_t n, tensor& out) {
  const std::string& stored = w.stored_dtype();
  if (w.dtype == "float32") {
    float* dst = out.data<float>();
    if (stored == "float32") {
      std::memcpy(dst, p, static_cast<size_t>(n) * 4);
    } else if (stored == "float16") {
      for (int64_t i = 0; i < n; ++i) dst[i] = half_bits_to_float(load<uint16_t>(p + 2 * i));
    } else {
      const double scale = w.quantization->scale, min = w.quantization->min;
      for (int64_t i = 0; i < n; ++i) {
        const double q = stored == "uint8" ? load<uint8_t>(p + i) : load<uint16_t>(p + 2 * i);
        dst[i] = static_cast<float>(q * scale + min);
      }
    }
  } else if (w.dtype == "int32") {
    int32_t* dst = out.data<int32_t>();
    if (stored == "int32") {
      std::memcpy(dst, p, static_cast<size_t>(n) * 4);
    } else {
      const double scale = w.quantization->scale, min = w.quantization->min;
      for (int64_t i = 0; i < n; ++i) {
        const double q = stored == "uint8" ? load<uint8_t>(p + i) : load<uint16_t>(p + 2 * i);
        const double v = std::floor(q * scale + min + 0.5);  // JavaScript's Math.round
        if (!(v >= std::numeric_limits<int32_t>::min() && v <= std::numeric_limits<int32_t>::max()))
          return errors::invalid_argument("value ", v, " at element ", i, " is outside int32");
        dst[i] = static_cast<int32_t>(v);
      }
    }
  } else {  // bool
    bool* dst = out.data<bool>();
    for (int64_t i = 0; i < n; ++i) dst[i] = p[i] != 0;
  }
  return ok_status();
}

}  // namespace

status_or<std::vector<tfjs_weight_group>> parse_weights_manifest(std::string_view manifest_json,
                                                                 const std::string& origin) {
  const json manifest = json::parse(manifest_json, nullptr, /*allow_exceptions=*/false);
  if (manifest.is_discarded())
    return errors::invalid_argument(origin, ": weightsManifest is not valid JSON");
  if (!manifest.is_array()) return type_error(origin + ": weightsManifest", "an array", manifest);
  std::vector<tfjs_weight_group> groups;
  for (size_t i = 0; i < manifest.size(); ++i) {
    CAFLOW_ASSIGN_OR_RETURN(
        auto g, parse_group(manifest[i], origin + ": weightsManifest[" + std::to_string(i) + "]"));
    groups.push_back(std::move(g));
  }
  return groups;
}

status_or<std::vector<tfjs_weight>> decode_weight_group(const tfjs_weight_group& group,
                                                        int group_index, std::string_view bytes,
                                                        const std::vector<size_t>& shard_sizes,
                                                        const std::string& origin) {
  std::vector<tfjs_weight> out;
  size_t offset = 0;
  for (const tfjs_weight_spec& w : group.weights) {
    const std::string where = origin + ": weight '" + w.name + "'";
    if (w.dtype == "string" || w.dtype == "complex64")
      return errors::unimplemented(where, ": dtype ", w.dtype,
                                   " has no caflow counterpart (caflow's tensors hold float32, "
                                   "float64, int32, int64, uint8 and bool)");
    auto shape = tensor_shape::make(w.shape);
    if (!shape.ok()) return shape.get_status().with_context(where + " shape");
    const size_t element = stored_size(w.stored_dtype());
    const int64_t n = shape->num_elements();
    const size_t left = bytes.size() - offset;
    // n * element may not fit in size_t; compare by division first.
    if (static_cast<uint64_t>(n) > left / element || static_cast<size_t>(n) * element > left)
      return errors::invalid_argument(
          where, " (", w.stored_dtype(), " ", shape->to_string(), ") needs bytes [", offset, ", ",
          offset, " + ", n, " x ", element, ") of group ", group_index,
          ", but its shards (", describe_shards(group, shard_sizes), ") end at ", bytes.size());
    const dtype type = w.dtype == "float32" ? dtype::float32
                       : w.dtype == "int32" ? dtype::int32
                                            : dtype::boolean;
    auto t = tensor::allocate(default_allocator(), type, *shape);
    if (!t.ok()) return t.get_status().with_context(where);
    if (n > 0) {
      status decoded = decode_values(w, bytes.data() + offset, n, *t);
      if (!decoded.ok()) return decoded.with_context(where);
    }
    offset += static_cast<size_t>(n) * element;
    out.emplace_back(w.name, std::move(*t));
  }
  if (offset != bytes.size())
    return errors::invalid_argument(origin, ": weightsManifest[", group_index, "]: its weights take ",
                                    offset, " bytes, but its shards (",
                                    describe_shards(group, shard_sizes), ") hold ", bytes.size());
  return out;
}

}  // namespace caflow::tf
