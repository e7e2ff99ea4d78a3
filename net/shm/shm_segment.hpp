#pragma once
// A shared memory segment for the same-host transport (docs/shm_transport.md): an anonymous
// memfd of a fixed size, sealed so that its size can never change, mapped read-write. Its
// descriptor is what travels to another process of the cluster (net/shm/shm_fd_passing.hpp), which
// maps the same pages: bytes written by either side are seen by the other, with no copy.
//
// Why sealed: a process that maps a file and then has it shrunk under it dies of SIGBUS at the
// next touch of a page past the new end. A segment refuses to map a descriptor whose size can
// still shrink (or grow, which would make the size the sender announced a lie), so a peer cannot
// crash this process by truncating a segment it handed over.
//
// Owns the descriptor and the mapping; move-only; both are released on destruction (the pages
// live on while any other process still maps them or holds the descriptor).
#include <cstddef>
#include <string>
#include <utility>

#include "graph/core/status.hpp"

namespace caflow {

class shm_segment {
 public:
  // A fresh zero-filled segment of `bytes` bytes (> 0), sealed against any change of size.
  // `name` only labels it (/proc/<pid>/fd shows "memfd:<name>"). Errors name the syscall that
  // failed and errno's text.
  static status_or<shm_segment> create(const std::string& name, size_t bytes);
  // Takes ownership of `fd`, a memfd received from a peer, and maps all of it. REQUIRES of the
  // descriptor (checked, an error otherwise, and `fd` is closed either way): its seals forbid
  // shrinking and growing, and its size is `expected_bytes`.
  static status_or<shm_segment> adopt(int fd, size_t expected_bytes);

  shm_segment(shm_segment&& other) noexcept
      : fd_(std::exchange(other.fd_, -1)),
        data_(std::exchange(other.data_, nullptr)),
        size_(std::exchange(other.size_, 0)) {}
  shm_segment& operator=(shm_segment&& other) noexcept;
  shm_segment(const shm_segment&) = delete;
  shm_segment& operator=(const shm_segment&) = delete;
  ~shm_segment();

  // The mapping: size() bytes, page-aligned, readable and writable.
  void* data() const { return data_; }
  size_t size() const { return size_; }
  // The descriptor, still owned by the segment (sending it duplicates it into the peer).
  int fd() const { return fd_; }

 private:
  shm_segment(int fd, void* data, size_t size) : fd_(fd), data_(data), size_(size) {}
  void release();

  int fd_ = -1;
  void* data_ = nullptr;
  size_t size_ = 0;
};

}  // namespace caflow
