#!/usr/bin/env bash
# Interop: `remote-auth request` puts on the wire what curl puts there for the same flags.
#
#   curl_equivalence.sh REMOTE_AUTH_BINARY
#
# A small echo server (python3, the raw bytes of each request saved to a file, answered with a
# fixed body 'ok', or 404 for /status/404) receives each invocation once from curl and once from
# remote-auth. The two requests must be equal apart from User-Agent, with the header fields
# compared as a set: the transports put Host and Content-Length after the fields they are given,
# where curl puts Host first. What the tools print (-i, -o) and their exit status (--fail: 22)
# must be equal too.
#
# With --aws-sigv4 the signed parts are compared (see same_sigv4 below).
#
# Prints one line per failed check and ends with 'curl-equivalence: N passed, M failed'.
set -uo pipefail
source "$(dirname "$0")/lib.sh"

if [ $# -ne 1 ]; then
    echo "usage: curl_equivalence.sh REMOTE_AUTH_BINARY" >&2
    exit 2
fi
binary="$1"
interop_begin curl-equivalence
command -v curl >/dev/null || fatal "curl is not on PATH"
# The cases run the binary from their own folders: a relative path is made absolute here.
[ -x "$binary" ] || fatal "$binary is not an executable file"
binary="$(cd "$(dirname "$binary")" && pwd)/$(basename "$binary")"

port="$(free_port)"
mkdir -p "$work/requests"
python3 - "$port" "$work/requests" >"$work/echo.out" 2>&1 <<'PY' &
import os, socket, sys
port, folder = int(sys.argv[1]), sys.argv[2]
server = socket.socket()
server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
server.bind(("127.0.0.1", port))
server.listen(8)
count = 0
while True:
    client, _ = server.accept()
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = client.recv(65536)
        if not chunk:
            break
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    length = 0
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value.strip())
    while len(body) < length:
        chunk = client.recv(65536)
        if not chunk:
            break
        body += chunk
    count += 1
    with open(os.path.join(folder, "%04d" % count), "wb") as f:
        f.write(head + b"\r\n\r\n" + body)
    status = b"404 Not Found" if b" /status/404 " in head.split(b"\r\n")[0] else b"200 OK"
    answer = b"ok\n"
    client.sendall(b"HTTP/1.1 " + status + b"\r\nContent-Type: text/plain\r\nContent-Length: "
                   + str(len(answer)).encode() + b"\r\nConnection: close\r\n\r\n" + answer)
    client.close()
PY
pids+=("$!")
for _ in $(seq 1 50); do
    python3 -c "import socket; socket.create_connection(('127.0.0.1', $port)).close()" 2>/dev/null && break
    sleep 0.1
done
base="http://127.0.0.1:$port"

# The last request the echo server saved.
last() { find "$work/requests" -type f | sort | tail -n 1; }

# normalize FILE: the request line, the header fields but User-Agent sorted (names lowercased),
# then the body, as text with escapes for CR.
normalize() {
    python3 - "$1" <<'PY'
import sys
data = open(sys.argv[1], "rb").read()
head, _, body = data.partition(b"\r\n\r\n")
lines = head.split(b"\r\n")
fields = sorted(
    line.split(b":", 1)[0].lower() + b":" + line.split(b":", 1)[1]
    for line in lines[1:] if line.split(b":", 1)[0].lower() != b"user-agent"
)
sys.stdout.write(repr(b"\n".join([lines[0]] + fields) + b"\n\n" + body) + "\n")
PY
}

printed() { cat "$1"; }

file="$work/form.txt"
printf 'a=1\r\nb=2\n' >"$file"
printf '{"k": [1, 2]}\n' >"$work/body.json"

# same LABEL PATH ARGS...: curl and remote-auth with ARGS on PATH, compared. remote-auth's exit
# status is expected to be curl's, or $expect_status when set: without --fail, a status of 400
# or more exits 1 where curl exits 0 (documented in `remote-auth request --help`).
same() {
    local label="$1" path="$2"
    shift 2
    local curl_status ra_status
    (cd "$work" && curl -s "$@" "$base$path" >"$work/curl.stdout" 2>/dev/null)
    curl_status=$?
    local curl_request
    curl_request="$(last)"
    (cd "$work" && "$binary" request -s "$@" "$base$path" >"$work/ra.stdout" 2>/dev/null)
    ra_status=$?
    local ra_request
    ra_request="$(last)"
    if [ "$curl_request" = "$ra_request" ]; then
        fail "$label: remote-auth sent nothing"
        return
    fi
    if [ "$(normalize "$curl_request")" = "$(normalize "$ra_request")" ]; then
        pass
    else
        fail "$label: the requests differ"
        echo "  curl:        $(normalize "$curl_request")"
        echo "  remote-auth: $(normalize "$ra_request")"
    fi
    check "$([ "${expect_status:-$curl_status}" = "$ra_status" ] && echo yes)" \
        "$label: exit status curl $curl_status, remote-auth $ra_status (expected ${expect_status:-$curl_status})"
    check "$([ "$(printed "$work/curl.stdout")" = "$(printed "$work/ra.stdout")" ] && echo yes)" \
        "$label: stdout differs: curl '$(cat "$work/curl.stdout")', remote-auth '$(cat "$work/ra.stdout")'"
}

