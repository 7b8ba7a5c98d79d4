#!/usr/bin/env bash
# Interop: a real man in the middle. mitmproxy (Debian's package; PyPI's in a venv when Debian's
# cannot be had or does not run) stands in front of the sandbox as a reverse proxy with a CA of
# its own that the clients trust, the way an attacker with a rogue or coerced CA would.
#
#   mitm_pinning.sh REMOTE_AUTH_BINARY
#
# It starts `REMOTE_AUTH_BINARY sandbox --port 0 --tls`, fetches the sandbox's self-signed
# certificate with openssl and reads the SPKI pin the sandbox prints, then puts mitmdump in reverse
# mode in front of it (fresh confdir, so a fresh CA; --ssl-insecure towards the self-signed sandbox).
# mitm_addon.py beside this script logs every connection and request mitmproxy sees, with the
# Authorization header it carried: that log is the evidence of a leak, or of none.
#
#   a. the threat: `remote-auth request --cacert MITM_CA --user alice:wonderland --preemptive`
#      through mitmproxy succeeds, and mitmproxy's log holds alice's Basic credentials; so does curl
#   b. pins: the same with `--pin SANDBOX_PIN --pin BACKUP_PIN` exits 2, says 'remote-auth:', the
#      host and the pin it saw (mitmproxy's), and mitmproxy logs the connection but no request at
#      all; with or without --preemptive
#   c. control: the pinned command straight to the sandbox (--cacert of its certificate) succeeds
#   d. peer: curl --pinnedpubkey through mitmproxy is refused (90) with no request logged, and
#      succeeds straight to the sandbox
#
# BACKUP_PIN is the pin of an EC key made here and never served (the backup a key rotation needs).
# MITM_SOURCE=pypi skips Debian's package and uses PyPI's (to try that path). Prints one 'FAIL:'
# line per failed check and ends with 'mitm: N passed, M failed'; exits 1 on any failure. A peer
# that cannot be installed, or a remote-auth without --pin, is a failure, never a skip.
set -uo pipefail
source "$(dirname "$0")/lib.sh"
interop_begin mitm

