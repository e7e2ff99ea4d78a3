// The same-host shared memory handshake (net/shm/shm_handshake.hpp) against a peer that sends the
// input and closes: run once as the connector (the input is the listener's hello, then its
// verdict) and once as the listener (the input is the connector's nonce and proof), each over a
// socketpair, so the peer is of our uid and only the bytes are foreign. Neither end may accept:
// every proof binds a fresh nonce of its own, which the input cannot know. The errors must be the
// documented ones; the connector must send nothing to a hello that is not this protocol's, and
// the listener's refusal must carry no proof. The seeds (corpus/shm_handshake/seed-*) are
// well-formed hellos, verdicts and answers with wrong proofs, and cut or foreign ones.
#include <sys/socket.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>

#include "net/shm/shm_handshake.hpp"

namespace {

using namespace caflow;

constexpr std::string_view secret = "fuzz cluster secret";
constexpr size_t hello_bytes = 4 + shm_nonce_bytes;
constexpr size_t answer_bytes = shm_nonce_bytes + shm_proof_bytes;
constexpr size_t verdict_bytes = 1 + shm_proof_bytes;

[[noreturn]] void fail(const char* role, const std::string& what, const status& s) {
  std::fprintf(stderr, "shm handshake as %s: %s (%s)\n", role, what.c_str(), s.to_string().c_str());
  std::abort();
}

struct channel {
  socket_fd ours, peer;
};

// A connected pair whose peer end has sent `bytes` and shut down writing, so every read past
// them sees the end of the stream at once instead of waiting for the deadline.
channel connect_peer(const uint8_t* bytes, size_t size) {
  int fds[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0) {
    std::perror("socketpair");
    std::abort();
  }
  channel c{socket_fd(fds[0]), socket_fd(fds[1])};
  if (size > 0 && ::send(c.peer.get(), bytes, size, MSG_NOSIGNAL) != static_cast<ssize_t>(size)) {
    std::perror("send");
    std::abort();
  }
  ::shutdown(c.peer.get(), SHUT_WR);
  return c;
}

// Everything our end sent to the peer.
std::string sent_to_peer(const channel& c) {
  std::string out;
  char buf[256];
  for (ssize_t n; (n = ::recv(c.peer.get(), buf, sizeof buf, MSG_DONTWAIT)) > 0;)
    out.append(buf, static_cast<size_t>(n));
  return out;
}

io_deadline soon() { return std::chrono::steady_clock::now() + std::chrono::seconds(5); }

void as_connector(const uint8_t* data, size_t size) {
  const channel c = connect_peer(data, size);
  const status s = shm_handshake_as_connector(c.ours, secret, soon());
  const std::string sent = sent_to_peer(c);
  if (s.ok()) fail("connector", "accepted a listener that cannot know our nonce", s);
  uint32_t magic = 0;
  if (size >= 4) std::memcpy(&magic, data, 4);
  const bool hello_ok = size >= hello_bytes && magic == shm_hello_magic;
  if (!hello_ok) {
    const error_code want = size < hello_bytes ? error_code::unavailable : error_code::data_loss;
    if (s.code() != want) fail("connector", "a cut or foreign hello gave the wrong error", s);
    if (!sent.empty()) fail("connector", "sent a proof to a listener of another protocol", s);
    return;
  }
  if (sent.size() != answer_bytes)
    fail("connector", "answered a hello with " + std::to_string(sent.size()) + " bytes", s);
  const error_code want = size < hello_bytes + verdict_bytes ? error_code::unavailable
                                                             : error_code::permission_denied;
  if (s.code() != want) fail("connector", "a cut or wrong verdict gave the wrong error", s);
}

void as_listener(const uint8_t* data, size_t size) {
  const channel c = connect_peer(data, size);
  const status s = shm_handshake_as_listener(c.ours, secret, soon());
  const std::string sent = sent_to_peer(c);
  if (s.ok()) fail("listener", "accepted a connector that cannot know our nonce", s);
  if (sent.size() < hello_bytes || std::memcmp(sent.data(), &shm_hello_magic, 4) != 0)
    fail("listener", "did not start with its hello", s);
  if (size < answer_bytes) {
    if (s.code() != error_code::unavailable) fail("listener", "a cut answer gave the wrong error", s);
    if (sent.size() != hello_bytes) fail("listener", "sent a verdict on a cut answer", s);
    return;
  }
  if (s.code() != error_code::permission_denied)
    fail("listener", "a wrong proof gave the wrong error", s);
  const std::string refusal = std::string(1, shm_verdict_refused) + std::string(shm_proof_bytes, '\0');
  if (sent.substr(hello_bytes) != refusal)
    fail("listener", "refused without exactly 'R' and no proof", s);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // More than either end ever reads is just left unread; capped so one send always fits.
  size = std::min<size_t>(size, 4096);
  as_connector(data, size);
  as_listener(data, size);
  return 0;
}
