#pragma once
// Versioned binary archives of tensors, graph_defs and named tensor lists (checkpoints).
//
// An archive is a 20-byte envelope, little-endian, followed by a Boost.Serialization binary
// archive (the payload):
//
//   "CFLW" | u16 format version | u16 payload kind | u64 payload length | u32 CRC-32 | payload
//
// Every class in the payload carries a Boost class version, so a later build can still read
// what this one wrote. The payload is in the writer's byte order and word sizes (Boost's
// binary format records them); a reader whose differ refuses the archive.
//
// Loading never trusts the input: the envelope (magic, version, kind, length, checksum) is
// checked before the payload is parsed, and the parser checks every count it reads against
// the bytes still unread before allocating anything. A truncated, corrupted or deliberately
// malicious archive therefore yields an error (data_loss), never a crash, and never an
// allocation larger than a small constant times the input size. Nothing throws out of these
// functions except std::bad_alloc from the serialize_* ones when the output does not fit.
//
// A deserialized graph_def is structurally sound (valid dtypes, shapes, tensors, no duplicate
// attrs) but its ops, names and edges are not checked here: that is graph::build's job.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "graph/core/allocator.hpp"
#include "graph/core/status.hpp"
#include "graph/core/tensor.hpp"
#include "graph/ir/graph_def.hpp"

namespace caflow {

// A tensor with the name it is stored under, e.g. in a checkpoint.
using named_tensor = std::pair<std::string, tensor>;

// An uninitialized tensor round-trips as an uninitialized tensor.
std::string serialize_tensor(const tensor& t);
void serialize_tensor(const tensor& t, std::vector<char>& out);  // replaces `out`
// Tensor buffers come from `alloc`; the input is copied, not referenced.
status_or<tensor> deserialize_tensor(std::string_view bytes,
                                     const std::shared_ptr<allocator>& alloc = default_allocator());
status_or<tensor> deserialize_tensor(const std::vector<char>& bytes,
                                     const std::shared_ptr<allocator>& alloc = default_allocator());

std::string serialize_graph(const graph_def& g);
void serialize_graph(const graph_def& g, std::vector<char>& out);  // replaces `out`
// Tensors in attrs get their buffers from `alloc`.
status_or<graph_def> deserialize_graph(std::string_view bytes,
                                       const std::shared_ptr<allocator>& alloc = default_allocator());
status_or<graph_def> deserialize_graph(const std::vector<char>& bytes,
                                       const std::shared_ptr<allocator>& alloc = default_allocator());

// Keeps order and duplicates: a list, not a map.
std::string serialize_tensors(const std::vector<named_tensor>& tensors);
void serialize_tensors(const std::vector<named_tensor>& tensors, std::vector<char>& out);
status_or<std::vector<named_tensor>> deserialize_tensors(
    std::string_view bytes, const std::shared_ptr<allocator>& alloc = default_allocator());
status_or<std::vector<named_tensor>> deserialize_tensors(
    const std::vector<char>& bytes, const std::shared_ptr<allocator>& alloc = default_allocator());

// The envelope. Exposed for the serializers and for tests that forge archives; not an API.
namespace detail {

enum class archive_kind : uint16_t { tensor = 1, graph = 2, tensor_list = 3 };

inline constexpr size_t archive_header_size = 20;
inline constexpr uint16_t archive_format_version = 1;

// "tensor", "graph", "tensor list", or "unknown".
const char* archive_kind_name(archive_kind kind);

// Writes the envelope into archive[0, archive_header_size) for the payload that follows it.
// REQUIRES: archive.size() >= archive_header_size.
void seal_archive(archive_kind kind, std::span<char> archive);

// Checks the envelope of `bytes` against `expected` and returns the payload, a view into
// `bytes`. Errors are data_loss and say what is wrong ("checksum mismatch", "truncated", ...).
status_or<std::string_view> open_archive(archive_kind expected, std::string_view bytes);

// Recomputes the payload length and checksum of a (tampered) archive, keeping its magic,
// version and kind, so tests can feed the payload parser bytes no honest writer produces.
// Inputs shorter than the envelope come back unchanged.
std::string reseal_for_testing(std::string_view archive);

}  // namespace detail
}  // namespace caflow
