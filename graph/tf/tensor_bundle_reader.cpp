#include <leveldb/env.h>
#include <leveldb/iterator.h>
#include <leveldb/options.h>
#include <leveldb/table.h>

#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <new>

#include "graph/tf/crc32c.hpp"
#include "graph/tf/proto/tensor_bundle.pb.h"
#include "graph/tf/tensor_bundle.hpp"
#include "graph/tf/tensor_proto.hpp"

namespace caflow::tf {
namespace {

namespace fs = std::filesystem;
namespace tfp = ::caflow::tfproto;

// The newest format version this reader knows (TensorFlow's kTensorBundleVersion).
constexpr int bundle_version = 1;

std::string hex32(uint32_t v) {
  char text[16];
  std::snprintf(text, sizeof text, "0x%08" PRIx32, v);
  return text;
}

status from_leveldb(const leveldb::Status& s, const std::string& file) {
  if (s.ok()) return ok_status();
  // leveldb's messages start with its own code ("Corruption: bad block type").
  const std::string why = "not a readable table: " + s.ToString();
  if (s.IsNotFound()) return errors::not_found(file, ": ", why);
  if (s.IsCorruption()) return errors::data_loss(file, ": ", why);
  if (s.IsNotSupportedError()) return errors::unimplemented(file, ": ", why);
  return errors::unavailable(file, ": ", why);
}

// leveldb's table footer: the metaindex and index blocks' handles (varint64 offset and size),
// padded to 40 bytes, then the magic number.
constexpr size_t footer_size = 48;
constexpr size_t block_trailer_size = 5;  // the block's compression type and masked CRC-32C

bool get_varint64(std::string_view* in, uint64_t* v) {
  *v = 0;
  for (int shift = 0; shift <= 63 && !in->empty(); shift += 7) {
    const auto byte = static_cast<unsigned char>(in->front());
    in->remove_prefix(1);
    *v |= uint64_t{byte & 0x7fu} << shift;
    if (!(byte & 0x80)) return true;
  }
  return false;
}

// What leveldb would report as an I/O error (a handle past the end is a failed read there) is
// damage to the file: the handles must lie inside it before leveldb follows them.
status check_footer(const std::string& index, uint64_t size) {
  if (size < footer_size)
    return errors::data_loss(index, ": ", size, " bytes, shorter than a table's ", footer_size,
                             "-byte footer");
  std::ifstream in(index, std::ios::binary);
  std::string footer(footer_size, '\0');
  in.seekg(static_cast<std::streamoff>(size - footer_size));
  in.read(footer.data(), footer_size);
  if (!in) return errors::unavailable(index, ": cannot read its footer");
  std::string_view rest = footer;
  const uint64_t blocks_end = size - footer_size;
  for (const char* block : {"metaindex", "index"}) {
    uint64_t offset = 0, length = 0;
    if (!get_varint64(&rest, &offset) || !get_varint64(&rest, &length))
      return errors::data_loss(index, ": the footer's ", block, " block handle does not decode");
    if (offset > blocks_end || length > blocks_end - offset ||
        block_trailer_size > blocks_end - offset - length)
      return errors::data_loss(index, ": the footer's ", block, " block [", offset, ", ",
                               offset + length, ") runs past the ", blocks_end,
                               " bytes before the footer");
  }
  return ok_status();
}

status check_header(const tfp::BundleHeaderProto& h, const std::string& index) {
  if (h.num_shards() < 1)
    return errors::data_loss(index, ": header has num_shards ", h.num_shards());
  if (h.endianness() != tfp::BundleHeaderProto::LITTLE)
    return errors::unimplemented(index, ": the tensors are big-endian; caflow reads "
                                 "little-endian bundles only");
  if (h.version().min_consumer() > bundle_version)
    return errors::unimplemented(index, ": written for readers of format version ",
                                 h.version().min_consumer(), " or newer; caflow reads version ",
                                 bundle_version);
  for (int bad : h.version().bad_consumers())
    if (bad == bundle_version)
      return errors::unimplemented(index, ": the writer excludes readers of format version ",
                                   bundle_version);
  return ok_status();
}

// A string tensor as TensorFlow's BundleWriter lays it out: each string's length as a varint64,
// the masked CRC-32C of the lengths (each as a uint32, or a uint64 past 2^32), then the strings'
// bytes. The entry's CRC-32C covers the lengths (as summed), that checksum and the bytes.
status_or<tensor> strings_from_bundle(std::string_view bytes, const tensor_shape& shape,
                                      uint32_t masked_crc, const std::string& where) {
  const auto n = static_cast<size_t>(shape.num_elements());
  std::vector<uint64_t> lengths(n);
  std::string_view in = bytes;
  uint32_t crc = 0;
  uint64_t total = 0;
  for (size_t i = 0; i < n; ++i) {
    if (!get_varint64(&in, &lengths[i]) || lengths[i] > bytes.size())
      return errors::data_loss(where, ": the length of string ", i, " is cut off or corrupt");
    total += lengths[i];
    if (lengths[i] <= UINT32_MAX) {
      const auto len32 = static_cast<uint32_t>(lengths[i]);
      crc = crc32c_extend(crc, &len32, sizeof len32);
    } else {
      crc = crc32c_extend(crc, &lengths[i], sizeof lengths[i]);
    }
  }
  uint32_t stored = 0;
  if (in.size() < sizeof stored) return errors::data_loss(where, ": no checksum after the string lengths");
  std::memcpy(&stored, in.data(), sizeof stored);
  if (stored != mask_crc(crc))
    return errors::data_loss(where, ": the string lengths' CRC-32C ", hex32(crc),
                             " differs from the stored ", hex32(unmask_crc(stored)));
  crc = crc32c_extend(crc, in.data(), sizeof stored);
  in.remove_prefix(sizeof stored);
  if (in.size() != total)
    return errors::data_loss(where, ": the string lengths add up to ", total, " bytes, but ",
                             in.size(), " follow them");
  crc = crc32c_extend(crc, in.data(), in.size());
  if (crc != unmask_crc(masked_crc))
    return errors::data_loss(where, ": CRC-32C ", hex32(crc), " differs from the index's ",
                             hex32(unmask_crc(masked_crc)));
  std::vector<std::string> values;
  values.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    values.emplace_back(in.substr(0, lengths[i]));
    in.remove_prefix(lengths[i]);
  }
  return tensor::from_strings(values, shape);
}

// A TensorSliceProto as a box in `full`: an extent without a length (or with -1) is whole.
status_or<tensor_slice> slice_from_proto(const tfp::TensorSliceProto& proto, const partial_shape& full) {
  if (!full.fully_defined()) return errors::invalid_argument("the full shape is not known");
  tensor_slice box{full.to_shape(), {}, {}};
  if (proto.extent_size() != full.rank())
    return errors::invalid_argument(proto.extent_size(), " extents for a tensor of rank ",
                                    full.rank());
  for (int d = 0; d < full.rank(); ++d) {
    const auto& x = proto.extent(d);
    const int64_t dim = box.full.dim(d);
    const int64_t length = x.has_length_case() == tfp::TensorSliceProto::Extent::kLength
                               ? x.length()
                               : -1;
    const int64_t start = length < 0 ? 0 : x.start();
    const int64_t len = length < 0 ? dim : length;
    if (start < 0 || len < 0 || start > dim || len > dim - start)
      return errors::invalid_argument("extent ", d, " [", start, ", +", len,
                                      ") lies outside dimension ", dim);
    box.start.push_back(start);
    box.length.push_back(len);
  }
  return box;
}

status_or<bundle_entry> parse_entry(const std::string& key, const std::string& value,
                                    int num_shards, const std::string& index) {
  const std::string where = index + ": entry '" + key + "'";
  tfp::BundleEntryProto proto;
  if (!proto.ParseFromString(value))
    return errors::data_loss(where, ": not a BundleEntryProto (", value.size(), " bytes)");
  bundle_entry e;
  e.key = key;
  e.type = proto.dtype();
  auto shape = shape_from_proto(proto.shape(), where + ": shape");
  if (!shape.ok()) return errors::data_loss(shape.get_status().message());
  e.shape = *shape;
  e.shard = proto.shard_id();
  e.offset = proto.offset();
  e.size = proto.size();
  e.masked_crc32c = proto.crc32c();
  for (int i = 0; i < proto.slices_size(); ++i) {
    auto box = slice_from_proto(proto.slices(i), e.shape);
    if (!box.ok()) return errors::data_loss(where, ": slice ", i, ": ", box.get_status().message());
    e.slices.push_back(std::move(box).value());
    std::vector<int64_t> start, length;
    for (const auto& x : proto.slices(i).extent()) {
      const bool whole = x.has_length_case() != tfp::TensorSliceProto::Extent::kLength || x.length() < 0;
      start.push_back(whole ? 0 : x.start());
      length.push_back(whole ? -1 : x.length());
    }
    e.slice_keys.push_back(bundle_slice_key(key, start, length));
  }
  // A partitioned tensor's own entry has no location: its slices have entries of their own.
  if (e.slices.empty()) {
    if (e.shard < 0 || e.shard >= num_shards)
      return errors::data_loss(where, ": shard ", e.shard, " but the header counts ", num_shards);
    if (e.offset < 0 || e.size < 0)
      return errors::data_loss(where, ": offset ", e.offset, " and size ", e.size);
  }
  return e;
}

// Where an entry's bytes are, once its dtype, shape and size agree and its shard holds them: all
// that is checked before anything is read or allocated.
struct entry_location {
  dtype type;
  tensor_shape shape;
  std::string data;        // the shard's path
  std::string data_where;  // the shard and the entry, for errors
};

status_or<entry_location> locate_entry(const std::string& prefix, int num_shards,
                                       const bundle_entry& e) {
  const std::string index = bundle_index_path(prefix);
  const std::string name = is_bundle_slice_key(e.key) ? "a slice's entry" : "'" + e.key + "'";
  const std::string where = index + ": " + name;
  const size_t element_size = tf_element_size(e.type);
  auto type = dtype_from_tf(e.type);
  if (!type.ok()) return type.get_status().with_context(where);
  const bool strings = *type == dtype::string;
  if (*type == dtype::resource || (element_size == 0 && !strings))
    return errors::unimplemented(where, ": a tensor of ", tf_type_name(e.type),
                                 " holds no values caflow reads");
  if (!e.shape.fully_defined())
    return errors::data_loss(where, ": shape ", e.shape.to_string(), " is not fully known");
  auto shape = tensor_shape::make(e.shape.dim_vector());
  if (!shape.ok()) return errors::data_loss(where, ": shape ", e.shape.to_string(), ": ",
                                            shape.get_status().message());
  // Checked against the entry's size before anything is allocated: a corrupt shape cannot ask
  // for more memory than the shard holds. A string takes at least its length's byte.
  const uint64_t n = static_cast<uint64_t>(shape->num_elements());
  const auto size = static_cast<uint64_t>(e.size);
  if (strings ? (size < 4 || n > size - 4)
              : (n > size / element_size || n * element_size != size))
    return errors::data_loss(where, ": the entry says ", e.size, " bytes but shape ",
                             shape->to_string(), " of ", tf_type_name(e.type), " needs ",
                             strings ? "at least " + std::to_string(n + 4)
                                     : std::to_string(n * element_size));

  const std::string data = bundle_data_path(prefix, e.shard, num_shards);
  const std::string data_where = data + ": " + name;
  std::error_code ec;
  const auto file_size = fs::file_size(data, ec);
  if (ec) return errors::not_found(data, ": no such file (it holds ", name, ")");
  if (static_cast<uint64_t>(e.offset) > file_size ||
      static_cast<uint64_t>(e.size) > file_size - static_cast<uint64_t>(e.offset))
    return errors::data_loss(data_where, " needs bytes [", e.offset, ", ", e.offset + e.size,
                             ") but the file holds ", static_cast<uint64_t>(file_size));
  return entry_location{*type, *shape, data, data_where};
}

}  // namespace

