// Boost.Serialization of attr values, node_defs and graph_defs (see
// graph/ir/serialization_archive.hpp for the archive plumbing and checked primitives; tensors
// and shapes in attrs go through graph/ir/serialization_tensor.cpp).
#include "graph/ir/serialization_archive.hpp"

#include <cstdint>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace caflow::archive_io {
namespace {

// One overload per alternative of attr_value::storage.
void save_value(oarchive&, std::monostate) {}
void load_value(iarchive&, std::monostate&) {}
void save_value(oarchive& ar, int64_t v) { ar << v; }
void load_value(iarchive& ar, int64_t& v) { ar >> v; }
void save_value(oarchive& ar, float v) { ar << v; }
void load_value(iarchive& ar, float& v) { ar >> v; }
void save_value(oarchive& ar, bool v) { ar << static_cast<uint8_t>(v); }
void load_value(iarchive& ar, bool& v) {
  uint8_t raw = 0;
  ar >> raw;
  if (raw > 1) fail("bool attr holds byte value ", static_cast<unsigned>(raw));
  v = raw != 0;
}
void save_value(oarchive& ar, const std::string& v) { put_string(ar, v); }
void load_value(iarchive& ar, std::string& v) { get_string(ar, v); }
void save_value(oarchive& ar, dtype v) { ar << static_cast<uint8_t>(v); }
// A type attr may also name the handle type (an Enter of a resource handle); a tensor never.
void load_value(iarchive& ar, dtype& v) {
  uint8_t raw = 0;
  ar >> raw;
  if (!is_tensor_dtype(raw) && raw != static_cast<uint8_t>(dtype::resource))
    fail("invalid dtype ", static_cast<unsigned>(raw), " in type attr");
  v = static_cast<dtype>(raw);
}
void save_value(oarchive& ar, const partial_shape& v) { ar << v; }
void load_value(iarchive& ar, partial_shape& v) { ar >> v; }
void save_value(oarchive& ar, const tensor& v) { ar << v; }
void load_value(iarchive& ar, tensor& v) { ar >> v; }
template <class T>
void save_value(oarchive& ar, const std::vector<T>& v) {
  save_list(ar, v);
}
template <class T>
void load_value(iarchive& ar, std::vector<T>& v) {
  load_list(ar, v);
}

template <size_t... I>
void load_alternative(iarchive& ar, attr_value::storage& s, unsigned index,
                      std::index_sequence<I...>) {
  const bool known = ((index == I && (load_value(ar, s.template emplace<I>()), true)) || ...);
  if (!known) fail("attr value of unknown type ", index);
}

}  // namespace
}  // namespace caflow::archive_io

namespace boost::serialization {
// Only this file's own save/load functions live below, and they speak of caflow types only.
using namespace caflow;              // NOLINT(google-build-using-namespace)
using namespace caflow::archive_io;  // NOLINT(google-build-using-namespace)

// The alternative's index (which is its attr_type), then the alternative. Reordering
// attr_value::storage changes this format and needs a new attr_value version.
void save(oarchive& ar, const attr_value& a, unsigned) {
  ar << static_cast<uint8_t>(a.value().index());
  std::visit([&](const auto& v) { save_value(ar, v); }, a.value());
}

void load(iarchive& ar, attr_value& a, unsigned version) {
  check_version<attr_value>("attr_value", version);
  uint8_t index = 0;
  ar >> index;
  constexpr size_t alternatives = std::variant_size_v<attr_value::storage>;
  load_alternative(ar, a.value(), index, std::make_index_sequence<alternatives>{});
}

void save(oarchive& ar, const node_def& n, unsigned) {
  put_string(ar, n.name);
  put_string(ar, n.op);
  put_string(ar, n.device);
  save_list(ar, n.inputs);
  ar << static_cast<uint64_t>(n.attrs.size());
  for (const auto& [key, value] : n.attrs) {
    put_string(ar, key);
    ar << value;
  }
}

void load(iarchive& ar, node_def& n, unsigned version) {
  check_version<node_def>("node_def", version);
  get_string(ar, n.name);
  get_string(ar, n.op);
  get_string(ar, n.device);
  load_list(ar, n.inputs);
  uint64_t count = 0;
  ar >> count;
  require_room(ar, count, sizeof(uint64_t) + 1, "attr map");
  n.attrs.clear();
  for (uint64_t i = 0; i < count; ++i) {
    std::string key;
    get_string(ar, key);
    auto [it, inserted] = n.attrs.try_emplace(std::move(key));
    if (!inserted) fail("node '", n.name, "' has attr '", it->first, "' twice");
    ar >> it->second;
  }
}

void save(oarchive& ar, const graph_def& g, unsigned) {
  ar << g.version;
  save_list(ar, g.nodes);
}

void load(iarchive& ar, graph_def& g, unsigned version) {
  check_version<graph_def>("graph_def", version);
  ar >> g.version;
  load_list(ar, g.nodes);
}

}  // namespace boost::serialization
