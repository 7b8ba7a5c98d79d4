#!/usr/bin/env bash
# The interop suite: RemoteAuth against peers nobody here wrote.
# Installs its peers itself and fails (never skips) when one cannot be had.
#
#   oauthlib (PyPI)   verifies requests signed by `remote-auth sign oauth1`
#   oauthlib (PyPI)   plays the provider (its server-side endpoints): `remote-auth authorize oauth1`
#                     signs in to it (loopback callback and PIN), `remote-auth request --profile`
#                     calls it in every placement, and it verifies each signature
#   oauthlib (PyPI)   drives the sandbox's three-legged flow, every method and placement
#                     (and against a second sandbox started with --auto-approve)
#   Authlib, requests-oauthlib (PyPI)   drive the sandbox's OAuth 2 authorization server through every grant
#   Authlib (PyPI)    plays an OAuth 2 authorization server: remote-auth authorize oauth2 (code + PKCE,
#                     device, client credentials), request --profile (refresh), token, revoke
#   mcp (PyPI)        the Model Context Protocol's Python SDK, both ways (issue 26): its OAuth client
#                     signs in to the sandbox from a resource URL alone (RFC 9728, 8414, 7591, 8707);
#                     remote-auth authorize oauth2 --resource and request --sign-in against its
#                     authorization server and resource server (Starlette under uvicorn)
#   http-message-signatures (PyPI) RFC 9421, every algorithm both implement: it signs requests the
#                     sandbox verifies and verifies the sandbox's signed responses; it verifies what
#                     `remote-auth sign http-signature` signs (Content-Digest included)
#   moto[server] (PyPI, its own venv .build/moto-venv) an S3 server with its IAM signature checks
#                     on: remote-auth request --aws-sigv4 uploads (header form, streaming aws-chunked
#                     from a file and stdin, UNSIGNED-PAYLOAD) and downloads; a wrong secret refused;
#                     a presigned URL from `remote-auth sign sigv4 --presign` fetched by curl
#   joserfc (PyPI)    and `remote-auth jwt` sign, verify and thumbprint each other's JWS and JWKs:
#                     ES256, RS256, PS256, EdDSA, HS256; tampered, none, crit, unknown kid refused
#   Authlib + joserfc (PyPI) an OpenID provider checking remote-auth's private_key_jwt and issuing
#                     ID tokens it validates (--oidc); a client validating the sandbox's ID tokens
#   curl (Debian)     Basic and Digest against the sandbox, on http and (with openssl) on https
#                     with the certificate and SPKI pin a sandbox started with --tls serves
#   Chromium (Debian) + Selenium (PyPI) consents on the sandbox's authorize page
#   mitmproxy (Debian; PyPI in a venv as a fallback) a man in the middle whose CA is trusted:
#                     unpinned requests leak the credential to it, pinned ones never reach it
#   openssl + curl    mutual TLS: client certificates and PKCS#12 bundles against --client-ca
#   openssl + curl + Python's ssl   RFC 8705: curl authenticates to the sandbox with tls_client_auth and
#                     self_signed_tls_client_auth, cnf.x5t#S256 is openssl's fingerprint, bound tokens
#                     are refused without the certificate; remote-auth presents its --cert (and a
#                     profile's) to Python's http.server with CERT_REQUIRED
#   joserfc (PyPI)    verifies the DPoP proofs of remote-auth request --profile (ES256), and makes
#                     proofs (ES256, RS256, PS256, EdDSA) the sandbox's verifier checks (RFC 9449);
#                     its RFC 7638 thumbprints as dpop_jkt bind the sandbox's codes (§10), and
#                     equal the dpop_jkt remote-auth's --dpop code flow sends
#   httpbin (PyPI, under gunicorn) a Digest server for `remote-auth request`: MD5, SHA-256 × auth, auth-int
#   wrk (Debian)      loads the sandbox: Bearer and OAuth 1.0a HMAC-SHA1 requests (0 errors,
#                     requests/s, p99, peak RSS), and --state across a kill -9 under load
#   openapi-spec-validator, openapi-schema-validator (PyPI) validate the sandbox's OpenAPI document
#                     (GET /openapi.json) and its live answers against the response schemas; and
#                     swift-openapi-generator 1.14.3, built here, must make of that document exactly
#                     the client committed in Tests/RemoteAuthOpenAPITests/Generated (no drift)
#   PostgreSQL (Debian) the RemoteAuthPostgres token store: a throwaway server on loopback, N
#                     instances refreshing one session against the sandbox (one refresh per expiry)
#   gnome-keyring, dbus, libsecret-tools (Debian) the RemoteAuthKeyring store: its own D-Bus client
#                     against gnome-keyring on a session bus of the script's own (and an abstract-
#                     socket bus), other programs' items, a locked collection, secret-tool reading
#                     what it wrote
#
# The PyPI peers are pinned in scripts/requirements.txt and installed into one venv,
# .build/interop-venv (REMOTE_AUTH_INTEROP_VENV to put it elsewhere), whose bin/ comes first on
# PATH for every peer script. The consent page screenshot goes to .build/interop/consent-page.png
# (docs/consent-page.png is refreshed only by hand, see docs/interop.md). Needs nothing outside
# the repository but the Swift toolchain, python3 with venv, and apt.
#
# The last line is the total: 'interop: N passed, M failed'.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/interop/lib.sh
interop_begin interop

