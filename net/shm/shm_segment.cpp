#include "net/shm/shm_segment.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace caflow {
namespace {

// The seals a segment carries, and that a received one must carry: its size is fixed for
// good (F_SEAL_SEAL: nobody can add F_SEAL_WRITE later and stop the other side's writes).
constexpr int required_seals = F_SEAL_SHRINK | F_SEAL_GROW;
constexpr int creation_seals = required_seals | F_SEAL_SEAL;

status syscall_error(const char* call, const std::string& what, int err) {
  return errors::internal(call, "(", what, ") failed: ", std::strerror(err));
}

// Maps all `bytes` of `fd` shared and read-write; closes `fd` on failure.
status_or<void*> map_whole(int fd, size_t bytes, const std::string& what) {
  void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (p == MAP_FAILED) {
    const int err = errno;
    ::close(fd);
    return syscall_error("mmap", what, err);
  }
  return p;
}

}  // namespace

status_or<shm_segment> shm_segment::create(const std::string& name, size_t bytes) {
  if (bytes == 0) return errors::invalid_argument("shm segment '", name, "': size 0");
  const int fd = ::memfd_create(name.c_str(), MFD_CLOEXEC | MFD_ALLOW_SEALING);
  if (fd < 0) return syscall_error("memfd_create", name, errno);
  if (::ftruncate(fd, static_cast<off_t>(bytes)) != 0) {
    const int err = errno;
    ::close(fd);
    return syscall_error("ftruncate", name + ", " + std::to_string(bytes) + " bytes", err);
  }
  if (::fcntl(fd, F_ADD_SEALS, creation_seals) != 0) {
    const int err = errno;
    ::close(fd);
    return syscall_error("fcntl(F_ADD_SEALS)", name, err);
  }
  CAFLOW_ASSIGN_OR_RETURN(void* data, map_whole(fd, bytes, name));
  return shm_segment(fd, data, bytes);
}

status_or<shm_segment> shm_segment::adopt(int fd, size_t expected_bytes) {
  const std::string what = "received descriptor " + std::to_string(fd);
  const int seals = ::fcntl(fd, F_GET_SEALS);
  if (seals < 0) {
    const int err = errno;
    ::close(fd);
    // EINVAL: not a memfd (a plain file, a socket), which a peer could change under us.
    return errors::permission_denied("fcntl(F_GET_SEALS)(", what, ") failed: ",
                                     std::strerror(err), ": not a sealed memfd, refused");
  }
  if ((seals & required_seals) != required_seals) {
    ::close(fd);
    return errors::permission_denied(what, " is not sealed against shrinking and growing",
                                     " (seals ", seals, "): refused, a peer could truncate",
                                     " it under this process");
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    const int err = errno;
    ::close(fd);
    return syscall_error("fstat", what, err);
  }
  if (static_cast<uint64_t>(st.st_size) != expected_bytes || expected_bytes == 0) {
    ::close(fd);
    return errors::invalid_argument(what, " has ", static_cast<long long>(st.st_size),
                                    " bytes, but ", expected_bytes, " were announced");
  }
  CAFLOW_ASSIGN_OR_RETURN(void* data, map_whole(fd, expected_bytes, what));
  return shm_segment(fd, data, expected_bytes);
}

shm_segment& shm_segment::operator=(shm_segment&& other) noexcept {
  if (this != &other) {
    release();
    fd_ = std::exchange(other.fd_, -1);
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
  }
  return *this;
}

shm_segment::~shm_segment() { release(); }

void shm_segment::release() {
  if (data_) ::munmap(data_, size_);
  if (fd_ >= 0) ::close(fd_);
  data_ = nullptr;
  fd_ = -1;
  size_ = 0;
}

}  // namespace caflow
