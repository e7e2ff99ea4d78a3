#!/usr/bin/env bash
# Makes a throw-away certificate authority and certificates signed by it, for tests and for
# trying out a secure cluster (README, "Secure clusters"). NOT for production: the keys are
# unencrypted and the CA key sits beside the certificates.
#
#   scripts/make_test_certs.sh DIR
#
# DIR/ca.pem                       the CA every process trusts (--tls-ca)
# DIR/server.{pem,key}             for caflow-server tasks (--tls-cert, --tls-key)
# DIR/client.{pem,key}             for clients: caflow-train, caflow-console, sessions
# DIR/other-ca.pem, DIR/other.{pem,key}   a second CA and a certificate it signed, which the
#                                  first CA's processes must refuse
#
# Every certificate may act as TLS client and server: a task both accepts connections and
# opens them to its peers, and CAF authenticates both ends with the same certificate.
set -euo pipefail

if [[ $# -ne 1 ]]; then
  echo "usage: $0 DIR" >&2
  exit 2
fi
dir=$1
mkdir -p "$dir"
command -v openssl >/dev/null || { echo "$0: the openssl command is missing" >&2; exit 1; }

ext=$(mktemp)
trap 'rm -f "$ext"' EXIT
cat > "$ext" <<'EXT'
basicConstraints = CA:FALSE
keyUsage = digitalSignature, keyEncipherment
extendedKeyUsage = serverAuth, clientAuth
subjectAltName = DNS:localhost, IP:127.0.0.1
EXT

make_ca() {  # name subject
  openssl req -x509 -newkey rsa:2048 -nodes -sha256 -days 3650 -subj "$2" \
    -keyout "$dir/$1.key" -out "$dir/$1.pem" 2>/dev/null
}

make_cert() {  # name subject ca
  openssl req -new -newkey rsa:2048 -nodes -sha256 -subj "$2" \
    -keyout "$dir/$1.key" -out "$dir/$1.csr" 2>/dev/null
  openssl x509 -req -sha256 -days 3650 -in "$dir/$1.csr" -CA "$dir/$3.pem" -CAkey "$dir/$3.key" \
    -CAcreateserial -extfile "$ext" -out "$dir/$1.pem" 2>/dev/null
  rm -f "$dir/$1.csr"
}

make_ca ca "/CN=caflow test CA"
make_cert server "/CN=caflow server" ca
make_cert client "/CN=caflow client" ca
make_ca other-ca "/CN=another cluster's CA"
make_cert other "/CN=caflow impostor" other-ca
rm -f "$dir"/*.srl
chmod 600 "$dir"/*.key
echo "certificates in $dir"
