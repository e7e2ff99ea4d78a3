#include "net/shm/shm_handshake.hpp"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>
#include <unistd.h>

#include <array>
#include <cstring>

#include "net/security/openssl_handles.hpp"

namespace caflow {
namespace {

using nonce = std::array<unsigned char, shm_nonce_bytes>;
using proof = std::array<unsigned char, shm_proof_bytes>;

constexpr std::string_view connector_label = "caflow-shm connector";
constexpr std::string_view listener_label = "caflow-shm listener";

status fresh_nonce(nonce& out) {
  if (RAND_bytes(out.data(), static_cast<int>(out.size())) != 1)
    return errors::internal("RAND_bytes failed for the shm handshake's nonce", openssl_reason());
  return {};
}

// HMAC-SHA256(secret, label | L | C).
status make_proof(std::string_view secret, std::string_view label, const nonce& l,
                  const nonce& c, proof& out) {
  std::array<unsigned char, 64 + 2 * shm_nonce_bytes> data{};
  static_assert(connector_label.size() <= 64 && listener_label.size() <= 64);
  std::memcpy(data.data(), label.data(), label.size());
  std::memcpy(data.data() + label.size(), l.data(), l.size());
  std::memcpy(data.data() + label.size() + l.size(), c.data(), c.size());
  unsigned int len = 0;
  if (!HMAC(EVP_sha256(), secret.data(), static_cast<int>(secret.size()), data.data(),
            label.size() + l.size() + c.size(), out.data(), &len) ||
      len != out.size())
    return errors::internal("HMAC-SHA256 failed for the shm handshake", openssl_reason());
  return {};
}

status check_secret(std::string_view secret) {
  if (secret.empty())
    return errors::invalid_argument("shm handshake: the cluster secret is empty, which proves "
                                    "nothing; same-host shared memory needs one");
  return {};
}

}  // namespace

status shm_handshake_as_listener(const socket_fd& s, std::string_view secret, io_deadline until) {
  CAFLOW_RETURN_IF_ERROR(check_secret(secret));
  CAFLOW_RETURN_IF_ERROR(check_peer_uid(s, ::geteuid()));
  nonce l{}, c{};
  CAFLOW_RETURN_IF_ERROR(fresh_nonce(l));
  std::array<unsigned char, 4 + shm_nonce_bytes> hello{};
  std::memcpy(hello.data(), &shm_hello_magic, 4);
  std::memcpy(hello.data() + 4, l.data(), l.size());
  CAFLOW_RETURN_IF_ERROR(write_all_until(s, hello.data(), hello.size(), until, "the shm hello"));

  std::array<unsigned char, shm_nonce_bytes + shm_proof_bytes> answer{};
  CAFLOW_RETURN_IF_ERROR(
      read_exact_until(s, answer.data(), answer.size(), until, "the connector's shm proof"));
  std::memcpy(c.data(), answer.data(), c.size());
  proof expected{};
  CAFLOW_RETURN_IF_ERROR(make_proof(secret, connector_label, l, c, expected));
  const bool proved =
      CRYPTO_memcmp(expected.data(), answer.data() + c.size(), expected.size()) == 0;

  std::array<unsigned char, 1 + shm_proof_bytes> verdict{};
  verdict[0] = proved ? shm_verdict_accepted : shm_verdict_refused;
  if (proved) {
    proof mine{};
    CAFLOW_RETURN_IF_ERROR(make_proof(secret, listener_label, l, c, mine));
    std::memcpy(verdict.data() + 1, mine.data(), mine.size());
  }
  // Telling a refused peer why is best effort: it may be gone already.
  const status sent = write_all_until(s, verdict.data(), verdict.size(), until, "the shm verdict");
  if (!proved)
    return errors::permission_denied("shm handshake: the connecting peer's proof of the cluster "
                                     "secret does not match (another cluster, or a wrong secret)");
  return sent;
}

status shm_handshake_as_connector(const socket_fd& s, std::string_view secret, io_deadline until) {
  CAFLOW_RETURN_IF_ERROR(check_secret(secret));
  CAFLOW_RETURN_IF_ERROR(check_peer_uid(s, ::geteuid()));
  std::array<unsigned char, 4 + shm_nonce_bytes> hello{};
  CAFLOW_RETURN_IF_ERROR(read_exact_until(s, hello.data(), hello.size(), until, "the shm hello"));
  uint32_t magic = 0;
  std::memcpy(&magic, hello.data(), 4);
  if (magic != shm_hello_magic)
    return errors::data_loss("shm handshake: the listener's hello starts with ", magic,
                             ", not ", shm_hello_magic, ": not a caflow shm listener of this "
                             "version");
  nonce l{}, c{};
  std::memcpy(l.data(), hello.data() + 4, l.size());
  CAFLOW_RETURN_IF_ERROR(fresh_nonce(c));
  proof mine{};
  CAFLOW_RETURN_IF_ERROR(make_proof(secret, connector_label, l, c, mine));
  std::array<unsigned char, shm_nonce_bytes + shm_proof_bytes> answer{};
  std::memcpy(answer.data(), c.data(), c.size());
  std::memcpy(answer.data() + c.size(), mine.data(), mine.size());
  CAFLOW_RETURN_IF_ERROR(
      write_all_until(s, answer.data(), answer.size(), until, "the connector's shm proof"));

  std::array<unsigned char, 1 + shm_proof_bytes> verdict{};
  CAFLOW_RETURN_IF_ERROR(
      read_exact_until(s, verdict.data(), verdict.size(), until, "the shm verdict"));
  if (verdict[0] == shm_verdict_refused)
    return errors::permission_denied("shm handshake: the listener refused our proof of the "
                                     "cluster secret (another cluster, or a wrong secret)");
  proof expected{};
  CAFLOW_RETURN_IF_ERROR(make_proof(secret, listener_label, l, c, expected));
  if (verdict[0] != shm_verdict_accepted ||
      CRYPTO_memcmp(expected.data(), verdict.data() + 1, expected.size()) != 0)
    return errors::permission_denied("shm handshake: the listener's proof of the cluster secret "
                                     "does not match (another cluster, or a wrong secret)");
  return {};
}

}  // namespace caflow