status_or<bundle_reader> bundle_reader::open(const std::string& prefix) {
  const std::string index = bundle_index_path(prefix);
  std::error_code ec;
  if (!fs::is_regular_file(index, ec)) return errors::not_found(index, ": no such file");
  // leveldb allocates a block's buffer from the size its handle states before it reads and
  // checks the block. The footer's handles are checked first; a data block's handle sits in the
  // CRC-checked index block, so only a crafted file can still ask for more memory than there is.
  try {
    return read_index(prefix, index);
  } catch (const std::bad_alloc&) {
    return errors::data_loss(index, ": a block handle states a size past what memory holds");
  }
}

status_or<bundle_reader> bundle_reader::read_index(const std::string& prefix,
                                                   const std::string& index) {
  leveldb::Env* env = leveldb::Env::Default();
  uint64_t size = 0;
  CAFLOW_RETURN_IF_ERROR(from_leveldb(env->GetFileSize(index, &size), index));
  CAFLOW_RETURN_IF_ERROR(check_footer(index, size));
  leveldb::RandomAccessFile* raw_file = nullptr;
  CAFLOW_RETURN_IF_ERROR(from_leveldb(env->NewRandomAccessFile(index, &raw_file), index));
  std::unique_ptr<leveldb::RandomAccessFile> file(raw_file);

  leveldb::Options options;
  options.paranoid_checks = true;  // the index block's checksum too, not only the data blocks'
  leveldb::Table* raw_table = nullptr;
  CAFLOW_RETURN_IF_ERROR(from_leveldb(leveldb::Table::Open(options, file.get(), size, &raw_table), index));
  std::unique_ptr<leveldb::Table> table(raw_table);

  leveldb::ReadOptions read;
  read.verify_checksums = true;
  read.fill_cache = false;
  std::unique_ptr<leveldb::Iterator> it(table->NewIterator(read));
  bundle_reader out;
  out.prefix_ = prefix;
  bool have_header = false;
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    const std::string key = it->key().ToString();
    const std::string value = it->value().ToString();
    if (key.empty()) {
      // "" sorts first, so the header comes before every entry that needs its shard count.
      tfp::BundleHeaderProto header;
      if (!header.ParseFromString(value))
        return errors::data_loss(index, ": the header (key \"\") is not a BundleHeaderProto");
      CAFLOW_RETURN_IF_ERROR(check_header(header, index));
      out.num_shards_ = header.num_shards();
      have_header = true;
      continue;
    }
    if (!have_header) return errors::data_loss(index, ": no header (key \"\") before '", key, "'");
    CAFLOW_ASSIGN_OR_RETURN(bundle_entry e, parse_entry(key, value, out.num_shards_, index));
    out.entries_.emplace(key, std::move(e));
  }
  CAFLOW_RETURN_IF_ERROR(from_leveldb(it->status(), index));
  if (!have_header) return errors::data_loss(index, ": no header (key \"\")");
  return out;
}

