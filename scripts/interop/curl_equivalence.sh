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

interop_finish
