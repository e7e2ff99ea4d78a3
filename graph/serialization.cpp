// Boost.Serialization of tensors, graph_defs and named tensor lists, non-intrusively: the core
// headers know nothing of Boost. Boost's own loaders for strings and containers resize to
// whatever count they read, so every string and list here has a hand-written loader that
// checks the count against the unread bytes before allocating. Bulk data (tensor bytes,
// numeric lists) moves with one save_binary/load_binary, never element by element.
#include "graph/serialization.hpp"

#include <boost/archive/archive_exception.hpp>
#include <boost/archive/basic_archive.hpp>
#include <boost/archive/binary_iarchive.hpp>
#include <boost/archive/binary_oarchive.hpp>
#include <boost/serialization/split_free.hpp>
#include <boost/serialization/version.hpp>

#include <array>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <streambuf>
#include <type_traits>
#include <variant>

namespace caflow {
namespace {

// A list field. Lists are classes of their own in the archive so that each list type carries
// a class version, like every other class here.
template <class T>
struct list_of {
  std::vector<T>* items;  // only read when saving
};

}  // namespace
}  // namespace caflow

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
struct version<caflow::list_of<T>> {
  typedef mpl::int_<1> type;
  typedef mpl::integral_c_tag tag;
  BOOST_STATIC_CONSTANT(int, value = version::type::value);
};
}  // namespace boost::serialization

// Declared before anything instantiates Boost's serializers, which find them by ADL.
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
void save(oarchive& ar, const caflow::list_of<T>& l, unsigned version);
template <class T>
void load(iarchive& ar, caflow::list_of<T>& l, unsigned version);

template <class Archive, class T>
void serialize(Archive& ar, caflow::list_of<T>& l, const unsigned int version) {
  split_free(ar, l, version);
}
}  // namespace boost::serialization

BOOST_SERIALIZATION_SPLIT_FREE(caflow::tensor_shape)
BOOST_SERIALIZATION_SPLIT_FREE(caflow::partial_shape)
BOOST_SERIALIZATION_SPLIT_FREE(caflow::tensor)
BOOST_SERIALIZATION_SPLIT_FREE(caflow::attr_value)
BOOST_SERIALIZATION_SPLIT_FREE(caflow::node_def)
BOOST_SERIALIZATION_SPLIT_FREE(caflow::graph_def)

namespace caflow {
namespace {

using boost::serialization::iarchive;
using boost::serialization::oarchive;

// Archives are always read from and written to memory; skip the locale machinery.
constexpr unsigned archive_flags = boost::archive::no_codecvt;

// Boost 1.74, the oldest this project builds with, writes library version 18. Refusing older
// ones keeps Boost off its legacy decoding paths (one loads a raw bool from the input).
constexpr int min_boost_library_version = 18;

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

// Appends whatever the archive writes to a string or vector<char>.
template <class Buffer>
class append_sink final : public std::streambuf {
 public:
  explicit append_sink(Buffer& out) : out_(out) {}

 protected:
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    out_.insert(out_.end(), s, s + n);
    return n;
  }
  int_type overflow(int_type c) override {
    if (!traits_type::eq_int_type(c, traits_type::eof())) out_.push_back(traits_type::to_char_type(c));
    return traits_type::not_eof(c);
  }

