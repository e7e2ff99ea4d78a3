#include <leveldb/env.h>
#include <leveldb/iterator.h>
#include <leveldb/options.h>
#include <leveldb/table.h>

#include <cinttypes>
#include <cstdio>
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
  e.slices = proto.slices_size();
  // A partitioned tensor's own entry has no location: its slices have entries of their own.
  if (e.slices == 0) {
    if (e.shard < 0 || e.shard >= num_shards)
      return errors::data_loss(where, ": shard ", e.shard, " but the header counts ", num_shards);
    if (e.offset < 0 || e.size < 0)
      return errors::data_loss(where, ": offset ", e.offset, " and size ", e.size);
  }
  return e;
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
  const bundle_entry& e = found->second;
  const std::string where = index + ": '" + e.key + "'";
  if (e.slices > 0)
    return errors::unimplemented(where, " is a partitioned tensor (slices: ", e.slices,
                                 "); caflow reads whole tensors only");
  const size_t element_size = tf_element_size(e.type);
  auto type = dtype_from_tf(e.type);
  if (!type.ok()) return type.get_status().with_context(where);
  if (*type == dtype::resource || element_size == 0)
    return errors::unimplemented(where, ": a tensor of ", tf_type_name(e.type),
                                 " holds no values caflow reads");
  if (!e.shape.fully_defined())
    return errors::data_loss(where, ": shape ", e.shape.to_string(), " is not fully known");
  auto shape = tensor_shape::make(e.shape.dim_vector());
  if (!shape.ok()) return errors::data_loss(where, ": shape ", e.shape.to_string(), ": ",
                                            shape.get_status().message());
  // Checked against the entry's size before anything is allocated: a corrupt shape cannot ask
  // for more memory than the shard holds.
  const uint64_t n = static_cast<uint64_t>(shape->num_elements());
  if (n > static_cast<uint64_t>(e.size) / element_size || n * element_size != static_cast<uint64_t>(e.size))
    return errors::data_loss(where, ": the entry says ", e.size, " bytes but shape ",
                             shape->to_string(), " of ", tf_type_name(e.type), " needs ",
                             n * element_size);

  const std::string data = bundle_data_path(prefix_, e.shard, num_shards_);
  const std::string data_where = data + ": '" + e.key + "'";
  std::error_code ec;
  const auto file_size = fs::file_size(data, ec);
  if (ec) return errors::not_found(data, ": no such file (it holds '", e.key, "')");
  if (static_cast<uint64_t>(e.offset) > file_size ||
      static_cast<uint64_t>(e.size) > file_size - static_cast<uint64_t>(e.offset))
    return errors::data_loss(data_where, " needs bytes [", e.offset, ", ", e.offset + e.size,
                             ") but the file holds ", static_cast<uint64_t>(file_size));
  std::string bytes(static_cast<size_t>(e.size), '\0');
  std::ifstream in(data, std::ios::binary);
  in.seekg(e.offset);
  in.read(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!in) return errors::data_loss(data_where, ": cannot read bytes [", e.offset, ", ",
                                    e.offset + e.size, ")");
  const uint32_t crc = crc32c(bytes);
  if (crc != unmask_crc(e.masked_crc32c))
    return errors::data_loss(data_where, " (bytes [", e.offset, ", ", e.offset + e.size,
                             ")): CRC-32C ", hex32(crc), " differs from the index's ",
                             hex32(unmask_crc(e.masked_crc32c)));
  return tensor_from_content(e.type, *shape, bytes, data_where);
}

}  // namespace caflow::tf
