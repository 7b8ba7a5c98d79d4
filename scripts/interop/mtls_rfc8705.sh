#!/usr/bin/env bash
# Interop: RFC 8705 (OAuth 2.0 mutual-TLS client authentication and certificate-bound access
# tokens) with peers nobody here wrote: certificates made by OpenSSL, curl as a client of the
# sandbox, and Python's ssl + http.server as a TLS server that requires client certificates.
#
#   mtls_rfc8705.sh REMOTE_AUTH_BINARY
#
# 1. curl --cert/--key against `remote-auth sandbox --tls --client-ca CA --client-cert-optional`:
#    a self_signed_tls_client_auth client and a tls_client_auth client (subject DN as
#    `openssl x509 -subject -nameopt RFC2253` prints it) get tokens (200); introspection's
#    cnf.x5t#S256 is `openssl x509 -fingerprint -sha256` in base64url; the status API answers 200
#    with the certificate, 401 invalid_token without one or with another; the token endpoint
#    answers 401 invalid_client without a certificate, with the wrong one, with an unregistered DN.
# 2. `remote-auth authorize oauth2 --client-credentials --client-auth self-signed-tls-client-auth
#    --cert/--key` signs in to the sandbox; `request --profile` (no --cert) presents the same
#    certificate again: 200 from the bound token (which is refused to curl without it).
# 3. `remote-auth request --cert/--key` against Python's ssl server (CERT_REQUIRED): the server
#    saw the certificate OpenSSL made (its SHA-256 and subject); without --cert, refused.
# Prints one 'FAIL:' line per failed check and ends with 'mtls-rfc8705: N passed, M failed'.
set -uo pipefail
source "$(dirname "$0")/lib.sh"
interop_begin mtls-rfc8705