status_or<tensor> bundle_reader::read(std::string_view key) const {
  const std::string index = bundle_index_path(prefix_);
  auto found = entries_.find(key);
  if (found == entries_.end())
    return errors::not_found(index, ": no tensor '", key, "' in the bundle (", entries_.size(),
                             " tensors)");
  return found->second.slices.empty() ? read_entry(found->second) : read_partitioned(found->second);
}

std::string bundle_reader::names() const {
  std::string out;
  for (const auto& [key, entry] : entries_)
    if (!is_bundle_slice_key(key)) out += (out.empty() ? "" : ", ") + key;
  return out;
}

status_or<tensor> bundle_reader::read_partitioned(const bundle_entry& e) const {
  const std::string where = bundle_index_path(prefix_) + ": '" + e.key + "'";
  auto type = dtype_from_tf(e.type);
  if (!type.ok()) return type.get_status().with_context(where);
  if (*type == dtype::resource || *type == dtype::string)
    return errors::unimplemented(where, ": a partitioned tensor of ", tf_type_name(e.type));
  const tensor_shape full = e.slices.front().full;
  int64_t covered = 0;
  for (size_t i = 0; i < e.slices.size(); ++i) {
    for (size_t j = 0; j < i; ++j)
      if (intersect(e.slices[i], e.slices[j]))
        return errors::data_loss(where, ": slices '", e.slices[j].to_string(), "' and '",
                                 e.slices[i].to_string(), "' overlap");
    covered += e.slices[i].num_elements();
  }
  if (covered != full.num_elements())
    return errors::data_loss(where, ": its ", e.slices.size(), " slices cover ", covered, " of its ",
                             full.num_elements(), " elements");
  // Every slice's entry is checked against its box and its shard before the whole tensor is
  // allocated: the index alone cannot ask for more memory than the shards hold.
  std::vector<const bundle_entry*> parts;
  for (size_t i = 0; i < e.slices.size(); ++i) {
    const tensor_slice& box = e.slices[i];
    auto part = entries_.find(e.slice_keys[i]);
    if (part == entries_.end())
      return errors::data_loss(where, ": slice '", box.to_string(), "' has no entry");
    CAFLOW_ASSIGN_OR_RETURN(entry_location at, locate_entry(prefix_, num_shards_, part->second));
    if (at.type != *type || at.shape != box.shape())
      return errors::data_loss(where, ": slice '", box.to_string(), "' holds ",
                               dtype_name(at.type), at.shape.to_string(), ", not ",
                               dtype_name(*type), box.shape().to_string());
    parts.push_back(&part->second);
  }
  CAFLOW_ASSIGN_OR_RETURN(tensor out, tensor::allocate(default_allocator(), *type, full));
  for (size_t i = 0; i < e.slices.size(); ++i) {
    CAFLOW_ASSIGN_OR_RETURN(tensor value, read_entry(*parts[i]));
    copy_slice(value, e.slices[i], out, whole_slice(full), e.slices[i]);
  }
  return out;
}

status_or<tensor> bundle_reader::read_entry(const bundle_entry& e) const {
  CAFLOW_ASSIGN_OR_RETURN(entry_location at, locate_entry(prefix_, num_shards_, e));
  std::string bytes(static_cast<size_t>(e.size), '\0');
  std::ifstream in(at.data, std::ios::binary);
  in.seekg(e.offset);
  in.read(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!in) return errors::data_loss(at.data_where, ": cannot read bytes [", e.offset, ", ",
                                    e.offset + e.size, ")");
  if (at.type == dtype::string)
    return strings_from_bundle(bytes, at.shape, e.masked_crc32c, at.data_where);
  const uint32_t crc = crc32c(bytes);
  if (crc != unmask_crc(e.masked_crc32c))
    return errors::data_loss(at.data_where, " (bytes [", e.offset, ", ", e.offset + e.size,
                             ")): CRC-32C ", hex32(crc), " differs from the index's ",
                             hex32(unmask_crc(e.masked_crc32c)));
  return tensor_from_content(e.type, at.shape, bytes, at.data_where);
}

}  // namespace caflow::tf
