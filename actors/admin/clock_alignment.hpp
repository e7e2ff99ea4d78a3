#pragma once
// Where a peer's clock stands against ours, from round trips: we read our clock (t0), ask the
// peer for its clock, read ours again (t1). The peer read its clock somewhere in [t0, t1], so
// the midpoint's error is at most half the round trip; the sample with the shortest round trip
// bounds it best (NTP's and Cristian's rule). One sample is not enough: a round trip that
// carries a big reply (a whole trace) or meets a busy network thread is skewed by milliseconds.
#include <cstdint>
#include <optional>
#include <span>
#include <string>

namespace caflow {

struct clock_sample {
  int64_t sent_us = 0;      // our clock when we asked
  int64_t peer_us = 0;      // the peer's clock when it answered
  int64_t received_us = 0;  // our clock when the answer came
};

// How many round trips the collecting admin makes per peer before it asks for the trace.
inline constexpr int clock_alignment_rounds = 8;

// The offset to add to the peer's times to put them on our clock, from the sample with the
// shortest round trip; nullopt for no samples. Samples whose clock ran backwards (received
// before sent) are ignored.
std::optional<int64_t> clock_offset_us(std::span<const clock_sample> samples);

// This machine's clock domain: the kernel's boot id (/proc/sys/kernel/random/boot_id), else the
// host name. Processes with the same one read the same system clock (containers included: time
// namespaces do not shift CLOCK_REALTIME), so their offset is 0 exactly and no round trip can
// improve on it; estimating it anyway would only add up to half a round trip of error.
const std::string& local_clock_domain();

}  // namespace caflow
