#include "graph/tf/ordered_code.hpp"

#include <bit>

namespace caflow::tf::ordered_code {

void write_num_increasing(std::string& out, uint64_t v) {
  const int bytes = v == 0 ? 0 : (64 - std::countl_zero(v) + 7) / 8;
  out.push_back(static_cast<char>(bytes));
  for (int i = bytes - 1; i >= 0; --i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

void write_signed_num_increasing(std::string& out, int64_t v) {
  // n bytes hold [-2^(7n-1), 2^(7n-1)): a sign bit, n - 1 length bits and a delimiter bit take
  // n + 1 of the 8n bits; lengths run from 1 to 10.
  const uint64_t magnitude = static_cast<uint64_t>(v < 0 ? ~v : v);
  const int bits = magnitude == 0 ? 0 : 64 - std::countl_zero(magnitude);
  const int n = bits / 7 + 1;
  // The value, two's complement, big-endian over 10 bytes (the top two only sign extension).
  unsigned char buf[10];
  const auto u = static_cast<uint64_t>(v);
  buf[0] = buf[1] = v < 0 ? 0xff : 0x00;
  for (int i = 0; i < 8; ++i) buf[2 + i] = static_cast<unsigned char>(u >> (56 - 8 * i));
  unsigned char* first = buf + 10 - n;
  // The header: n ones from the top (the sign and the length bits), then the delimiter 0;
  // XOR turns it into the complement for a negative number, whose top bits are ones.
  const int header_bits = n;  // ones; the delimiter bit after them stays as the value has it
  for (int b = 0; b < header_bits; ++b) first[b / 8] ^= static_cast<unsigned char>(0x80 >> (b % 8));
  out.append(reinterpret_cast<const char*>(first), static_cast<size_t>(n));
}

void write_string(std::string& out, std::string_view s) {
  for (char c : s) {
    const auto b = static_cast<unsigned char>(c);
    if (b == 0x00) {
      out.push_back('\x00');
      out.push_back('\xff');
    } else if (b == 0xff) {
      out.push_back('\xff');
      out.push_back('\x00');
    } else {
      out.push_back(c);
    }
  }
  out.push_back('\x00');
  out.push_back('\x01');
}

}  // namespace caflow::tf::ordered_code