if [ $# -ne 1 ]; then
    echo "usage: mitm_pinning.sh REMOTE_AUTH_BINARY" >&2
    exit 2
fi
if [ ! -x "$1" ] || [ -d "$1" ]; then
    fatal "$1 is not an executable remote-auth"
fi
binary="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
here="$(cd "$(dirname "$0")" && pwd)"
addon="$here/mitm_addon.py"
expected='{"authenticated": true, "user": "alice"}'
alice_basic='Basic YWxpY2U6d29uZGVybGFuZA=='   # base64("alice:wonderland")
pypi_mitmproxy='mitmproxy==11.0.2'             # the last release that runs on Python 3.11 (11.1 needs 3.12)
export PIP_ROOT_USER_ACTION=ignore PIP_DISABLE_PIP_VERSION_CHECK=1 DEBIAN_FRONTEND=noninteractive

# --- Peers: curl and openssl from Debian; mitmproxy from Debian, else from PyPI ----------------------
echo "mitm: installing peers (curl, openssl from Debian)"
apt_install curl openssl || { sed 's/^/  /' "$work/apt.log"; fatal "could not install curl, openssl from Debian"; }

mitmdump=""
mitm_source=""
if [ "${MITM_SOURCE:-debian}" != pypi ]; then
    echo "mitm: installing mitmproxy from Debian"
    if apt_install mitmproxy && /usr/bin/mitmdump --version >"$work/mitm-version" 2>&1; then
        mitmdump=/usr/bin/mitmdump
        mitm_source="Debian's mitmproxy package"
    else
        echo "mitm: Debian's mitmproxy could not be installed or does not run:"
        sed 's/^/  /' "$work/apt.log" "$work/mitm-version" 2>/dev/null | tail -n 20
    fi
fi
if [ -z "$mitmdump" ]; then
    # Its own venv, kept between runs: mitmproxy pins versions (cryptography, ...) that the other
    # interop peers installed with pip would otherwise fight over.
    venv="${XDG_CACHE_HOME:-$HOME/.cache}/remote-auth-interop/${pypi_mitmproxy/==/-}"
    echo "mitm: installing $pypi_mitmproxy from PyPI into $venv"
    if { [ -x "$venv/bin/python" ] || python3 -m venv "$venv"; } &&
        "$venv/bin/python" -m pip install --quiet "$pypi_mitmproxy" &&
        "$venv/bin/mitmdump" --version >"$work/mitm-version" 2>&1; then
        mitmdump="$venv/bin/mitmdump"
        mitm_source="PyPI's $pypi_mitmproxy"
    else
        sed 's/^/  /' "$work/mitm-version" 2>/dev/null
        fatal "could not install a working mitmproxy from Debian nor from PyPI"
    fi
fi
mitm_version="$(grep -i '^mitmproxy:' "$work/mitm-version" | awk '{print $2}')"
echo "mitm: mitmproxy $mitm_version ($mitm_source), $(curl --version | head -n 1 | cut -d' ' -f1-2), $(openssl version | cut -d' ' -f1-2)"

# This remote-auth must be able to pin; without --pin the checks below mean nothing.
# (The help is read whole first: `grep -q` closing the pipe early would fail it under pipefail.)
request_help="$("$binary" request --help 2>&1)"
if ! grep -q -- '--pin <' <<<"$request_help"; then
    fatal "$binary request has no --pin option"
fi

# --- The sandbox -----------------------------------------------------------------------------------
start_sandbox sandbox "$binary" --tls || fatal "the sandbox did not start"
sandbox_url="$url"
sandbox_hostport="${sandbox_url#https://}"
# The SPKI pin it prints after the URL.
sandbox_pin sandbox || { sed 's/^/  /' "$work/sandbox.out"; fatal "the sandbox printed no 'sha256//…' SPKI pin"; }
sandbox_pin="$pin"
echo "mitm: sandbox at $sandbox_url, pin $sandbox_pin"

# spki_pin: the RFC 7469 pin of the PEM certificate (or public key) on stdin, as curl and remote-auth take it.
spki_pin() {
    echo "sha256//$(openssl pkey -pubin -outform der 2>/dev/null | openssl dgst -sha256 -binary | base64)"
}
cert_pin() { openssl x509 -noout -pubkey 2>/dev/null | spki_pin; }

# The certificate the sandbox serves; openssl must compute the pin the sandbox printed from it.
openssl s_client -connect "$sandbox_hostport" </dev/null 2>/dev/null | openssl x509 >"$work/sandbox-cert.pem" 2>/dev/null ||
    fatal "openssl s_client could not fetch a certificate from $sandbox_hostport"
computed="$(cert_pin <"$work/sandbox-cert.pem")"
if [ "$computed" = "$sandbox_pin" ]; then pass; else fail "the sandbox printed the pin $sandbox_pin, openssl computes $computed from the certificate it serves"; fi

# The backup pin: a key that exists but is never served.
openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$work/backup-key.pem" 2>/dev/null ||
    fatal "openssl could not make the backup key"
backup_pin="$(openssl pkey -in "$work/backup-key.pem" -pubout 2>/dev/null | spki_pin)"

# --- The man in the middle -------------------------------------------------------------------------
mitm_port="$(free_port)"
mkdir "$work/mitm-conf"
: >"$work/mitm.log"
"$mitmdump" --mode "reverse:$sandbox_url" --listen-host 127.0.0.1 --listen-port "$mitm_port" --ssl-insecure \
    --set confdir="$work/mitm-conf" -s "$addon" --set auth_log="$work/mitm.log" \
    </dev/null >"$work/mitmdump.out" 2>&1 &
mitm_pid=$!
pids+=("$mitm_pid")
mitm_ca="$work/mitm-conf/mitmproxy-ca-cert.pem"
mitm_up=""
for _ in $(seq 1 300); do
    if [ -s "$mitm_ca" ] && grep -q 'listening at' "$work/mitmdump.out"; then mitm_up=yes; break; fi
    kill -0 "$mitm_pid" 2>/dev/null || break
    sleep 0.1
done
if [ -z "$mitm_up" ]; then
    echo "mitm: mitmdump's output:"; sed 's/^/  /' "$work/mitmdump.out"
    fatal "mitmdump did not listen on 127.0.0.1:$mitm_port with a CA in its confdir within 30 s"
fi
mitm_url="https://127.0.0.1:$mitm_port"
openssl s_client -connect "127.0.0.1:$mitm_port" </dev/null 2>/dev/null | openssl x509 >"$work/mitm-leaf.pem" 2>/dev/null ||
    fatal "openssl s_client could not fetch a certificate from mitmproxy at 127.0.0.1:$mitm_port"
mitm_ca_pin="$(cert_pin <"$mitm_ca")"
mitm_leaf_pin="$(cert_pin <"$work/mitm-leaf.pem")"
names="$(openssl x509 -in "$work/mitm-leaf.pem" -noout -ext subjectAltName 2>/dev/null | tail -n +2 | tr -s ' ' | sed 's/^ //')"
echo "mitm: mitmproxy at $mitm_url in front of the sandbox; its leaf names $names"
echo "mitm: mitmproxy's pins: leaf $mitm_leaf_pin, CA $mitm_ca_pin; backup pin $backup_pin"
# The interception is real only if mitmproxy serves a key of its own, not the sandbox's.
if [ "$mitm_leaf_pin" != "$sandbox_pin" ] && [ "$mitm_ca_pin" != "$sandbox_pin" ]; then
    pass
else
    fail "mitmproxy serves the sandbox's own key ($sandbox_pin): there is nothing to pin against"
fi

# --- Helpers for the checks ------------------------------------------------------------------------
# log_mark: the number of lines mitmproxy's log has now; log_since MARK: the lines it gained since.
# A 'request' line is written before mitmproxy forwards the request, so once a client has its answer
# the line is there; connection and TLS lines are written as mitmproxy notices them, hence the pause.
log_mark() { wc -l <"$work/mitm.log"; }
log_since() { sleep 0.5; tail -n +"$(($1 + 1))" "$work/mitm.log"; }
show() { sed 's/^/    /'; }

# ra LABEL ARGS...: runs `remote-auth request ARGS...` (30 s at most); sets rc, out, err.
ra() {
    local label="$1"
    shift
    timeout 30 "$binary" request "$@" </dev/null >"$work/ra.out" 2>"$work/ra.err"
    rc=$?
    out="$(cat "$work/ra.out")"
    err="$(cat "$work/ra.err")"
    [ "$rc" -ne 124 ] || fail "$label: remote-auth request did not finish within 30 s"
}
# cu ARGS...: runs curl (10 s at most); sets rc, status, body.
cu() {
    status="$(curl --silent --show-error --max-time 10 --output "$work/curl.body" --write-out '%{http_code}' "$@" 2>"$work/curl.err")"
    rc=$?
    body="$(cat "$work/curl.body" 2>/dev/null)"
    rm -f "$work/curl.body"
}
# expect_leak LABEL LINES: mitmproxy logged a request to /basic/ carrying alice's Basic credentials.
expect_leak() {
    if printf '%s\n' "$2" | grep -q "^request .* GET /basic/ authorization: $alice_basic\$"; then
        pass
        echo "mitm: $1: mitmproxy saw $(printf '%s\n' "$2" | grep -m 1 '^request ' | cut -d' ' -f3-)"
    else
        fail "$1: mitmproxy's log has no request to /basic/ with 'Authorization: $alice_basic'; it gained:"
        printf '%s\n' "$2" | show
    fi
}
# expect_no_request LABEL LINES: mitmproxy saw the client connect, and no request at all.
expect_no_request() {
    if printf '%s\n' "$2" | grep -q '^request '; then
        fail "$1: mitmproxy saw a request from a client that should have refused it:"
        printf '%s\n' "$2" | show
    elif ! printf '%s\n' "$2" | grep -q '^client-connected '; then
        fail "$1: mitmproxy saw no connection at all, so the refusal proves nothing about it; its log gained:"
        printf '%s\n' "$2" | show
    else
        pass
    fi
}

pins=(--pin "$sandbox_pin" --pin "$backup_pin")

# --- a. The threat: trusting mitmproxy's CA, without pins --------------------------------------------
mark="$(log_mark)"
ra "remote-auth through mitmproxy, no pins" --cacert "$mitm_ca" --user alice:wonderland --preemptive "$mitm_url/basic/"
lines="$(log_since "$mark")"
if [ "$rc" -eq 0 ] && [[ "$out" == *"$expected"* ]]; then
    pass
else
    fail "remote-auth through mitmproxy without pins: expected exit 0 and $expected, got exit $rc; stdout: $out; stderr: $err"
fi
expect_leak "remote-auth through mitmproxy, no pins" "$lines"

mark="$(log_mark)"
cu --cacert "$mitm_ca" --basic --user alice:wonderland "$mitm_url/basic/"
lines="$(log_since "$mark")"
if [ "$rc" -eq 0 ] && [ "$status" = 200 ] && [ "$body" = "$expected" ]; then
    pass
else
    fail "curl through mitmproxy without a pin: expected 200 and $expected, got exit $rc, status $status, body $body; $(cat "$work/curl.err")"
fi
expect_leak "curl through mitmproxy, no pin" "$lines"

# --- b. Pins: the same request is refused before anything is sent ------------------------------------
for preemptive in --preemptive ""; do
    label="remote-auth through mitmproxy with pins${preemptive:+, $preemptive}"
    mark="$(log_mark)"
    ra "$label" --cacert "$mitm_ca" "${pins[@]}" --user alice:wonderland $preemptive "$mitm_url/basic/"
    lines="$(log_since "$mark")"
    # 90: no --pin matched (curl's CURLE_SSL_PINNEDPUBKEYNOTMATCH).
    if [ "$rc" -eq 90 ] && [[ "$err" == remote-auth:* ]]; then
        pass
    else
        fail "$label: expected exit 90 and stderr starting 'remote-auth:', got exit $rc; stdout: $out; stderr: $err"
    fi
    # It names the host and the pin(s) it saw: mitmproxy's leaf (and maybe its CA, which validated it).
    if [[ "$err" == *127.0.0.1* ]] && [[ "$err" == *"$mitm_leaf_pin"* ]]; then
        pass
    else
        fail "$label: stderr should name 127.0.0.1 and the pin seen, mitmproxy's $mitm_leaf_pin; it says: $err"
    fi
    if [[ "$out$err" != *wonderland* ]] && [[ "$out$err" != *"${alice_basic#Basic }"* ]]; then
        pass
    else
        fail "$label: the password shows in remote-auth's output: stdout: $out; stderr: $err"
    fi
    expect_no_request "$label" "$lines"
    if [ -n "$preemptive" ]; then
        echo "mitm: $label: refused, it says: $(head -n 1 "$work/ra.err")"
        echo "mitm: $label: mitmproxy saw only: $(printf '%s\n' "$lines" | cut -d' ' -f1,3- | paste -sd ',' - | sed 's/,/, /g')"
    fi
done

# --- c. Control: the same pins straight to the sandbox -----------------------------------------------
mark="$(log_mark)"
ra "remote-auth straight to the sandbox with pins" --cacert "$work/sandbox-cert.pem" "${pins[@]}" \
    --user alice:wonderland --preemptive "$sandbox_url/basic/"
lines="$(log_since "$mark")"
if [ "$rc" -eq 0 ] && [[ "$out" == *"$expected"* ]]; then
    pass
else
    fail "remote-auth straight to the sandbox with pins: expected exit 0 and $expected, got exit $rc; stdout: $out; stderr: $err"
fi
if [ -z "$lines" ]; then pass; else fail "a request straight to the sandbox showed up in mitmproxy's log:"; printf '%s\n' "$lines" | show; fi

# --- d. Peer: curl's --pinnedpubkey, the same pins ----------------------------------------------------
curl_pins="$sandbox_pin;$backup_pin"
mark="$(log_mark)"
cu --cacert "$mitm_ca" --pinnedpubkey "$curl_pins" --basic --user alice:wonderland "$mitm_url/basic/"
lines="$(log_since "$mark")"
# CURLE_SSL_PINNEDPUBKEYNOTMATCH
if [ "$rc" -eq 90 ]; then pass; else fail "curl --pinnedpubkey through mitmproxy: expected exit 90, got $rc (status $status); $(cat "$work/curl.err")"; fi
expect_no_request "curl --pinnedpubkey through mitmproxy" "$lines"
cu --cacert "$work/sandbox-cert.pem" --pinnedpubkey "$curl_pins" --basic --user alice:wonderland "$sandbox_url/basic/"
if [ "$rc" -eq 0 ] && [ "$status" = 200 ] && [ "$body" = "$expected" ]; then
    pass
else
    fail "curl --pinnedpubkey straight to the sandbox: expected 200 and $expected, got exit $rc, status $status, body $body; $(cat "$work/curl.err")"
fi

# Both servers must have lived through it.
processes_alive
if [ "$failed" -ne 0 ]; then
    echo "mitm: mitmproxy's log:"; show <"$work/mitm.log"
    echo "mitm: mitmdump's output (last 30 lines):"; tail -n 30 "$work/mitmdump.out" | show
fi

interop_finish
