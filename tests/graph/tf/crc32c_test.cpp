// CRC-32C against its published check values, and the masking TensorFlow's files use.
#include <doctest/doctest.h>

#include <string>

#include "graph/tf/crc32c.hpp"

using namespace caflow::tf;

TEST_CASE("crc32c gives the published check values") {
  CHECK(crc32c("123456789") == 0xE3069283u);
  CHECK(crc32c("") == 0u);
  CHECK(crc32c(std::string(32, '\0')) == 0x8A9136AAu);  // RFC 3720, 32 bytes of zeros
  CHECK(crc32c(std::string(32, '\xff')) == 0x62A8AB43u);  // RFC 3720, 32 bytes of ones
  std::string ascending;
  for (int i = 0; i < 32; ++i) ascending += static_cast<char>(i);
  CHECK(crc32c(ascending) == 0x46DD794Eu);  // RFC 3720, 0..31
}

TEST_CASE("extending over pieces equals one pass, at every split") {
  const std::string text = "The quick brown fox jumps over the lazy dog, 0123456789 times.";
  for (size_t cut = 0; cut <= text.size(); ++cut) {
    CAPTURE(cut);
    const uint32_t first = crc32c_extend(0, text.data(), cut);
    CHECK(crc32c_extend(first, text.data() + cut, text.size() - cut) == crc32c(text));
  }
}

TEST_CASE("masking is TensorFlow's and undoes") {
  CHECK(mask_crc(0xE3069283u) == 0xC78AB0E5u);
  for (uint32_t v : {0u, 1u, 0xE3069283u, 0xffffffffu, 0x12345678u}) CHECK(unmask_crc(mask_crc(v)) == v);
}