export PIP_ROOT_USER_ACTION=ignore PIP_DISABLE_PIP_VERSION_CHECK=1 DEBIAN_FRONTEND=noninteractive

echo "interop: installing peers (curl, openssl, chromium, chromium-driver from Debian)"
if ! apt_install curl openssl chromium chromium-driver; then
    sed 's/^/  /' "$work/apt.log" | tail -n 20 >&2
    echo "interop: FAILED to install curl, openssl, chromium, chromium-driver from Debian" >&2
    exit 1
fi
for tool in curl openssl chromium chromedriver; do
    command -v "$tool" >/dev/null || { echo "interop: $tool is not on PATH after installing it" >&2; exit 1; }
done

venv="${REMOTE_AUTH_INTEROP_VENV:-$PWD/.build/interop-venv}"
echo "interop: installing peers (scripts/requirements.txt from PyPI) into $venv"
if ! { [ -x "$venv/bin/python" ] || python3 -m venv "$venv"; } ||
    ! "$venv/bin/python" -m pip install --quiet -r scripts/requirements.txt; then
    echo "interop: FAILED to install scripts/requirements.txt from PyPI into $venv" >&2
    exit 1
fi
export PATH="$venv/bin:$PATH"
python3 -c "import oauthlib, jwt, cryptography, requests, selenium, httpbin, authlib, requests_oauthlib, joserfc, botocore, http_message_signatures, mcp, httpx2, uvicorn, starlette" 2>/dev/null ||
    { echo "interop: a Python peer is not importable" >&2; exit 1; }
command -v gunicorn >/dev/null || { echo "interop: gunicorn is not on PATH after installing it" >&2; exit 1; }
echo "interop: $(curl --version | head -n 1 | cut -d' ' -f1-2), $(openssl version | cut -d' ' -f1-2)," \
    "$(chromium --version 2>/dev/null)," \
    "$(chromedriver --version | cut -d' ' -f1-2), selenium $(python3 -c 'import selenium; print(selenium.__version__)')," \
    "oauthlib $(python3 -c 'import oauthlib; print(oauthlib.__version__)')"

swift build --product remote-auth
binary="$(swift build --show-bin-path)/remote-auth"

# step NAME COMMAND...: runs one peer's script, shows its output and adds its closing
# 'NAME: N passed, M failed' line to the total; a script that ends without one counts as a failure.
step() {
    local name="$1" status=0 started=$SECONDS
    shift
    "$@" 2>&1 | tee "$work/$name.log" || status=$?
    echo "interop: $name took $((SECONDS - started)) s"
    local line
    line="$(grep -E "^$name: [0-9]+ passed, [0-9]+ failed\$" "$work/$name.log" | tail -n 1 || true)"
    if [ -z "$line" ]; then
        echo "interop: $name ended (status $status) without its 'passed, failed' line"
        failed=$((failed + 1))
        return
    fi
    local p f
    p="$(echo "$line" | sed -E 's/.*: ([0-9]+) passed, ([0-9]+) failed/\1/')"
    f="$(echo "$line" | sed -E 's/.*: ([0-9]+) passed, ([0-9]+) failed/\2/')"
    passed=$((passed + p))
    failed=$((failed + f))
    if [ "$status" -ne 0 ] && [ "$f" -eq 0 ]; then
        echo "interop: $name exited $status"
        failed=$((failed + 1))
    fi
}

