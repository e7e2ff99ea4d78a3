#pragma once
// 16-byte packets for the element-wise kernels: a memory-bound kernel moves the same bytes with
// a quarter of the load and store instructions (float: 4 per packet), which is what lets it
// reach the GPU's bandwidth. Only for contiguous operands whose addresses are packet-aligned;
// the last n % width elements are done one by one.
#include <cstddef>
#include <cstdint>

namespace caflow::gpu {

template <class T>
inline constexpr int packet_width = sizeof(T) >= 16 ? 1 : static_cast<int>(16 / sizeof(T));

// N values of T loaded or stored as one instruction (alignas makes the compiler emit it).
template <class T, int N>
struct alignas(sizeof(T) * N) packet {
  T v[N];
};

// True when p may be read as packets of N values of T.
template <class T, int N>
inline bool packet_aligned(const T* p) {
  return reinterpret_cast<uintptr_t>(p) % sizeof(packet<T, N>) == 0;
}

}  // namespace caflow::gpu
