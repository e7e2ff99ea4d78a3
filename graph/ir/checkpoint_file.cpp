#include "graph/ir/checkpoint_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <filesystem>

namespace caflow::checkpoint {
namespace {

constexpr std::string_view file_prefix = "ckpt-";
constexpr std::string_view index_suffix = ".index";

status os_error(const char* call, const std::string& path, int err) {
  const std::string what = errors::concat(call, " '", path, "': ", std::strerror(err));
  if (err == ENOENT) return errors::not_found(what);
  if (err == ENOSPC || err == EDQUOT) return errors::resource_exhausted(what);
  return errors::internal(what);
}

// Closes on every path out, so an error never leaks a descriptor.
class fd_guard {
 public:
  explicit fd_guard(int fd) : fd_(fd) {}
  ~fd_guard() {
    if (fd_ >= 0) ::close(fd_);
  }
  fd_guard(const fd_guard&) = delete;
  fd_guard& operator=(const fd_guard&) = delete;
  int get() const { return fd_; }
  // Closing can report a deferred write error (NFS), so the writer checks it.
  int release_and_close() {
    const int rc = ::close(fd_);
    fd_ = -1;
    return rc;
  }

 private:
  int fd_;
};

status write_all(int fd, std::string_view bytes, const std::string& path) {
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return os_error("write", path, errno);
    }
    bytes.remove_prefix(static_cast<size_t>(n));
  }
  return {};
}

// A rename is durable only once the directory entry is on disk.
status sync_directory(const std::string& dir) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return os_error("open directory", dir, errno);
  fd_guard guard(fd);
  if (::fsync(fd) != 0 && errno != EINVAL) return os_error("fsync directory", dir, errno);
  return {};
}

// "ckpt-<digits>" at the start of `name`: the step and the rest of the name.
std::optional<std::pair<int64_t, std::string_view>> split_step(std::string_view name) {
  if (!name.starts_with(file_prefix)) return std::nullopt;
  name.remove_prefix(file_prefix.size());
  int64_t step = -1;
  const auto [end, ec] = std::from_chars(name.data(), name.data() + name.size(), step);
  if (ec != std::errc() || end == name.data() || step < 0) return std::nullopt;
  return std::pair{step, name.substr(static_cast<size_t>(end - name.data()))};
}

const tensor* find(const std::vector<named_tensor>& tensors, std::string_view name) {
  for (const auto& [n, t] : tensors)
    if (n == name) return &t;
  return nullptr;
}

status_or<int64_t> int64_entry(const std::vector<named_tensor>& tensors, std::string_view name,
                               const std::string& path) {
  const tensor* t = find(tensors, name);
  if (!t || t->type() != dtype::int64 || t->num_elements() != 1)
    return errors::data_loss("checkpoint index '", path, "' has no int64 scalar '", name, "'");
  return t->scalar_value<int64_t>();
}

}  // namespace

std::string shard_file_name(int64_t step, int shard, int num_shards) {
  return errors::concat(file_prefix, static_cast<long long>(step), ".shard-", shard, "-of-",
                        num_shards);
}

std::string index_file_name(int64_t step) {
  return errors::concat(file_prefix, static_cast<long long>(step), index_suffix);
}

std::optional<int64_t> step_of_file_name(std::string_view file_name) {
  auto split = split_step(file_name);
  if (!split) return std::nullopt;
  const std::string_view rest = split->second;
  if (rest.starts_with(index_suffix) || rest.starts_with(".shard-")) return split->first;
  return std::nullopt;
}

bool is_index_file_name(std::string_view file_name) {
  auto split = split_step(file_name);
  return split && split->second == index_suffix;
}

std::string entry_key(std::string_view name, std::string_view shape_and_slice) {
  if (shape_and_slice.empty()) return std::string(name);
  return errors::concat(name, ":", shape_and_slice);
}

std::pair<std::string_view, std::string_view> split_entry_key(std::string_view key) {
  const size_t colon = key.find(':');
  if (colon == std::string_view::npos) return {key, {}};
  return {key.substr(0, colon), key.substr(colon + 1)};
}

