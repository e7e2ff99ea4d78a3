#include <leveldb/env.h>
#include <leveldb/options.h>
#include <leveldb/table_builder.h>

#include <bit>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "graph/tf/crc32c.hpp"
#include "graph/tf/proto/tensor_bundle.pb.h"
#include "graph/tf/tensor_bundle.hpp"
#include "graph/tf/tensor_proto.hpp"

namespace caflow::tf {

namespace fs = std::filesystem;
namespace tfp = ::caflow::tfproto;

struct bundle_writer::state {
  std::string data_path, data_tmp, index_path, index_tmp;
  std::ofstream data;
  int64_t size = 0;  // bytes written to the data shard
  // std::string orders keys as unsigned bytes, as leveldb's bytewise comparator requires.
  std::map<std::string, tfp::BundleEntryProto> entries;
  // Partitioned tensors: their entries (dtype, full shape, slices), written by finish(), and
  // the boxes added so far, to refuse overlaps.
  std::map<std::string, tfp::BundleEntryProto> partitioned;
  std::map<std::string, std::vector<tensor_slice>> boxes;
  status error;  // the first failure; every later call returns it
  bool finished = false;
};

namespace {

status write_index(const std::string& path,
                   const std::map<std::string, tfp::BundleEntryProto>& entries) {
  leveldb::Env* env = leveldb::Env::Default();
  leveldb::WritableFile* raw = nullptr;
  leveldb::Status s = env->NewWritableFile(path, &raw);
  if (!s.ok()) return errors::unavailable(path, ": cannot create: ", s.ToString());
  std::unique_ptr<leveldb::WritableFile> file(raw);

  leveldb::Options options;
  // TensorFlow writes its index uncompressed: releases before 1.1 read nothing else, and a
  // reader built without snappy could not read it.
  options.compression = leveldb::kNoCompression;
  leveldb::TableBuilder builder(options, file.get());
  tfp::BundleHeaderProto header;
  header.set_num_shards(1);
  static_assert(std::endian::native == std::endian::little, "bundles are written little-endian");
  header.set_endianness(tfp::BundleHeaderProto::LITTLE);
  header.mutable_version()->set_producer(1);
  builder.Add("", header.SerializeAsString());
  for (const auto& [key, entry] : entries) builder.Add(key, entry.SerializeAsString());
  s = builder.Finish();
  if (s.ok()) s = file->Sync();
  if (s.ok()) s = file->Close();
  if (!s.ok()) return errors::data_loss(path, ": write failed: ", s.ToString());
  return ok_status();
}

// The lengths as varint64s, their masked CRC-32C (over each length as a uint32, or a uint64
// past 2^32), then the bytes; `crc` receives the CRC-32C of what the reader checks: the lengths
// as summed, the checksum and the bytes.
std::string strings_in_bundle_layout(const tensor& value, uint32_t* crc) {
  std::string out;
  *crc = 0;
  for (int64_t i = 0; i < value.num_elements(); ++i) {
    uint64_t len = value.string_at(i).size();
    if (len <= UINT32_MAX) {
      const auto len32 = static_cast<uint32_t>(len);
      *crc = crc32c_extend(*crc, &len32, sizeof len32);
    } else {
      *crc = crc32c_extend(*crc, &len, sizeof len);
    }
    while (len >= 0x80) {
      out.push_back(static_cast<char>((len & 0x7f) | 0x80));
      len >>= 7;
    }
    out.push_back(static_cast<char>(len));
  }
  const uint32_t lengths_crc = mask_crc(*crc);
  char raw[sizeof lengths_crc];
  std::memcpy(raw, &lengths_crc, sizeof raw);
  out.append(raw, sizeof raw);
  *crc = crc32c_extend(*crc, raw, sizeof raw);
  for (int64_t i = 0; i < value.num_elements(); ++i) {
    const std::string_view s = value.string_at(i);
    out.append(s);
    *crc = crc32c_extend(*crc, s.data(), s.size());
  }
  return out;
}

status rename_into_place(const std::string& from, const std::string& to) {
  std::error_code ec;
  fs::rename(from, to, ec);
  if (ec) return errors::data_loss(to, ": cannot rename ", from, " over it: ", ec.message());
  return ok_status();
}

}  // namespace

bundle_writer::bundle_writer(std::string prefix)
    : prefix_(std::move(prefix)), state_(std::make_unique<state>()) {
  state& st = *state_;
  st.data_path = bundle_data_path(prefix_, 0, 1);
  st.index_path = bundle_index_path(prefix_);
  st.data_tmp = st.data_path + ".tempstate";
  st.index_tmp = st.index_path + ".tempstate";
  std::error_code ec;
  if (const fs::path dir = fs::path(prefix_).parent_path(); !dir.empty())
    fs::create_directories(dir, ec);
  st.data.open(st.data_tmp, std::ios::binary | std::ios::trunc);
  if (!st.data)
    st.error = errors::not_found(st.data_tmp, ": cannot create: ", std::strerror(errno));
}

bundle_writer::~bundle_writer() {
  if (state_->finished) return;
  state_->data.close();
  std::error_code ignored;
  fs::remove(state_->data_tmp, ignored);
  fs::remove(state_->index_tmp, ignored);
}

status bundle_writer::add(const std::string& key, const tensor& value) {
  state& st = *state_;
  if (!st.error.ok()) return st.error;
  if (st.finished) return errors::failed_precondition(prefix_, ": the bundle is finished");
  if (key.empty())
    return errors::invalid_argument(prefix_, ": a tensor's key cannot be empty (the header's)");
  if (st.entries.count(key)) return errors::invalid_argument(prefix_, ": key '", key, "' added twice");
  if (st.partitioned.count(key))
    return errors::invalid_argument(prefix_, ": '", key, "' is added both whole and in slices");
  if (!value.initialized() || value.type() == dtype::resource)
    return errors::invalid_argument(prefix_, ": '", key, "' is ",
                                    value.initialized() ? "a resource tensor" : "not initialized",
                                    ", which has no bytes to write");

  tfp::BundleEntryProto entry;
  entry.set_dtype(static_cast<tfp::DataType>(tf_type_of(value.type())));
  shape_to_proto(partial_shape(value.shape()), entry.mutable_shape());
  entry.set_shard_id(0);
  entry.set_offset(st.size);
  // caflow's element bytes are TensorFlow's: little-endian, a bool one byte of 0 or 1. Strings
  // are laid out as TensorFlow's writer lays them out (strings_in_bundle_layout).
  const bool strings = value.type() == dtype::string;
  uint32_t crc = 0;
  const std::string laid_out = strings ? strings_in_bundle_layout(value, &crc) : std::string();
  const auto* bytes = strings ? laid_out.data() : static_cast<const char*>(value.raw_data());
  const size_t n = strings ? laid_out.size() : value.byte_size();
  if (!strings) crc = crc32c_extend(0, bytes, n);
  entry.set_size(static_cast<int64_t>(n));
  entry.set_crc32c(mask_crc(crc));
  st.data.write(bytes, static_cast<std::streamsize>(n));
  if (!st.data) {
    st.error = errors::data_loss(st.data_tmp, ": write of '", key, "' failed: ", std::strerror(errno));
    return st.error;
  }
  st.size += static_cast<int64_t>(n);
  st.entries.emplace(key, std::move(entry));
  return ok_status();
}

status bundle_writer::add_slice(const std::string& name, const tensor_slice& box,
                                const tensor& value) {
  state& st = *state_;
  if (!st.error.ok()) return st.error;
  if (name.empty() || is_bundle_slice_key(name))
    return errors::invalid_argument(prefix_, ": a partitioned tensor's name cannot be empty or "
                                    "start with a 0 byte");
  const std::string spec = box.to_string();
  if (!value.initialized() || value.shape() != box.shape())
    return errors::invalid_argument(prefix_, ": slice '", spec, "' of '", name, "' is shaped ",
                                    box.shape().to_string(), ", its value ",
                                    value.initialized() ? value.shape().to_string() : "uninitialized");
  if (st.entries.count(name))
    return errors::invalid_argument(prefix_, ": '", name, "' is added both whole and in slices");
  auto [it, fresh] = st.partitioned.try_emplace(name);
  tfp::BundleEntryProto& whole = it->second;
  const auto type = static_cast<tfp::DataType>(tf_type_of(value.type()));
  if (fresh) {
    whole.set_dtype(type);
    shape_to_proto(partial_shape(box.full), whole.mutable_shape());
  } else if (whole.dtype() != type || st.boxes[name].front().full != box.full) {
    return errors::invalid_argument(prefix_, ": slice '", spec, "' of '", name,
                                    "' disagrees with an earlier slice on the full shape or dtype");
  }
  for (const tensor_slice& other : st.boxes[name])
    if (intersect(other, box))
      return errors::invalid_argument(prefix_, ": slice '", spec, "' of '", name,
                                      "' overlaps slice '", other.to_string(), "'");
  CAFLOW_RETURN_IF_ERROR(add(bundle_slice_key(name, box), value));
  // The entry's TensorSliceProto spells each extent as the key does: whole ones without length.
  auto* proto = whole.add_slices();
  for (int d = 0; d < box.full.rank(); ++d) {
    auto* x = proto->add_extent();
    const int64_t start = box.start[static_cast<size_t>(d)], length = box.length[static_cast<size_t>(d)];
    if (start == 0 && length == box.full.dim(d)) continue;
    x->set_start(start);
    x->set_length(length);
  }
  st.boxes[name].push_back(box);
  return ok_status();
}

status bundle_writer::finish() {
  state& st = *state_;
  if (!st.error.ok()) return st.error;
  for (auto& [name, entry] : st.partitioned) {
    if (st.entries.count(name)) {
      st.error = errors::invalid_argument(prefix_, ": '", name, "' is added both whole and in slices");
      return st.error;
    }
    st.entries.emplace(name, std::move(entry));
  }
  st.partitioned.clear();
  if (st.finished) return errors::failed_precondition(prefix_, ": the bundle is finished");
  st.data.flush();
  st.data.close();
  if (!st.data) {
    st.error = errors::data_loss(st.data_tmp, ": write failed: ", std::strerror(errno));
    return st.error;
  }
  st.error = write_index(st.index_tmp, st.entries);
  // The data shard first: an index in place always has its data beside it.
  if (st.error.ok()) st.error = rename_into_place(st.data_tmp, st.data_path);
  if (st.error.ok()) st.error = rename_into_place(st.index_tmp, st.index_path);
  if (!st.error.ok()) return st.error;
  st.finished = true;
  return ok_status();
}

}  // namespace caflow::tf
