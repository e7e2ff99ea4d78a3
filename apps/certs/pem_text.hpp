#pragma once
// PEM in and out of memory and files, the plumbing the key and certificate code share.
#include <openssl/bio.h>

#include <functional>
#include <string>

#include "graph/core/status.hpp"
#include "net/security/openssl_handles.hpp"

namespace caflow::certs {

using bio_ptr = openssl_ptr<BIO, BIO_free_all>;

// What `write` (a PEM_write_bio_* call, true on success) puts into a memory buffer.
status_or<std::string> pem_text(const std::function<bool(BIO*)>& write);

// `path` opened for reading. NOT_FOUND when it does not exist, naming `what` ("CA certificate")
// and the path, so the caller can add how to make it.
status_or<bio_ptr> open_pem_file(const std::string& path, const std::string& what);

}  // namespace caflow::certs