status write_file_atomically(const std::string& path, std::string_view bytes) {
  static std::atomic<uint64_t> counter{0};
  const std::string temp = errors::concat(path, ".tmp-", static_cast<long>(::getpid()), "-",
                                          static_cast<unsigned long>(counter++));
  const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return os_error("create", temp, errno);
  fd_guard guard(fd);
  status st = write_all(fd, bytes, temp);
  if (st.ok() && ::fsync(fd) != 0) st = os_error("fsync", temp, errno);
  if (st.ok() && guard.release_and_close() != 0) st = os_error("close", temp, errno);
  if (st.ok() && ::rename(temp.c_str(), path.c_str()) != 0) st = os_error("rename", temp, errno);
  if (!st.ok()) {
    ::unlink(temp.c_str());
    return st;
  }
  const std::string dir = std::filesystem::path(path).parent_path().string();
  return sync_directory(dir.empty() ? "." : dir);
}

status_or<std::string> read_file(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return os_error("open", path, errno);
  fd_guard guard(fd);
  struct stat info {};
  if (::fstat(fd, &info) != 0) return os_error("stat", path, errno);
  if (!S_ISREG(info.st_mode)) return errors::invalid_argument("'", path, "' is not a regular file");
  std::string bytes(static_cast<size_t>(info.st_size), '\0');
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::read(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return os_error("read", path, errno);
    }
    if (n == 0) break;  // shrank while being read: the checksum check reports it
    done += static_cast<size_t>(n);
  }
  bytes.resize(done);
  return bytes;
}

status write_tensors(const std::string& path, const std::vector<named_tensor>& tensors) {
  std::vector<char> bytes;
  serialize_tensors(tensors, bytes);
  return write_file_atomically(path, std::string_view(bytes.data(), bytes.size()));
}

status_or<std::vector<named_tensor>> read_tensors(const std::string& path,
                                                  const std::shared_ptr<allocator>& alloc) {
  CAFLOW_ASSIGN_OR_RETURN(const std::string bytes, read_file(path));
  auto tensors = deserialize_tensors(std::string_view(bytes), alloc);
  if (!tensors.ok())
    return tensors.get_status().with_context(errors::concat("checkpoint file '", path, "'"));
  return tensors;
}

status write_index(const std::string& dir, const index& idx) {
  const std::vector<named_tensor> entries{
      {"step", tensor::scalar<int64_t>(idx.step)},
      {"num_shards", tensor::scalar<int64_t>(idx.num_shards)}};
  return write_tensors((std::filesystem::path(dir) / index_file_name(idx.step)).string(), entries);
}

status_or<index> read_index(const std::string& path) {
  CAFLOW_ASSIGN_OR_RETURN(const auto entries, read_tensors(path));
  index idx;
  CAFLOW_ASSIGN_OR_RETURN(idx.step, int64_entry(entries, "step", path));
  CAFLOW_ASSIGN_OR_RETURN(const int64_t shards, int64_entry(entries, "num_shards", path));
  if (shards < 1 || shards > 1 << 20)
    return errors::data_loss("checkpoint index '", path, "' announces ", shards, " shards");
  idx.num_shards = static_cast<int>(shards);
  const auto named = step_of_file_name(std::filesystem::path(path).filename().string());
  if (named && *named != idx.step)
    return errors::data_loss("checkpoint index '", path, "' holds step ", idx.step,
                             ", not the step its name says");
  return idx;
}

tensor path_tensor(std::string_view path) {
  tensor t(dtype::uint8, tensor_shape{static_cast<int64_t>(path.size())});
  if (!path.empty()) std::memcpy(t.raw_data(), path.data(), path.size());
  return t;
}

std::string path_of(const tensor& bytes) {
  return std::string(static_cast<const char*>(bytes.raw_data()), bytes.byte_size());
}

}  // namespace caflow::checkpoint
