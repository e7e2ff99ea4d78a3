// TF.js weights manifests and their shard bytes, as read_tfjs_model takes them from a model.json
// and the files beside it (graph/tf/tfjs_weights.hpp). An input is the manifest's JSON text, a
// NUL byte, then the bytes of the shards (all groups decode from the same bytes); without a NUL
// it is all manifest. Every decoded weight must lie inside the bytes and match its spec. The
// seeds (corpus/tfjs_manifest/seed-*) are small manifests with their bytes, written by hand.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "graph/tf/tfjs_weights.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace caflow;
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const size_t split = input.find('\0');
  const std::string_view manifest = input.substr(0, split);
  const std::string_view bytes = split == std::string_view::npos ? std::string_view() : input.substr(split + 1);
  auto groups = tf::parse_weights_manifest(manifest, "fuzz.json");
  if (!groups.ok()) return 0;
  for (size_t g = 0; g < groups->size(); ++g) {
    const tf::tfjs_weight_group& group = (*groups)[g];
    auto weights = tf::decode_weight_group(group, static_cast<int>(g), bytes, {bytes.size()}, "fuzz.json");
    if (!weights.ok()) continue;
    if (weights->size() != group.weights.size()) {
      std::fprintf(stderr, "group %zu: %zu weights decoded, %zu in the manifest\n", g,
                   weights->size(), group.weights.size());
      std::abort();
    }
    for (size_t i = 0; i < weights->size(); ++i) {
      const auto& [name, t] = (*weights)[i];
      if (name != group.weights[i].name || t.shape().dim_vector() != group.weights[i].shape) {
        std::fprintf(stderr, "weight %zu of group %zu decoded as '%s' %s\n", i, g, name.c_str(),
                     t.shape().to_string().c_str());
        std::abort();
      }
    }
  }
  return 0;
}
