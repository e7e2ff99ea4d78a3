#pragma once
// CRC-32C (Castagnoli), and the masked form TensorFlow's record files and tensor bundles store
// (a CRC of data that holds CRCs is weak, so the stored value is rotated and offset).
// crc32c("123456789") = 0xE3069283; masked 0xC78AB0E5.
//
// Hand-written: Debian packages no CRC-32C library (leveldb and protobuf keep theirs internal).
// Slicing by 8 tables, about 1 GB/s a core; the files it guards are written once per step.
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace caflow::tf {

// Extends `crc` (the CRC of what came before, 0 at the start) over `data`.
uint32_t crc32c_extend(uint32_t crc, const void* data, size_t n);
inline uint32_t crc32c(std::string_view data) { return crc32c_extend(0, data.data(), data.size()); }

inline uint32_t mask_crc(uint32_t crc) { return ((crc >> 15) | (crc << 17)) + 0xa282ead8u; }
inline uint32_t unmask_crc(uint32_t masked) {
  const uint32_t rot = masked - 0xa282ead8u;
  return (rot >> 17) | (rot << 15);
}

}  // namespace caflow::tf