echo "interop: oauthlib verifies requests signed by remote-auth"
step oauthlib python3 scripts/interop/oauthlib_verify.py "$binary" Tests/Vectors 300

echo "interop: remote-auth signs in to, and is verified by, an OAuth 1.0a provider built on oauthlib"
step oauthlib-provider python3 scripts/interop/oauthlib_provider.py "$binary"

echo "interop: remote-auth signs in to, and calls, an OAuth 2 authorization server built on Authlib"
step authlib-provider python3 scripts/interop/authlib_provider.py "$binary"

echo "interop: the MCP Python SDK's OAuth client against the sandbox, and remote-auth against the SDK's authorization and resource servers"
step mcp-sign-in python3 scripts/interop/mcp_sign_in.py "$binary"

echo "interop: the MCP Python SDK's private_key_jwt client registers its own key at the sandbox and authenticates with it"
step mcp-private-key-jwt python3 scripts/interop/mcp_private_key_jwt.py "$binary"

echo "interop: botocore's SigV4 signers and remote-auth sign sigv4 give the same Authorization values and presigned URLs"
step sigv4-botocore python3 scripts/interop/sigv4_botocore.py "$binary" 300

echo "interop: remote-auth uploads to and downloads from moto's S3 server, which checks the signatures (a streaming aws-chunked upload, a presigned URL for curl)"
step s3-moto bash scripts/interop/s3_moto.sh "$binary"

echo "interop: http-message-signatures (PyPI) and RemoteAuth verify each other's RFC 9421 signatures, every algorithm"
step http-signatures-pyhms python3 scripts/interop/http_signatures_pyhms.py "$binary"

echo "interop: joserfc (PyPI) and remote-auth jwt read each other's JWS, every algorithm"
step jose-joserfc python3 scripts/interop/jose_joserfc.py "$binary"
echo "interop: OpenID Connect and private_key_jwt with Authlib: its provider checks remote-auth's assertions and issues ID tokens remote-auth validates; its client validates the sandbox's"
step authlib-oidc python3 scripts/interop/authlib_oidc.py "$binary"

echo "interop: remote-auth request puts on the wire what curl does for the same flags"; step curl-equivalence bash scripts/interop/curl_equivalence.sh "$binary"

echo "interop: mitmproxy in front of a TLS sandbox: pins keep the credential from it"
step mitm bash scripts/interop/mitm_pinning.sh "$binary"

echo "interop: mutual TLS with client certificates and PKCS#12 bundles made by openssl, for remote-auth and curl"
step mtls bash scripts/interop/mtls_pkcs12.sh "$binary"

echo "interop: RFC 8705 with curl as a client of the sandbox, and remote-auth as a client of Python's ssl server"
step mtls-rfc8705 bash scripts/interop/mtls_rfc8705.sh "$binary"

echo "interop: the sandbox's OpenAPI document against openapi-spec-validator and its live answers, and the generated Swift client without drift"
step openapi bash scripts/interop/openapi.sh "$binary"

echo "interop: the PostgreSQL token store against a PostgreSQL server (Debian), shared by instances refreshing against the sandbox"
step postgres-store bash scripts/interop/postgres_store.sh

echo "interop: the keyring token and credential stores against gnome-keyring (Debian) on a session bus of its own, cross-checked with secret-tool"
step keyring bash scripts/interop/keyring.sh

echo "interop: the file store on a full and on a read-only tmpfs (the kernel's errors, the old file intact)"
step store-faults bash scripts/interop/store_faults.sh "$binary"

echo "interop: wrk loads the sandbox with Bearer and OAuth 1.0a-signed requests, and kills it under load (--state)"
step sandbox-load bash scripts/interop/sandbox_load.sh "$binary"

