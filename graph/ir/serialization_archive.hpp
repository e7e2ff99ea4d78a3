#pragma once
// The archive plumbing shared by the Boost.Serialization savers and loaders of tensors, shapes
// (graph/ir/serialization_tensor.cpp), attr values, node_defs, graph_defs
// (graph/ir/serialization_graph.cpp) and the archives' entry points (graph/ir/serialization.cpp).
// Not an API: include it from those files only.
//
// Serialization is non-intrusive: the core headers know nothing of Boost. Boost's own loaders
// for strings and containers resize to whatever count they read, so every string and list
// here has a hand-written loader that checks the count against the unread bytes before
// allocating. Bulk data (tensor bytes, numeric lists) moves with one save_binary/load_binary,
// never element by element.
#include <boost/archive/binary_iarchive.hpp>
#include <boost/archive/binary_oarchive.hpp>
#include <boost/serialization/split_free.hpp>
#include <boost/serialization/version.hpp>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <streambuf>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "graph/core/allocator.hpp"
#include "graph/core/shape.hpp"
#include "graph/core/status.hpp"
#include "graph/core/tensor.hpp"
#include "graph/core/types.hpp"
#include "graph/ir/attr_value.hpp"
#include "graph/ir/graph_def.hpp"
#include "graph/ir/serialization.hpp"

namespace caflow::archive_io {

// A list field. Lists are classes of their own in the archive so that each list type carries
// a class version, like every other class here.
template <class T>
struct list_of {
  std::vector<T>* items;  // only read when saving
};

}  // namespace caflow::archive_io

// The current class versions. A loader accepts versions 1 up to these; a change to a class's
// layout bumps its version here and keeps a branch in its loader for the older ones.
BOOST_CLASS_VERSION(caflow::tensor_shape, 1)
BOOST_CLASS_VERSION(caflow::partial_shape, 1)
BOOST_CLASS_VERSION(caflow::tensor, 1)
BOOST_CLASS_VERSION(caflow::attr_value, 1)
BOOST_CLASS_VERSION(caflow::node_def, 1)
BOOST_CLASS_VERSION(caflow::graph_def, 1)

namespace boost::serialization {
template <class T>
struct version<caflow::archive_io::list_of<T>> {
  typedef mpl::int_<1> type;
  typedef mpl::integral_c_tag tag;
  BOOST_STATIC_CONSTANT(int, value = version::type::value);
};
}  // namespace boost::serialization

// Declared before anything instantiates Boost's serializers, which find them by ADL: a file
// that saves or loads these types includes this header before it does either.
namespace boost::serialization {
using oarchive = boost::archive::binary_oarchive;
using iarchive = boost::archive::binary_iarchive;

void save(oarchive& ar, const caflow::tensor_shape& s, unsigned version);
void load(iarchive& ar, caflow::tensor_shape& s, unsigned version);
void save(oarchive& ar, const caflow::partial_shape& s, unsigned version);
void load(iarchive& ar, caflow::partial_shape& s, unsigned version);
void save(oarchive& ar, const caflow::tensor& t, unsigned version);
void load(iarchive& ar, caflow::tensor& t, unsigned version);
void save(oarchive& ar, const caflow::attr_value& a, unsigned version);
void load(iarchive& ar, caflow::attr_value& a, unsigned version);
void save(oarchive& ar, const caflow::node_def& n, unsigned version);
void load(iarchive& ar, caflow::node_def& n, unsigned version);
void save(oarchive& ar, const caflow::graph_def& g, unsigned version);
void load(iarchive& ar, caflow::graph_def& g, unsigned version);
template <class T>
void save(oarchive& ar, const caflow::archive_io::list_of<T>& l, unsigned version);
template <class T>
void load(iarchive& ar, caflow::archive_io::list_of<T>& l, unsigned version);

template <class Archive, class T>
void serialize(Archive& ar, caflow::archive_io::list_of<T>& l, const unsigned int version) {
  split_free(ar, l, version);
}
}  // namespace boost::serialization

BOOST_SERIALIZATION_SPLIT_FREE(caflow::tensor_shape)
BOOST_SERIALIZATION_SPLIT_FREE(caflow::partial_shape)
BOOST_SERIALIZATION_SPLIT_FREE(caflow::tensor)
BOOST_SERIALIZATION_SPLIT_FREE(caflow::attr_value)
BOOST_SERIALIZATION_SPLIT_FREE(caflow::node_def)
BOOST_SERIALIZATION_SPLIT_FREE(caflow::graph_def)

namespace caflow::archive_io {

using boost::serialization::iarchive;
using boost::serialization::oarchive;

// A reason to refuse the payload. Boost's load calls return nothing, so loaders throw this;
// the deserialize_* functions turn it back into a status.
class load_error : public std::runtime_error {
 public:
  explicit load_error(status s) : std::runtime_error(s.message()), status_(std::move(s)) {}
  const status& get_status() const { return status_; }