if [ $# -ne 1 ] || [ ! -x "$1" ]; then
    fatal "usage: mtls_rfc8705.sh REMOTE_AUTH_BINARY (an executable)"
fi
binary="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
for tool in openssl curl python3; do
    command -v "$tool" >/dev/null || fatal "$tool is not installed (scripts/interop.sh installs it)"
done

cd "$work" || exit 1
export REMOTE_AUTH_HOME="$work/home"
mkdir -p "$REMOTE_AUTH_HOME"

# make_ca NAME: NAME.pem and NAME.key, a P-256 CA.
make_ca() {
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$1.key" -out "$1.pem" \
        -subj "/CN=RemoteAuth interop $1" -days 2 \
        -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign" 2>/dev/null
}
# make_leaf NAME CA SUBJECT EXTENSIONS: NAME.pem and NAME.key, signed by CA.
make_leaf() {
    openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$1.key" -out "$1.csr" \
        -subj "$3" 2>/dev/null &&
        printf '%b' "$4" >"$1.ext" &&
        openssl x509 -req -in "$1.csr" -CA "$2.pem" -CAkey "$2.key" -CAcreateserial -out "$1.pem" -days 1 \
            -extfile "$1.ext" 2>/dev/null
}
# make_self_signed NAME SUBJECT: a self-signed client certificate.
make_self_signed() {
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$1.key" -out "$1.pem" \
        -subj "$2" -days 1 -addext "basicConstraints=critical,CA:FALSE" \
        -addext "extendedKeyUsage=clientAuth" 2>/dev/null
}
client_ext='basicConstraints=critical,CA:FALSE\nextendedKeyUsage=clientAuth\n'
server_ext='basicConstraints=critical,CA:FALSE\nextendedKeyUsage=serverAuth\nsubjectAltName=IP:127.0.0.1,DNS:localhost\n'
if ! make_ca clients || ! make_leaf svc clients "/O=Interop/CN=svc" "$client_ext" ||
    ! make_leaf intruder clients "/O=Interop/CN=intruder" "$client_ext" ||
    ! make_self_signed selfie "/CN=selfie" || ! make_self_signed stranger "/CN=stranger" ||
    ! make_ca servers || ! make_leaf pyserver servers "/CN=127.0.0.1" "$server_ext"; then
    fatal "openssl could not make the certificates"
fi
# x5t FILE: RFC 8705 §3.1's x5t#S256 from OpenSSL's SHA-256 fingerprint (hex with colons) in base64url.
x5t() {
    openssl x509 -in "$1" -noout -fingerprint -sha256 | sed 's/.*=//' |
        python3 -c 'import sys, base64; print(base64.urlsafe_b64encode(bytes.fromhex(sys.stdin.read().strip().replace(":", ""))).decode().rstrip("="))'
}
svc_dn="$(openssl x509 -in svc.pem -noout -subject -nameopt RFC2253 | sed 's/^subject=//')"
selfie_x5t="$(x5t selfie.pem)"
svc_x5t="$(x5t svc.pem)"
echo "mtls-rfc8705: $(openssl version | cut -d' ' -f1-2) made a client CA, svc ($svc_dn), a self-signed client (x5t#S256 $selfie_x5t), strangers"

python3 - "$svc_dn" <<'EOF' >config.json || fatal "could not write the sandbox configuration"
import json, sys
print(json.dumps({"oauth2Clients": [
    {"id": "pki-client", "tokenEndpointAuthMethod": "tls_client_auth", "tlsClientAuthSubjectDN": sys.argv[1]},
    {"id": "selfie-client", "tokenEndpointAuthMethod": "self_signed_tls_client_auth",
     "tlsClientCertificatePEM": open("selfie.pem").read()},
]}))
EOF

start_sandbox sandbox "$binary" --tls --write-certificate server.pem --client-ca clients.pem \
    --client-cert-optional --config config.json || fatal "the sandbox did not start"
echo "mtls-rfc8705: sandbox at $url, asking for client certificates"

# curl_json ARGS...: curl with the sandbox's certificate; sets code (the HTTP status) and body.
curl_json() {
    body="$(curl -sS --cacert server.pem -o - -w '\n%{http_code}' "$@" 2>curl.err)"
    code="${body##*$'\n'}"
    body="${body%$'\n'*}"
}
member() { python3 -c 'import json, sys; v = json.loads(sys.argv[1]); print(eval(sys.argv[2]))' "$1" "$2" 2>/dev/null; }

# 1. curl is the client.
token_form=(-d grant_type=client_credentials -d scope=statuses:read)
curl_json --cert selfie.pem --key selfie.key "${token_form[@]}" -d client_id=selfie-client "$url/oauth2/token"
selfie_token="$(member "$body" 'v["access_token"]')"
check "$([ "$code" = 200 ] && [ -n "$selfie_token" ] && echo yes)" \
    "curl self_signed_tls_client_auth: expected 200 and a token, got $code: $body $(cat curl.err)"
curl_json -u demo-service:demo-service-secret -d "token=$selfie_token" "$url/oauth2/introspect"
cnf="$(member "$body" 'v["cnf"]["x5t#S256"]')"
check "$([ "$code" = 200 ] && [ "$cnf" = "$selfie_x5t" ] && echo yes)" \
    "introspection cnf.x5t#S256: expected openssl's $selfie_x5t, got $code: $body"

curl_json --cert svc.pem --key svc.key "${token_form[@]}" -d client_id=pki-client "$url/oauth2/token"
svc_token="$(member "$body" 'v["access_token"]')"
check "$([ "$code" = 200 ] && [ -n "$svc_token" ] && echo yes)" \
    "curl tls_client_auth ($svc_dn): expected 200 and a token, got $code: $body"
curl_json -u demo-service:demo-service-secret -d "token=$svc_token" "$url/oauth2/introspect"
cnf="$(member "$body" 'v["cnf"]["x5t#S256"]')"
check "$([ "$cnf" = "$svc_x5t" ] && echo yes)" "tls_client_auth token: cnf.x5t#S256 '$cnf', openssl's '$svc_x5t'"

timeline="$url/1.1/statuses/home_timeline.json"
curl_json --cert selfie.pem --key selfie.key -H "Authorization: Bearer $selfie_token" "$timeline"
check "$([ "$code" = 200 ] && echo yes)" "the bound token with its certificate: expected 200, got $code: $body"
for without in "none" "stranger" "svc"; do
    if [ "$without" = none ]; then certificate=(); else certificate=(--cert "$without.pem" --key "$without.key"); fi
    challenge="$(curl -sS --cacert server.pem ${certificate[@]+"${certificate[@]}"} -o /dev/null -D - \
        -H "Authorization: Bearer $selfie_token" "$timeline" | tr -d '\r')"
    status="$(echo "$challenge" | head -n 1 | cut -d' ' -f2)"
    check "$([ "$status" = 401 ] && echo "$challenge" | grep -qi '^www-authenticate: Bearer .*error="invalid_token"' && echo yes)" \
        "the bound token over a connection with certificate '$without': expected 401 invalid_token, got: $challenge"
done

for refused in "selfie-client:none" "selfie-client:stranger" "pki-client:intruder" "pki-client:selfie" "pki-client:none"; do
    client="${refused%%:*}" presented="${refused##*:}"
    if [ "$presented" = none ]; then certificate=(); else certificate=(--cert "$presented.pem" --key "$presented.key"); fi
    curl_json ${certificate[@]+"${certificate[@]}"} "${token_form[@]}" -d "client_id=$client" "$url/oauth2/token"
    check "$([ "$code" = 401 ] && [ "$(member "$body" 'v["error"]')" = invalid_client ] && echo yes)" \
        "$client with certificate '$presented': expected 401 invalid_client, got $code: $body"
done

# 2. remote-auth signs in with the self-signed certificate, and request --profile presents it again.
out="$("$binary" authorize oauth2 --client-credentials --profile selfie --issuer "$url" --client-id selfie-client \
    --client-auth self-signed-tls-client-auth --cert selfie.pem --key selfie.key --cacert server.pem \
    --scope statuses:read 2>err.txt)"
status=$?
check "$([ $status -eq 0 ] && [ "$out" = "Signed in; saved as profile 'selfie'." ] && echo yes)" \
    "authorize oauth2 --client-auth self-signed-tls-client-auth: status $status, out '$out', err '$(cat err.txt)'"
out="$("$binary" request --profile selfie --cacert server.pem -i "$timeline" 2>err.txt | head -n 1 | tr -d '\r')"
status=$?
check "$([ $status -eq 0 ] && [[ "$out" == "HTTP/1.1 200"* ]] && echo yes)" \
    "request --profile selfie (the certificate from the profile): status $status, out '$out', err '$(cat err.txt)'"
cli_token="$("$binary" token --profile selfie --cacert server.pem 2>err.txt)"
curl_json -u demo-service:demo-service-secret -d "token=$cli_token" "$url/oauth2/introspect"
cnf="$(member "$body" 'v["cnf"]["x5t#S256"]')"
check "$([ "$cnf" = "$selfie_x5t" ] && echo yes)" "the CLI's token: cnf.x5t#S256 '$cnf', openssl's '$selfie_x5t'"
curl_json -H "Authorization: Bearer $cli_token" "$timeline"
check "$([ "$code" = 401 ] && echo yes)" "the CLI's bound token from curl without the certificate: expected 401, got $code"
out="$("$binary" authorize oauth2 --client-credentials --profile nocert --issuer "$url" --client-id selfie-client \
    --client-auth self-signed-tls-client-auth --cacert server.pem 2>err.txt)"
status=$?
check "$([ $status -eq 2 ] && grep -q 'needs the client certificate: --cert FILE --key FILE' err.txt && echo yes)" \
    "--client-auth self-signed-tls-client-auth without --cert: status $status, err '$(cat err.txt)'"

# 3. Python's ssl server requires a client certificate from the client CA and echoes what it saw.
cat >pyserver.py <<'EOF'
import base64, hashlib, http.server, json, ssl, sys

class Echo(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        der = self.connection.getpeercert(binary_form=True)
        seen = {
            "x5t#S256": base64.urlsafe_b64encode(hashlib.sha256(der).digest()).decode().rstrip("="),
            "subject": ",".join(f"{k}={v}" for rdn in reversed(self.connection.getpeercert()["subject"]) for k, v in rdn),
        }
        body = json.dumps(seen, sort_keys=True).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass

context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
context.load_cert_chain("pyserver.pem", "pyserver.key")
context.load_verify_locations("clients.pem")
context.verify_mode = ssl.CERT_REQUIRED
server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Echo)
server.socket = context.wrap_socket(server.socket, server_side=True)
print(server.server_address[1], flush=True)
server.serve_forever()
EOF
python3 pyserver.py >pyserver.out 2>pyserver.err &
pids+=("$!")
port=""
for _ in $(seq 1 100); do
    port="$(head -n 1 pyserver.out)"
    [ -n "$port" ] && break
    sleep 0.1
done
[ -n "$port" ] || fatal "Python's ssl server did not start: $(cat pyserver.err)"
echo "mtls-rfc8705: $(python3 -c 'import ssl, sys; print("Python", sys.version.split()[0], ssl.OPENSSL_VERSION)') serving https://127.0.0.1:$port with CERT_REQUIRED"
out="$("$binary" request --cacert servers.pem --cert svc.pem --key svc.key "https://127.0.0.1:$port/" 2>err.txt)"
status=$?
check "$([ $status -eq 0 ] && [ "$(member "$out" 'v["x5t#S256"]')" = "$svc_x5t" ] &&
    [ "$(member "$out" 'v["subject"]')" = "commonName=svc,organizationName=Interop" ] && echo yes)" \
    "remote-auth --cert svc.pem to Python's server: status $status, out '$out' (openssl x5t $svc_x5t), err '$(cat err.txt)'"
out="$("$binary" request --cacert servers.pem "https://127.0.0.1:$port/" 2>err.txt)"
status=$?
check "$([ $status -ne 0 ] && [ -z "$out" ] && echo yes)" \
    "remote-auth without --cert to Python's CERT_REQUIRED server: expected a refusal, got status $status, out '$out'"
out="$("$binary" request --cacert servers.pem --cert selfie.pem --key selfie.key "https://127.0.0.1:$port/" 2>err.txt)"
status=$?
check "$([ $status -ne 0 ] && [ -z "$out" ] && echo yes)" \
    "remote-auth with a certificate outside Python's CA: expected a refusal, got status $status, out '$out'"

processes_alive
interop_finish