# The sandbox's --config: the RSA-SHA1 consumer the oauthlib flow needs (the public key of the
# vector rfc5849_1.2_photos_rsa_sha1, whose private key oauthlib signs with), and one more
# consumer and user, which sandbox_oauthlib.py reads from the same file.
python3 - Tests/Vectors "$work/sandbox.json" <<'EOF'
import json, sys
with open(f"{sys.argv[1]}/oauth1_signing.json") as f:
    vector = next(v for v in json.load(f) if v["name"] == "rfc5849_1.2_photos_rsa_sha1")
with open(sys.argv[2], "w") as f:
    json.dump({"consumers": [{"key": "rsa-consumer", "name": "RSA App", "rsaPublicKeyPEM": vector["rsa_public_key_pem"]},
                             {"key": "interop-consumer", "secret": "interop secret + ü", "name": "Interop App"}],
               "users": [{"name": "bob", "password": "builder"}]}, f)
EOF
# sandbox NAME ARGS...: a sandbox started through lib.sh's start_sandbox; sets `url`, or counts a
# failure and leaves `url` empty.
sandbox() {
    if start_sandbox "$1" "$binary" "${@:2}"; then
        echo "interop: sandbox ($1) at $url"
    else
        failed=$((failed + 1))
    fi
}

sandbox sandbox --config "$work/sandbox.json"
if [ -n "$url" ]; then
    echo "interop: oauthlib runs the sandbox's three-legged flow"
    step sandbox-oauthlib python3 scripts/interop/sandbox_oauthlib.py "$url" Tests/Vectors --config "$work/sandbox.json"
    echo "interop: curl authenticates with Basic and Digest"
    step curl bash scripts/interop/curl_auth.sh "$url"
    echo "interop: headless Chromium consents on the authorize page"
    mkdir -p .build/interop
    step browser python3 scripts/interop/consent_browser.py "$url" .build/interop/consent-page.png
    echo "interop: Authlib and requests-oauthlib drive the sandbox's OAuth 2 authorization server"
    step sandbox-oauth2 python3 scripts/interop/sandbox_oauth2_clients.py "$url"
fi
sandbox dpop --dpop-nonce
if [ -n "$url" ]; then
    echo "interop: joserfc verifies remote-auth's DPoP proofs; the sandbox verifies joserfc's; dpop_jkt both ways (RFC 9449)"
    step dpop-joserfc python3 scripts/interop/dpop_joserfc.py "$binary" "$url"
fi
sandbox auto-approve --auto-approve
if [ -n "$url" ]; then
    echo "interop: oauthlib against a sandbox started with --auto-approve"
    step auto-approve python3 scripts/interop/sandbox_oauthlib.py "$url" Tests/Vectors --auto-approve
fi
sandbox tls --tls
if [ -n "$url" ]; then
    # The SPKI pin it prints after the URL.
    if ! sandbox_pin tls; then
        echo "interop: the sandbox (tls) printed no 'sha256//…' SPKI pin; its stdout:"; sed 's/^/  /' "$work/tls.out"
        failed=$((failed + 1))
    else
        echo "interop: curl authenticates over https, trusting the served certificate and its pin"
        step curl-tls bash scripts/interop/curl_auth.sh "$url" "$pin"
    fi
fi
# httpbin under gunicorn on a free loopback port, for `remote-auth request`'s Digest.
httpbin_port="$(free_port)"
gunicorn --bind "127.0.0.1:$httpbin_port" --workers 1 --log-level warning httpbin:app \
    </dev/null >"$work/httpbin.out" 2>&1 &
pids+=("$!")
if ! wait_for_http "http://127.0.0.1:$httpbin_port/get"; then
    echo "interop: httpbin did not answer on 127.0.0.1:$httpbin_port within 15 s; its output:"
    sed 's/^/  /' "$work/httpbin.out"
    failed=$((failed + 1))
else
    echo "interop: remote-auth request authenticates to httpbin's Digest routes ($(python3 -c 'import importlib.metadata as m; print("httpbin", m.version("httpbin"))'))"
    step httpbin bash scripts/interop/httpbin_digest.sh "$binary" "http://127.0.0.1:$httpbin_port"
fi

for pid in "${pids[@]}"; do
    if ! kill -0 "$pid" 2>/dev/null; then
        echo "interop: a sandbox (pid $pid) died during the run"
        failed=$((failed + 1))
    fi
done

echo "interop: $passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
