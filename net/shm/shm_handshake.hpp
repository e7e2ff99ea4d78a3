#pragma once
// Mutual authentication of the two ends of a same-host shared memory channel, over a connected
// Unix stream socket, before any segment descriptor crosses it (docs/shm_transport.md).
//
// Memory handed to a peer can be read and written by it, so both ends must be tasks of this
// cluster: each checks that its peer runs as this process's uid (SO_PEERCRED, recorded by the
// kernel, not claimed by the peer), and each proves that it knows the cluster's secret without
// revealing it, by an HMAC-SHA256 over fresh random nonces of both ends:
//
//   listener  -> connector  hello: u32 shm_hello_magic, 32-byte nonce L
//   connector -> listener   32-byte nonce C, HMAC(secret, "caflow-shm connector" | L | C)
//   listener  -> connector  u8 verdict ('K' accepted, 'R' refused),
//                           HMAC(secret, "caflow-shm listener" | L | C) (zeros when refused)
//
// The fresh nonce of each side keeps the other from replaying an old proof; the two labels keep
// a peer from reflecting one side's proof back as the other's. Proofs are compared in constant
// time (CRYPTO_memcmp). Every read and write is bounded by the deadline: a peer that stalls,
// sends too little or closes gives an error naming the message, never a hang.
#include <string_view>

#include "graph/core/status.hpp"
#include "net/unix_io.hpp"

namespace caflow {

inline constexpr uint32_t shm_hello_magic = 0xCAF15401;  // ends in the protocol's version
inline constexpr size_t shm_nonce_bytes = 32;
inline constexpr size_t shm_proof_bytes = 32;  // SHA-256
inline constexpr char shm_verdict_accepted = 'K';
inline constexpr char shm_verdict_refused = 'R';

// The listening end's half: OK once the peer proved the secret (and got our proof back).
// Errors: permission_denied for a peer of another uid or a wrong proof (the peer is told
// 'R' first), invalid_argument for an empty secret, and read_exact_until's errors.
status shm_handshake_as_listener(const socket_fd& s, std::string_view secret, io_deadline until);
// The connecting end's half: OK once the listener accepted our proof and proved the secret.
// Errors: permission_denied for a listener of another uid, one that refused our proof (another
// secret) or gave a wrong proof, data_loss for a hello that is not this protocol's, and
// read_exact_until's errors.
status shm_handshake_as_connector(const socket_fd& s, std::string_view secret, io_deadline until);

}  // namespace caflow