 private:
  status status_;
};

template <class... Ts>
[[noreturn]] void fail(Ts&&... parts) {
  throw load_error(errors::data_loss(std::forward<Ts>(parts)...));
}

// The payload as a read-only stream buffer, without copying it. It has no put area, and a
// putback only moves the read position back, so the const_cast below never leads to a write.
class span_source final : public std::streambuf {
 public:
  explicit span_source(std::string_view bytes) {
    char* p = const_cast<char*>(bytes.data());
    setg(p, p, p + bytes.size());
  }
  size_t remaining() const { return static_cast<size_t>(egptr() - gptr()); }
};

// What the loaders need beyond the archive: how much input is left, and where tensor buffers
// come from. Attached to the archive as a Boost helper.
struct load_context {
  const span_source* source = nullptr;
  std::shared_ptr<allocator> alloc;
};

// Inline, so that every file that includes this shares the one key.
inline load_context& context(iarchive& ar) {
  static char key;  // identifies this helper among the archive's helpers
  return ar.get_helper<load_context>(&key);
}

inline size_t remaining(iarchive& ar) { return context(ar).source->remaining(); }

// Called before anything is sized by `count`: refuses counts the unread input cannot hold,
// given that each item takes at least `unit` bytes.
inline void require_room(iarchive& ar, uint64_t count, size_t unit, const char* what) {
  const size_t left = remaining(ar);
  if (count > left / unit)
    fail(what, " of ", count, unit == 1 ? " bytes" : " entries", ", but only ", left,
         " bytes are left in the archive");
}

template <class T>
void check_version(const char* what, unsigned file_version) {
  constexpr unsigned current = boost::serialization::version<T>::value;
  if (file_version == 0 || file_version > current)
    fail("unsupported ", what, " version ", file_version, " (this build reads up to version ",
         current, ")");
}

inline void put_string(oarchive& ar, const std::string& s) {
  ar << static_cast<uint64_t>(s.size());
  if (!s.empty()) ar.save_binary(s.data(), s.size());
}

inline void get_string(iarchive& ar, std::string& s) {
  uint64_t n = 0;
  ar >> n;
  require_room(ar, n, 1, "string");
  s.resize(n);
  if (n > 0) ar.load_binary(s.data(), n);
}

inline dtype get_dtype(iarchive& ar, const char* where) {
  uint8_t raw = 0;
  ar >> raw;
  if (!is_valid_dtype(raw)) fail("invalid dtype ", static_cast<unsigned>(raw), " in ", where);
  return static_cast<dtype>(raw);
}

// A lower bound on the encoded size of one list item, to refuse impossible counts.
template <class T>
constexpr size_t min_encoded_size() {
  if constexpr (std::is_arithmetic_v<T> || std::is_enum_v<T>) {
    return sizeof(T);
  } else if constexpr (std::is_same_v<T, std::string>) {
    return sizeof(uint64_t);  // its length
  } else if constexpr (std::is_same_v<T, node_def>) {
    return 5 * sizeof(uint64_t);  // three string lengths, the input and attr counts
  } else if constexpr (std::is_same_v<T, named_tensor>) {
    return sizeof(uint64_t) + 1;  // the name's length, the dtype
  } else {
    return 1;  // partial_shape: its rank; tensor: its dtype
  }
}

inline void save_item(oarchive& ar, const std::string& s) { put_string(ar, s); }
inline void load_item(iarchive& ar, std::string& s) { get_string(ar, s); }
inline void save_item(oarchive& ar, const named_tensor& nt) {
  put_string(ar, nt.first);
  ar << nt.second;
}
inline void load_item(iarchive& ar, named_tensor& nt) {
  get_string(ar, nt.first);
  ar >> nt.second;
}
template <class T>
void save_item(oarchive& ar, const T& x) {
  ar << x;
}
template <class T>
void load_item(iarchive& ar, T& x) {
  ar >> x;
}

template <class T>
void save_list(oarchive& ar, const std::vector<T>& v) {
  const list_of<T> l{const_cast<std::vector<T>*>(&v)};
  ar << l;
}
template <class T>
void load_list(iarchive& ar, std::vector<T>& v) {
  list_of<T> l{&v};
  ar >> l;
}

}  // namespace caflow::archive_io

namespace boost::serialization {

template <class T>
void save(oarchive& ar, const caflow::archive_io::list_of<T>& l, unsigned) {
  using namespace caflow::archive_io;  // NOLINT(google-build-using-namespace)
  const std::vector<T>& v = *l.items;
  ar << static_cast<uint64_t>(v.size());
  if constexpr (std::is_same_v<T, bool>) {
    const std::vector<uint8_t> bytes(v.begin(), v.end());  // vector<bool> is packed
    if (!bytes.empty()) ar.save_binary(bytes.data(), bytes.size());
  } else if constexpr (std::is_arithmetic_v<T> || std::is_enum_v<T>) {
    if (!v.empty()) ar.save_binary(v.data(), v.size() * sizeof(T));
  } else {
    for (const T& x : v) save_item(ar, x);
  }
}

template <class T>
void load(iarchive& ar, caflow::archive_io::list_of<T>& l, unsigned version) {
  using namespace caflow;              // NOLINT(google-build-using-namespace)
  using namespace caflow::archive_io;  // NOLINT(google-build-using-namespace)
  check_version<list_of<T>>("list", version);
  std::vector<T>& v = *l.items;
  uint64_t count = 0;
  ar >> count;
  require_room(ar, count, min_encoded_size<T>(), "list");
  v.clear();
  if constexpr (std::is_same_v<T, bool> || std::is_same_v<T, dtype>) {
    std::vector<uint8_t> bytes(count);
    if (count > 0) ar.load_binary(bytes.data(), count);
    v.reserve(count);
    for (uint8_t b : bytes) {
      if constexpr (std::is_same_v<T, bool>) {
        if (b > 1) fail("bool list holds byte value ", static_cast<unsigned>(b));
        v.push_back(b != 0);
      } else {
        if (!is_valid_dtype(b)) fail("invalid dtype ", static_cast<unsigned>(b), " in type list");
        v.push_back(static_cast<dtype>(b));
      }
    }
  } else if constexpr (std::is_arithmetic_v<T>) {
    v.resize(count);
    if (count > 0) ar.load_binary(v.data(), count * sizeof(T));
  } else {
    // Grown as items parse, not reserved: an item's encoding can be much smaller than the
    // item, so memory stays proportional to what was actually read.
    for (uint64_t i = 0; i < count; ++i) load_item(ar, v.emplace_back());
  }
}

}  // namespace boost::serialization