same "GET" /
same "-d pairs" / -d 'a=b&c=d'
same "-d twice" / -d 'a=b' --data 'c=d e'
same "-d @file" / -d "@$file"
same "--data-binary @file" / --data-binary "@$file"
same "--data-raw" / --data-raw '@x=1'
same "--data-urlencode" / --data-urlencode 'q=a b&c' --data-urlencode '=x+y' --data-urlencode "f@$file"
same "--json" / --json '{"a": 1}'
same "--json @file" / --json "@$work/body.json"
same "-X PUT -H" / -X PUT -H 'X-Thing: 1' -d 'z=1'
same "-i" / -i
same "--fail" /status/404 --fail
expect_status=1 same "404 without --fail" /status/404 -o /dev/null

# -o FILE: the same bytes in the file.
(cd "$work" && curl -s -i -o "$work/curl.out" "$base/")
(cd "$work" && "$binary" request -s -i -o "$work/ra.out" "$base/")
check "$([ "$(printed "$work/curl.out")" = "$(printed "$work/ra.out")" ] && echo yes)" \
    "-o: the files differ: curl '$(cat "$work/curl.out")', remote-auth '$(cat "$work/ra.out")'"

# --aws-sigv4 (curl 7.88, Debian's): the same request from both, the date fixed with -H
# 'X-Amz-Date: …' (which both sign at), compared on the signed parts: the request line, the
# Authorization value (credential, signed header names, signature) and each signed field's value
# (curl sends its X-Amz-Date twice, its own and the one given: counted once), and the body.
# curl 7.88 takes no session token from --user, so the token goes to curl as a -H field and to
# remote-auth as AWS_SESSION_TOKEN; for S3 both get x-amz-content-sha256 with -H (curl 7.88 does
# not add it; remote-auth adds and signs it for S3 always, as S3 requires).
signed_parts() {
    python3 - "$1" <<'PY'
import re, sys
data = open(sys.argv[1], "rb").read()
head, _, body = data.partition(b"\r\n\r\n")
lines = head.decode().split("\r\n")
fields = {}
for line in lines[1:]:
    name, _, value = line.partition(":")
    fields.setdefault(name.strip().lower(), set()).add(value.strip())
authorization = sorted(fields.get("authorization", {""}))
signed = re.search(r"SignedHeaders=([^,]*)", authorization[0])
names = signed.group(1).split(";") if signed else []
parts = [lines[0], "authorization: " + " | ".join(authorization)]
parts += [name + ": " + " | ".join(sorted(fields.get(name, {"<absent>"}))) for name in names]
sys.stdout.write(repr("\n".join(parts)) + " body " + repr(body) + "\n")
PY
}

# same_sigv4 LABEL PATH ARGS...: curl with ARGS (and -H "$curl_header" when set), remote-auth
# with ARGS (and the environment's $ra_env), compared on the signed parts.
same_sigv4() {
    local label="$1" path="$2"
    shift 2
    local date=(-H 'X-Amz-Date: 20261127T123456Z')
    (cd "$work" && curl -s -o /dev/null "${date[@]}" ${curl_header:+-H "$curl_header"} "$@" "$base$path")
    local curl_request
    curl_request="$(last)"
    # shellcheck disable=SC2086
    (cd "$work" && env ${ra_env:-} "$binary" request -s -o /dev/null "${date[@]}" "$@" "$base$path")
    local ra_request
    ra_request="$(last)"
    if [ "$curl_request" = "$ra_request" ]; then
        fail "$label: remote-auth sent nothing"
        return
    fi
    local theirs ours
    theirs="$(signed_parts "$curl_request")"
    ours="$(signed_parts "$ra_request")"
    if [ "$theirs" = "$ours" ] && echo "$ours" | grep -q 'Signature='; then
        pass
    else
        fail "$label: the signed parts differ"
        echo "  curl:        $theirs"
        echo "  remote-auth: $ours"
    fi
}

key=(-u 'AKIDEXAMPLE:wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY')
api=(--aws-sigv4 aws:amz:eu-west-1:execute-api "${key[@]}")
s3=(--aws-sigv4 aws:amz:us-east-1:s3 "${key[@]}")
empty_sha256=e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855
# curl 7.88 signs the query as it is given, where SigV4 sorts it (AWS's rules, botocore, and
# remote-auth): the queries here are given sorted.
same_sigv4 "sigv4: GET with a query" '/api/v1/items?a=0&a=1&b=2&e=&q=x%20y' "${api[@]}"
same_sigv4 "sigv4: POST with a form body" /api/v1/items "${api[@]}" -d 'a=b&c=d e'
same_sigv4 "sigv4: POST, -H fields signed (runs of spaces folded)" /api/v1/items "${api[@]}" \
    -H 'Content-Type: text/plain' -H 'X-Thing:   a   b' --data-binary "@$file"
curl_header='X-Amz-Security-Token: IQoJb3JpZ2luX2VjEXAMPLETOKEN/+=' \
    ra_env='AWS_SESSION_TOKEN=IQoJb3JpZ2luX2VjEXAMPLETOKEN/+=' \
    same_sigv4 "sigv4: a session token" /api/v1/items "${api[@]}"
same_sigv4 "sigv4: S3 GET, UNSIGNED-PAYLOAD" '/bucket/key%20name.txt?list-type=2&prefix=a%2Fb' "${s3[@]}" \
    -H 'x-amz-content-sha256: UNSIGNED-PAYLOAD'
same_sigv4 "sigv4: S3 GET, the empty payload's hash" /bucket/photo.jpg "${s3[@]}" \
    -H "x-amz-content-sha256: $empty_sha256"
form_sha256="$(printf 'a=1\r\nb=2\n' | sha256sum | cut -d' ' -f1)"
same_sigv4 "sigv4: S3 PUT with a body" /bucket/form.txt "${s3[@]}" -X PUT --data-binary "@$file" \
    -H "x-amz-content-sha256: $form_sha256"

interop_finish
