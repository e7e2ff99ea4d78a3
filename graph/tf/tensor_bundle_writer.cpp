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
  if (!value.initialized() || value.type() == dtype::resource)
    return errors::invalid_argument(prefix_, ": '", key, "' is ",
                                    value.initialized() ? "a resource tensor" : "not initialized",
                                    ", which has no bytes to write");

  tfp::BundleEntryProto entry;
  entry.set_dtype(static_cast<tfp::DataType>(tf_type_of(value.type())));
  shape_to_proto(partial_shape(value.shape()), entry.mutable_shape());
  entry.set_shard_id(0);
  entry.set_offset(st.size);
  // caflow's element bytes are TensorFlow's: little-endian, a bool one byte of 0 or 1.
  const auto* bytes = static_cast<const char*>(value.raw_data());
  const size_t n = value.byte_size();
  entry.set_size(static_cast<int64_t>(n));
  entry.set_crc32c(mask_crc(crc32c_extend(0, bytes, n)));
  st.data.write(bytes, static_cast<std::streamsize>(n));
  if (!st.data) {
    st.error = errors::data_loss(st.data_tmp, ": write of '", key, "' failed: ", std::strerror(errno));
    return st.error;
  }
  st.size += static_cast<int64_t>(n);
  st.entries.emplace(key, std::move(entry));
  return ok_status();
}

status bundle_writer::finish() {
  state& st = *state_;
  if (!st.error.ok()) return st.error;
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
