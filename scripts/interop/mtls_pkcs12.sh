#!/usr/bin/env bash
# Interop: mutual TLS with client certificates made by OpenSSL (Debian), against a sandbox started
# with --client-ca, for both remote-auth and curl.
#
#   mtls_pkcs12.sh REMOTE_AUTH_BINARY
#
# openssl makes a client CA, a client certificate it signs (PEM), the same as PKCS#12 (OpenSSL 3's
# default AES-256 bundle, and a -legacy RC2/3DES one), and a second CA's certificate the sandbox
# does not know. `remote-auth sandbox --tls --write-certificate F --client-ca CA` serves; then:
#   curl  --cert/--key: 200 with alice's JSON; without a certificate: refused
#   remote-auth --cert/--key (PEM), --cert-type p12 (both bundles, REMOTE_AUTH_CERT_PASSPHRASE): 200;
#   a wrong passphrase: exit 2 naming the PKCS#12 bundle; no certificate: exit 2 saying the server
#   requires one; the other CA's certificate: exit 2
# Prints one 'FAIL:' line per failed check and ends with 'mtls: N passed, M failed'.
set -uo pipefail
source "$(dirname "$0")/lib.sh"
interop_begin mtls

if [ $# -ne 1 ] || [ ! -x "$1" ]; then
    fatal "usage: mtls_pkcs12.sh REMOTE_AUTH_BINARY (an executable)"
fi
binary="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
for tool in openssl curl; do
    command -v "$tool" >/dev/null || fatal "$tool is not installed (scripts/interop.sh installs it)"
done

cd "$work" || exit 1
# make_ca NAME: NAME.pem and NAME.key, a P-256 CA.
make_ca() {
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$1.key" -out "$1.pem" \
        -subj "/CN=RemoteAuth interop $1" -days 2 \
        -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign" 2>/dev/null
}
# make_client NAME CA: NAME.pem and NAME.key, a client certificate CA signs.
make_client() {
    openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$1.key" -out "$1.csr" \
        -subj "/CN=$1" 2>/dev/null &&
        printf 'basicConstraints=critical,CA:FALSE\nextendedKeyUsage=clientAuth\n' >"$1.ext" &&
        openssl x509 -req -in "$1.csr" -CA "$2.pem" -CAkey "$2.key" -CAcreateserial -out "$1.pem" -days 1 \
            -extfile "$1.ext" 2>/dev/null
}
if ! make_ca clients || ! make_client alice clients || ! make_ca strangers || ! make_client mallory strangers ||
    ! openssl pkcs12 -export -in alice.pem -inkey alice.key -out alice.p12 -passout pass:'p12 pass+ü' 2>/dev/null ||
    ! openssl pkcs12 -export -legacy -in alice.pem -inkey alice.key -out alice-legacy.p12 \
        -passout pass:'p12 pass+ü' 2>/dev/null; then
    fatal "openssl could not make the certificates and bundles"
fi
echo "mtls: $(openssl version | cut -d' ' -f1-2) made a client CA, alice's certificate, two PKCS#12 bundles, and a stranger's"

start_sandbox sandbox "$binary" --tls --write-certificate server.pem --client-ca clients.pem ||
    fatal "the sandbox did not start"
grep -q '^Mutual TLS: a client certificate from --client-ca is required\.$' sandbox.out
check "$([ $? -eq 0 ] && echo yes)" "the sandbox's banner does not announce mutual TLS"
echo "mtls: sandbox at $url, requiring client certificates from the client CA"

alice='{"authenticated": true, "user": "alice"}'
resource="$url/basic/"

# curl, the peer: with alice's certificate, and without one.
out="$(curl -sS --cacert server.pem --cert alice.pem --key alice.key -u alice:wonderland "$resource" 2>&1)"
check "$([ "$out" = "$alice" ] && echo yes)" "curl --cert alice.pem: expected alice's JSON, got: $out"
curl -sS --cacert server.pem -u alice:wonderland "$resource" >/dev/null 2>curl.err
status=$?
check "$([ $status -ne 0 ] && echo yes)" "curl without a client certificate was let in"

# request ARGS...: runs remote-auth request; sets out, err, status.
request() {
    out="$("$binary" request --cacert server.pem --user alice:wonderland "$@" "$resource" 2>err.txt)"
    status=$?
    err="$(cat err.txt)"
}
request --cert alice.pem --key alice.key
check "$([ $status -eq 0 ] && [ "$out" = "$alice" ] && echo yes)" \
    "remote-auth --cert alice.pem --key alice.key: status $status, out '$out', err '$err'"
for bundle in alice.p12 alice-legacy.p12; do
    REMOTE_AUTH_CERT_PASSPHRASE='p12 pass+ü' request --cert "$bundle" --cert-type p12
    check "$([ $status -eq 0 ] && [ "$out" = "$alice" ] && echo yes)" \
        "remote-auth --cert $bundle --cert-type p12: status $status, out '$out', err '$err'"
done
REMOTE_AUTH_CERT_PASSPHRASE='wrong' request --cert alice.p12 --cert-type p12
check "$([ $status -eq 2 ] && [ -z "$out" ] && [[ "$err" == "remote-auth: the PKCS#12 bundle does not open (wrong passphrase?)"* ]] && echo yes)" \
    "a wrong PKCS#12 passphrase: status $status, err '$err'"
request
# 35: the TLS handshake failed (curl's CURLE_SSL_CONNECT_ERROR).
check "$([ $status -eq 35 ] && [ -z "$out" ] && [[ "$err" == *"(the server requires a client certificate)"* ]] && echo yes)" \
    "no client certificate: expected exit 35 saying the server requires one; status $status, err '$err'"
request --cert mallory.pem --key mallory.key
check "$([ $status -eq 35 ] && [ -z "$out" ] && [[ "$err" == *"(the server did not accept the client certificate)"* ]] && echo yes)" \
    "a certificate from a CA the sandbox does not trust: status $status, out '$out', err '$err'"
request --cert alice.pem --key mallory.key
check "$([ $status -eq 2 ] && [ -z "$out" ] && echo yes)" \
    "alice's certificate with another key: status $status, out '$out', err '$err'"

processes_alive
interop_finish
