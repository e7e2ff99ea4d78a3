// The archives' entry points: serialize_* write a Boost binary archive behind the CFLW
// envelope, deserialize_* check the envelope and the Boost header, then load with the checked
// loaders of graph/ir/serialization_tensor.cpp and graph/ir/serialization_graph.cpp and turn what
// they throw back into a status.
#include "graph/ir/serialization.hpp"

#include <boost/archive/archive_exception.hpp>
#include <boost/archive/basic_archive.hpp>

#include <cstring>
#include <exception>
#include <new>
#include <span>
#include <streambuf>

#include "graph/ir/serialization_archive.hpp"

namespace caflow {
namespace {

using archive_io::context;
using archive_io::iarchive;
using archive_io::list_of;
using archive_io::load_context;
using archive_io::load_error;
using archive_io::load_list;
using archive_io::oarchive;
using archive_io::span_source;

// Archives are always read from and written to memory; skip the locale machinery.
constexpr unsigned archive_flags = boost::archive::no_codecvt;

// Boost 1.74, the oldest this project builds with, writes library version 18. Refusing older
// ones keeps Boost off its legacy decoding paths (one loads a raw bool from the input).
constexpr int min_boost_library_version = 18;

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
