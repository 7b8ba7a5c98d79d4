#!/usr/bin/env bash
# Interop: Debian's curl (a client nobody here wrote) authenticates to the sandbox with HTTP Basic
# (RFC 7617) and Digest (RFC 7616: MD5, SHA-256 and their -sess forms, qop=auth and auth-int; SHA-512-256
# as far as this curl can), and is refused with a wrong password.
#
#   curl_auth.sh SANDBOX_URL                 a sandbox on http
#   curl_auth.sh SANDBOX_URL SPKI_PIN        a sandbox started with --tls, and the pin it printed
#                                            ('sha256//BASE64', as curl --pinnedpubkey takes it)
#
# Over https every request verifies the certificate the sandbox serves (fetched with openssl,
# trusted with --cacert, so the name 127.0.0.1 is checked too) and the pin (--pinnedpubkey);
# openssl must compute the same pin from that certificate, a wrong pin must stop curl, and the
# certificate must also be valid for localhost.
#
# Prints one line per failed check and ends with 'curl: N passed, M failed' ('curl-tls:' over
# https); exits 1 on any failure. A Digest variant that this curl cannot do is a failure, never a
# skip.
set -uo pipefail
source "$(dirname "$0")/lib.sh"

if [ $# -lt 1 ] || [ $# -gt 2 ] || { [[ "$1" == https://* ]] && [ $# -ne 2 ]; }; then
    echo "usage: curl_auth.sh SANDBOX_URL [SPKI_PIN]  (the pin is required for an https URL)" >&2
    exit 2
fi
base="${1%/}"
expected='{"authenticated": true, "user": "alice"}'
interop_begin curl
tls=()
out="$work/out"
cert="$work/cert"

# run LABEL EXPECTED_STATUS EXPECTED_BODY(or '-' for any) CURL_ARGS...
run() {
    local label="$1" want_status="$2" want_body="$3"
    shift 3
    local status
    status="$(curl --silent --show-error --max-time 10 --output "$out" --write-out '%{http_code}' ${tls[@]+"${tls[@]}"} "$@" 2>&1)"
    local rc=$?
    local body
    body="$(cat "$out")"
    if [ $rc -ne 0 ]; then
        fail "$label: curl exited $rc: $status"
    elif [ "$status" != "$want_status" ]; then
        fail "$label: expected status $want_status, got $status, body: $body"
    elif [ "$want_body" != "-" ] && [ "$body" != "$want_body" ]; then
        fail "$label: expected body $want_body, got: $body"
    else
        pass
    fi
}

if [[ "$base" == https://* ]]; then
    interop_name=curl-tls
    pin="$2"
    hostport="${base#https://}"
    hostport="${hostport%%/*}"
    port="${hostport##*:}"
    # The certificate the sandbox serves, and the pin openssl computes from it: SHA-256 of the
    # DER SubjectPublicKeyInfo, base64 (RFC 7469 §2.4), the form curl --pinnedpubkey takes.
    if openssl s_client -connect "$hostport" </dev/null 2>/dev/null | openssl x509 >"$cert" 2>/dev/null; then
        pass
    else
        fail "openssl s_client could not fetch a certificate from $hostport"
    fi
    computed="sha256//$(openssl x509 -in "$cert" -noout -pubkey 2>/dev/null | openssl pkey -pubin -outform der 2>/dev/null |
        openssl dgst -sha256 -binary | base64)"
    if [ "$computed" = "$pin" ]; then
        pass
    else
        fail "the sandbox printed the pin $pin, openssl computes $computed from the certificate it serves"
    fi
    tls=(--cacert "$cert" --pinnedpubkey "$pin")
    # A wrong pin must stop curl before any request is sent (CURLE_SSL_PINNEDPUBKEYNOTMATCH, 90).
    curl --silent --max-time 10 --output /dev/null --cacert "$cert" \
        --pinnedpubkey "sha256//AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=" "$base/basic/"
    rc=$?
    if [ $rc -eq 90 ]; then pass; else fail "curl with a wrong pin exited $rc, expected 90"; fi
    run "Basic alice over https://localhost (the certificate names localhost)" 200 "$expected" \
        --resolve "localhost:$port:127.0.0.1" --basic --user alice:wonderland "https://localhost:$port/basic/"
fi

# This curl must be able to answer SHA-256 Digest challenges (RFC 7616 support came in 7.57.0).
version="$(curl --version | head -n 1 | awk '{print $2}')"
if printf '%s\n' 7.57.0 "$version" | sort -V -C; then
    pass
else
    fail "curl $version predates SHA-256 Digest (7.57.0): the SHA-256 checks below cannot pass"
fi

run "Basic alice" 200 "$expected" --basic --user alice:wonderland "$base/basic/"
run "Basic, wrong password" 401 - --basic --user alice:not-wonderland "$base/basic/"
run "Basic, no credentials" 401 - "$base/basic/"

for algorithm in MD5 MD5-sess SHA-256 SHA-256-sess; do
    for qop in auth auth-int; do
        variant="$algorithm/$qop"
        run "Digest $variant" 200 "$expected" --digest --user alice:wonderland "$base/digest/$variant/"
        run "Digest $variant, wrong password" 401 - --digest --user alice:not-wonderland "$base/digest/$variant/"
    done
done

# SHA-512-256 (RFC 7616 §3.2): curl before 8.8.0 accepts the challenge but computes the response
# with plain SHA-256 (its SHA-512/256 came in 8.8.0), so with such a curl the sandbox must refuse
# the answer; from 8.8.0 on it must accept it.
if printf '%s\n' 8.8.0 "$version" | sort -V -C; then
    sha512_256_status=200 sha512_256_body="$expected"
else
    sha512_256_status=401 sha512_256_body=-
    echo "NOTE: curl $version answers SHA-512-256 with SHA-256 (fixed in curl 8.8.0): expecting the sandbox to refuse it"
fi
for variant in SHA-512-256/auth SHA-512-256-sess/auth-int; do
    run "Digest $variant (curl $version)" "$sha512_256_status" "$sha512_256_body" \
        --digest --user alice:wonderland "$base/digest/$variant/"
done

# The challenges themselves: Basic names its scheme, Digest its algorithm.
challenge() {
    curl --silent --max-time 10 --output /dev/null --dump-header - ${tls[@]+"${tls[@]}"} "$1" | tr -d '\r' |
        grep -i '^www-authenticate:' || true
}
c="$(challenge "$base/basic/")"
if printf '%s' "$c" | grep -qi '^www-authenticate: *basic '; then pass; else fail "GET /basic/: expected a Basic challenge, got: $c"; fi
c="$(challenge "$base/digest/SHA-256/auth/")"
if printf '%s' "$c" | grep -qi '^www-authenticate: *digest .*algorithm="\{0,1\}SHA-256'; then
    pass
else
    fail "GET /digest/SHA-256/auth/: expected a Digest challenge with algorithm=SHA-256, got: $c"
fi

interop_finish
