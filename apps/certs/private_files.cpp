#include "private_files.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

namespace caflow::certs {
namespace fs = std::filesystem;

status prepare_directory(const std::string& dir) {
  std::error_code ec;
  if (fs::is_directory(dir, ec)) return {};
  if (fs::exists(dir, ec))
    return errors::failed_precondition("directory '", dir, "' is not a directory");
  fs::create_directories(dir, ec);
  if (ec) return errors::permission_denied("directory '", dir, "' cannot be created: ", ec.message());
  return {};
}

status check_absent(const std::vector<std::string>& paths, bool force) {
  if (force) return {};
  for (const auto& path : paths) {
    std::error_code ec;
    if (fs::exists(fs::symlink_status(path, ec)))
      return errors::already_exists("'", path, "' exists; nothing was written (--force replaces it)");
  }
  return {};
}

namespace {

status write_all(int fd, const std::string& contents, const std::string& tmp) {
  size_t done = 0;
  while (done < contents.size()) {
    const ssize_t n = ::write(fd, contents.data() + done, contents.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errors::permission_denied("'", tmp, "' cannot be written: ", std::strerror(errno));
    done += static_cast<size_t>(n);
  }
  // A key that is renamed into place but lost on a crash would leave a certificate without it.
  if (::fsync(fd) != 0)
    return errors::permission_denied("'", tmp, "' cannot be written: ", std::strerror(errno));
  return {};
}

}  // namespace

status write_file(const std::string& path, const std::string& contents, mode_t mode, bool force) {
  const fs::path target(path);
  std::string tmp = (target.parent_path() / ("." + target.filename().string() + ".XXXXXX")).string();
  // mkstemp makes the file with mode 0600, so a key is never readable by others; a certificate
  // is widened afterwards.
  const int fd = ::mkstemp(tmp.data());
  if (fd < 0)
    return errors::permission_denied("directory '", target.parent_path().string(),
                                     "' is not writable: ", std::strerror(errno));
  status st = write_all(fd, contents, tmp);
  if (st.ok() && ::fchmod(fd, mode) != 0)
    st = errors::permission_denied("'", tmp, "' cannot be given its permissions: ", std::strerror(errno));
  ::close(fd);
  if (st.ok()) {
    // rename replaces what is there; link refuses to, atomically, for the no-force case.
    const int rc = force ? ::rename(tmp.c_str(), path.c_str()) : ::link(tmp.c_str(), path.c_str());
    if (rc != 0 && errno == EEXIST)
      st = errors::already_exists("'", path, "' exists; nothing was written (--force replaces it)");
    else if (rc != 0)
      st = errors::permission_denied("'", path, "' cannot be written: ", std::strerror(errno));
  }
  ::unlink(tmp.c_str());  // after link (or a failure); gone already after rename
  return st;
}

}  // namespace caflow::certs