 private:
  Buffer& out_;
};

// What the loaders need beyond the archive: how much input is left, and where tensor buffers
// come from. Attached to the archive as a Boost helper.
struct load_context {
  const span_source* source = nullptr;
  std::shared_ptr<allocator> alloc;
};

load_context& context(iarchive& ar) {
  static char key;  // identifies this helper among the archive's helpers
  return ar.get_helper<load_context>(&key);
}

size_t remaining(iarchive& ar) { return context(ar).source->remaining(); }

// Called before anything is sized by `count`: refuses counts the unread input cannot hold,
// given that each item takes at least `unit` bytes.
void require_room(iarchive& ar, uint64_t count, size_t unit, const char* what) {
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

void put_string(oarchive& ar, const std::string& s) {
  ar << static_cast<uint64_t>(s.size());
  if (!s.empty()) ar.save_binary(s.data(), s.size());
}

void get_string(iarchive& ar, std::string& s) {
  uint64_t n = 0;
  ar >> n;
  require_room(ar, n, 1, "string");
  s.resize(n);
  if (n > 0) ar.load_binary(s.data(), n);
}

dtype get_dtype(iarchive& ar, const char* where) {
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

void save_item(oarchive& ar, const std::string& s) { put_string(ar, s); }
void load_item(iarchive& ar, std::string& s) { get_string(ar, s); }
void save_item(oarchive& ar, const named_tensor& nt) {
  put_string(ar, nt.first);
  ar << nt.second;
}
void load_item(iarchive& ar, named_tensor& nt) {
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
void load_value(iarchive& ar, dtype& v) { v = get_dtype(ar, "type attr"); }
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

std::string tensor_description(dtype type, const tensor_shape& shape) {
  return errors::concat("tensor ", dtype_name(type), shape.to_string());
}

}  // namespace
}  // namespace caflow

namespace boost::serialization {
// Only this file's own save/load functions live below, and they speak of caflow types only.
using namespace caflow;  // NOLINT(google-build-using-namespace)

void save(oarchive& ar, const tensor_shape& s, unsigned) {
  ar << static_cast<uint8_t>(s.rank());
  if (s.rank() > 0) ar.save_binary(s.dims().data(), s.dims().size_bytes());
}

void load(iarchive& ar, tensor_shape& s, unsigned version) {
  check_version<tensor_shape>("tensor_shape", version);
  uint8_t rank = 0;
  ar >> rank;
  if (rank > max_rank)
    fail("tensor shape of rank ", static_cast<unsigned>(rank), " exceeds the maximum rank ",
         max_rank);
  std::array<int64_t, max_rank> dims{};
  if (rank > 0) ar.load_binary(dims.data(), rank * sizeof(int64_t));
  auto made = tensor_shape::make(std::span<const int64_t>(dims.data(), rank));
  if (!made.ok()) fail("invalid tensor shape: ", made.get_status().message());
  s = *made;
}

void save(oarchive& ar, const partial_shape& s, unsigned) {
  ar << static_cast<int8_t>(s.rank());
  std::array<int64_t, max_rank> dims{};
  for (int i = 0; i < s.rank(); ++i) dims[i] = s.dim(i);
  if (s.rank() > 0) ar.save_binary(dims.data(), s.rank() * sizeof(int64_t));
}

void load(iarchive& ar, partial_shape& s, unsigned version) {
  check_version<partial_shape>("partial_shape", version);
  int8_t rank = 0;
  ar >> rank;
  if (rank < -1 || rank > max_rank)
    fail("partial shape of rank ", static_cast<int>(rank), " is outside [-1, ", max_rank, "]");
  if (rank < 0) {
    s = partial_shape::unknown();
    return;
  }
  std::array<int64_t, max_rank> dims{};
  if (rank > 0) ar.load_binary(dims.data(), rank * sizeof(int64_t));
  auto made = partial_shape::make(std::span<const int64_t>(dims.data(), rank));
  if (!made.ok()) fail("invalid partial shape: ", made.get_status().message());
  s = *made;
}

// dtype (0 for an uninitialized tensor, then nothing else), shape, byte count, bytes.
void save(oarchive& ar, const tensor& t, unsigned) {
  ar << static_cast<uint8_t>(t.type());
  if (!t.initialized()) return;
  ar << t.shape();
  const uint64_t bytes = t.byte_size();
  ar << bytes;
  if (bytes > 0) ar.save_binary(t.raw_data(), bytes);
}

void load(iarchive& ar, tensor& t, unsigned version) {
  check_version<tensor>("tensor", version);
  uint8_t raw = 0;
  ar >> raw;
  if (raw == 0) {
    t = tensor();
    return;
  }
  if (!is_valid_dtype(raw)) fail("invalid dtype ", static_cast<unsigned>(raw), " in tensor");
  const auto type = static_cast<dtype>(raw);
  tensor_shape shape;
  ar >> shape;

  // Sizes are checked against the input before the buffer exists; num_elements() * size can
  // overflow for a forged shape, so compare by division first.
  const size_t elem = dtype_size(type);
  const auto count = static_cast<uint64_t>(shape.num_elements());
  const size_t left = remaining(ar);
  if (count > left / elem) {
    const bool overflows = count > std::numeric_limits<uint64_t>::max() / elem;
    fail(tensor_description(type, shape), " needs ",
         overflows ? std::string("more than 2^64") : std::to_string(count * elem),
         " bytes, but only ", left, " bytes are left in the archive");
  }
  uint64_t bytes = 0;
  ar >> bytes;
  if (bytes != count * elem)
    fail(tensor_description(type, shape), " announces ", bytes, " data bytes, expected ",
         count * elem);
  if (bytes > remaining(ar))
    fail(tensor_description(type, shape), " needs ", bytes, " bytes, but only ", remaining(ar),
         " bytes are left in the archive");

  auto allocated = tensor::allocate(context(ar).alloc, type, shape);
  if (!allocated.ok()) throw load_error(allocated.get_status());
  if (bytes > 0) ar.load_binary(allocated->raw_data(), bytes);
  if (type == dtype::boolean) {
    // Any byte but 0 or 1 is not a bool; reading one as bool is undefined behaviour.
    const auto* p = static_cast<const uint8_t*>(allocated->raw_data());
    for (uint64_t i = 0; i < bytes; ++i)
      if (p[i] > 1)
        fail("bool tensor holds byte value ", static_cast<unsigned>(p[i]), " at element ", i);
  }
  t = std::move(*allocated);
}

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

template <class T>
void save(oarchive& ar, const list_of<T>& l, unsigned) {
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
void load(iarchive& ar, list_of<T>& l, unsigned version) {
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

namespace caflow {
namespace {

// Boost writes its signature as a native size_t length and the characters, then the library
// version as a little-endian u16. Checked by hand because Boost sizes a string by that length
// before comparing it, and to keep older library versions out (see above).
bool has_boost_header(std::string_view payload) {
  const std::string_view signature = boost::archive::BOOST_ARCHIVE_SIGNATURE();
  const size_t length = signature.size();
  const size_t version_at = sizeof length + signature.size();
  if (payload.size() < version_at + 2) return false;
  if (std::memcmp(payload.data(), &length, sizeof length) != 0) return false;
  if (payload.substr(sizeof length, signature.size()) != signature) return false;
  const int library_version = static_cast<unsigned char>(payload[version_at]) |
                              static_cast<unsigned char>(payload[version_at + 1]) << 8;
  return library_version >= min_boost_library_version;
}

template <class Buffer, class T>
void write_archive(detail::archive_kind kind, const T& value, size_t size_hint, Buffer& out) {
  out.clear();
  out.reserve(detail::archive_header_size + size_hint);
  out.resize(detail::archive_header_size);
  {
    append_sink<Buffer> sink(out);
    oarchive ar(sink, archive_flags);
    ar << value;
  }  // the archive is complete once closed
  detail::seal_archive(kind, std::span<char>(out.data(), out.size()));
}

template <class T, class Load>
status_or<T> read_archive(detail::archive_kind kind, std::string_view bytes,
                          const std::shared_ptr<allocator>& alloc, Load&& load_payload) {
  if (!alloc) return errors::invalid_argument("no allocator given for the tensors of an archive");
  CAFLOW_ASSIGN_OR_RETURN(const std::string_view payload, detail::open_archive(kind, bytes));
  const std::string what = errors::concat(detail::archive_kind_name(kind), " archive");
  if (!has_boost_header(payload))
    return errors::data_loss(what, " payload does not start with a Boost binary archive header",
                             " of library version ", min_boost_library_version, " or later");
  try {
    span_source source(payload);
    iarchive ar(source, archive_flags);
    load_context& ctx = context(ar);
    ctx.source = &source;
    ctx.alloc = alloc;
    T value;
    load_payload(ar, value);
    if (source.remaining() != 0)
      return errors::data_loss(what, " has ", source.remaining(), " unread payload bytes");
    return value;
  } catch (const load_error& e) {
    return e.get_status().with_context(what);
  } catch (const boost::archive::archive_exception& e) {
    if (e.code == boost::archive::archive_exception::input_stream_error)
      return errors::data_loss(what, " payload ends in the middle of a value");
    return errors::data_loss(what, " is malformed: ", e.what());
  } catch (const std::bad_alloc&) {
    return errors::resource_exhausted(what, ": out of memory while loading");
  } catch (const std::exception& e) {
    return errors::data_loss(what, " is malformed: ", e.what());
  } catch (...) {
    return errors::data_loss(what, " is malformed");
  }
}

size_t tensors_size_hint(const std::vector<named_tensor>& tensors) {
  size_t n = 64;
  for (const auto& [name, t] : tensors) n += name.size() + t.byte_size() + 128;
  return n;
}

status_or<graph_def> load_graph(std::string_view bytes, const std::shared_ptr<allocator>& alloc) {
  return read_archive<graph_def>(detail::archive_kind::graph, bytes, alloc,
                                 [](iarchive& ar, graph_def& g) { ar >> g; });
}

status_or<tensor> load_tensor(std::string_view bytes, const std::shared_ptr<allocator>& alloc) {
  return read_archive<tensor>(detail::archive_kind::tensor, bytes, alloc,
                              [](iarchive& ar, tensor& t) { ar >> t; });
}

status_or<std::vector<named_tensor>> load_tensors(std::string_view bytes,
                                                  const std::shared_ptr<allocator>& alloc) {
  return read_archive<std::vector<named_tensor>>(
      detail::archive_kind::tensor_list, bytes, alloc,
      [](iarchive& ar, std::vector<named_tensor>& v) { load_list(ar, v); });
}

std::string_view view_of(const std::vector<char>& bytes) { return {bytes.data(), bytes.size()}; }

}  // namespace

std::string serialize_tensor(const tensor& t) {
  std::string out;
  write_archive(detail::archive_kind::tensor, t, t.byte_size() + 128, out);
  return out;
}

void serialize_tensor(const tensor& t, std::vector<char>& out) {
  write_archive(detail::archive_kind::tensor, t, t.byte_size() + 128, out);
}

status_or<tensor> deserialize_tensor(std::string_view bytes,
                                     const std::shared_ptr<allocator>& alloc) {
  return load_tensor(bytes, alloc);
}

status_or<tensor> deserialize_tensor(const std::vector<char>& bytes,
                                     const std::shared_ptr<allocator>& alloc) {
  return load_tensor(view_of(bytes), alloc);
}

std::string serialize_graph(const graph_def& g) {
  std::string out;
  write_archive(detail::archive_kind::graph, g, 256, out);
  return out;
}

void serialize_graph(const graph_def& g, std::vector<char>& out) {
  write_archive(detail::archive_kind::graph, g, 256, out);
}

status_or<graph_def> deserialize_graph(std::string_view bytes,
                                       const std::shared_ptr<allocator>& alloc) {
  return load_graph(bytes, alloc);
}

status_or<graph_def> deserialize_graph(const std::vector<char>& bytes,
                                       const std::shared_ptr<allocator>& alloc) {
  return load_graph(view_of(bytes), alloc);
}

std::string serialize_tensors(const std::vector<named_tensor>& tensors) {
  std::string out;
  const list_of<named_tensor> list{const_cast<std::vector<named_tensor>*>(&tensors)};
  write_archive(detail::archive_kind::tensor_list, list, tensors_size_hint(tensors), out);
  return out;
}

void serialize_tensors(const std::vector<named_tensor>& tensors, std::vector<char>& out) {
  const list_of<named_tensor> list{const_cast<std::vector<named_tensor>*>(&tensors)};
  write_archive(detail::archive_kind::tensor_list, list, tensors_size_hint(tensors), out);
}

status_or<std::vector<named_tensor>> deserialize_tensors(std::string_view bytes,
                                                        const std::shared_ptr<allocator>& alloc) {
  return load_tensors(bytes, alloc);
}

status_or<std::vector<named_tensor>> deserialize_tensors(const std::vector<char>& bytes,
                                                        const std::shared_ptr<allocator>& alloc) {
  return load_tensors(view_of(bytes), alloc);
}

}  // namespace caflow
