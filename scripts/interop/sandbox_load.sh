#!/usr/bin/env bash
# Interop: the sandbox under load, driven by wrk (Debian's package, installed here when
# missing; the script fails, never skips, without it). On loopback, plain http:
#
#   1. bearer  GET /1.1/account/verify_credentials.json with an OAuth 2 Bearer token (RFC 6750
#              §2.1) obtained first with client credentials (demo-service, statuses:read)
#   2. oauth1  the same route signed with OAuth 1.0a HMAC-SHA1 (RFC 5849 §3.4.2), a nonce unique
#              to each request: the device consumer and alice's access token of the demo
#              identities; the signing is scripts/interop/sandbox_load.lua's (LuaJIT has no
#              crypto: SHA-1 and HMAC there, checked against RFC 2202 at start)
#   3. kill    a sandbox with --state: POST /1.1/statuses/update.json with Bearer (each status
#              written to the state file before it is answered) while a loop beside it asks
#              the token endpoint for access tokens one after another (each written before it
#              is answered), kill -9 in the middle of the run, restart on the same file (its
#              log replayed and folded in): it parses, it holds every status the run was
#              answered 2xx for, every access token
#              answered before the kill still works, and the temporary credential issued
#              before the load is still known (/oauth/authorize shows its consent page).
#
# Each run: LOAD_SECONDS (default 10), 2 threads, 32 connections; the checks: 0 non-2xx
# answers, 0 socket errors. Prints requests/s, p50/p99 latency and the sandbox's peak RSS
# (VmHWM of /proc/PID/status). The whole script takes about 3 × LOAD_SECONDS + 10 s.
#
# Usage: sandbox_load.sh [BINARY]   (default .build/debug/remote-auth: the worktree's debug build;
#        pass a release build to measure it instead)
# Ends with 'sandbox-load: N passed, M failed'.
set -uo pipefail
cd "$(dirname "$0")/../.."
source scripts/interop/lib.sh
interop_begin sandbox-load
export DEBIAN_FRONTEND=noninteractive

binary="${1:-.build/debug/remote-auth}"
seconds="${LOAD_SECONDS:-10}"
threads=2
connections=32
lua="$PWD/scripts/interop/sandbox_load.lua"
[ -x "$binary" ] || fatal "no $binary (swift build --product remote-auth first)"

if ! command -v wrk >/dev/null; then
    echo "sandbox-load: installing wrk from Debian"
    apt_install wrk || { sed 's/^/  /' "$work/apt.log" | tail -n 20; fatal "cannot install wrk from Debian"; }
fi
command -v wrk >/dev/null || fatal "wrk is not on PATH after installing it"
echo "sandbox-load: $(wrk --version 2>&1 | head -n 1 | cut -d' ' -f1-2), $binary"

# peak_rss PID: the process's peak resident set (VmHWM), in MiB.
peak_rss() {
    awk '/^VmHWM:/ { printf "%.1f", $2 / 1024 }' "/proc/$1/status" 2>/dev/null
}

# load NAME URL MODE ARGS...: one wrk run; its 'load: …' line is kept in $work/NAME.load and
# its fields in $requests, $rps, $p99, $ok, $not_ok, $socket_errors.
load() {
    local name="$1" target="$2"
    shift 2
    wrk --threads "$threads" --connections "$connections" --duration "${seconds}s" --timeout 5s \
        --latency --script "$lua" "$target" -- "$@" >"$work/$name.wrk" 2>&1
    grep '^load: ' "$work/$name.wrk" >"$work/$name.load" || true
    if [ ! -s "$work/$name.load" ]; then
        sed 's/^/  /' "$work/$name.wrk"
        return 1
    fi
    field() { sed -nE "s/.* $1=([0-9.]+).*/\1/p" "$work/$name.load"; }
    requests="$(field requests)"
    rps="$(field rps)"
    p50="$(field p50_ms)"
    p99="$(field p99_ms)"
    ok="$(field ok)"
    not_ok="$(field not_ok)"
    socket_errors=$(($(field connect) + $(field read) + $(field write) + $(field timeout)))
}

# check_run NAME PID: 0 non-2xx, 0 socket errors, some requests; prints the figures.
check_run() {
    local name="$1" pid="$2"
    echo "sandbox-load: $name: $requests requests in ${seconds} s, $rps requests/s, p50 $p50 ms, p99 $p99 ms," \
        "$ok 2xx, $not_ok other, $socket_errors socket errors; sandbox peak RSS $(peak_rss "$pid") MiB"
    check "$([ "${requests:-0}" -gt 0 ] && echo yes)" "$name: no request completed"
    check "$([ "${not_ok:-1}" -eq 0 ] && [ "$ok" -eq "$requests" ] && echo yes)" "$name: $not_ok answers were not 2xx"
    check "$([ "$socket_errors" -eq 0 ] && echo yes)" "$name: $socket_errors socket errors"
}

# client_credentials URL SCOPE: an access token for demo-service, or empty.
client_credentials() {
    curl -s -u demo-service:demo-service-secret -d grant_type=client_credentials --data-urlencode "scope=$2" \
        "$1/oauth2/token" | python3 -c 'import json, sys; print(json.load(sys.stdin).get("access_token", ""))' 2>/dev/null
}

# 1 and 2: one sandbox, two runs.
start_sandbox load "$binary" --quiet || fatal "the sandbox did not start"
pid="${pids[-1]}"
echo "sandbox-load: sandbox at $url (pid $pid), peak RSS at start $(peak_rss "$pid") MiB"
route="$url/1.1/account/verify_credentials.json"

token="$(client_credentials "$url" statuses:read)"
[ -n "$token" ] || fatal "no access token from client credentials"
status="$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $token" "$route")"
check "$([ "$status" = 200 ] && echo yes)" "bearer: one request answered $status, not 200"
if load bearer "$route" bearer "$token"; then check_run bearer "$pid"; else fail "bearer: wrk printed no figures"; fi

oauth1=(oauth1 demo-device demo-device-secret alice-device-token alice-device-token-secret)
if load oauth1 "$route" "${oauth1[@]}"; then check_run oauth1 "$pid"; else fail "oauth1: wrk printed no figures"; fi
echo "sandbox-load: sandbox peak RSS after both runs $(peak_rss "$pid") MiB"
check "$(kill -0 "$pid" 2>/dev/null && echo yes)" "the sandbox died under load"

# 3: kill -9 during a run that writes the state file.
state="$work/state.json"
start_sandbox state "$binary" --quiet --state "$state" || fatal "the sandbox (--state) did not start"
pid="${pids[-1]}"
# A temporary credential issued before the load (RFC 5849 §2.1), signed by remote-auth itself.
authorization="$("$binary" sign oauth1 POST "$url/oauth/request_token" --consumer-key demo-consumer \
    --consumer-secret demo-consumer-secret --callback oob)"
request_token="$(curl -s -X POST -H "Authorization: $authorization" "$url/oauth/request_token" |
    python3 -c 'import sys, urllib.parse; print(urllib.parse.parse_qs(sys.stdin.read()).get("oauth_token", [""])[0])')"
[ -n "$request_token" ] || fatal "no temporary credential from /oauth/request_token"
token="$(client_credentials "$url" statuses:write)"
[ -n "$token" ] || fatal "no access token with statuses:write from client credentials"
wrk --threads "$threads" --connections "$connections" --duration "${seconds}s" --timeout 5s \
    --script "$lua" "$url/1.1/statuses/update.json" -- post-bearer "$token" >"$work/kill.wrk" 2>&1 &
wrk_pid=$!
# Access tokens issued during the load: a token is kept only once its answer was read whole.
(
    while true; do
        issued="$(client_credentials "$url" statuses:read)"
        [ -n "$issued" ] && echo "$issued" >>"$work/issued.txt"
    done
) &
issuer_pid=$!
sleep "$((seconds / 2))"
before_kill="$(peak_rss "$pid")"
kill -9 "$pid"
wait "$pid" 2>/dev/null
kill "$issuer_pid" 2>/dev/null
wait "$issuer_pid" 2>/dev/null
# The killed sandbox is no longer one of the processes that must be alive at the end.
alive=()
for other in "${pids[@]}"; do [ "$other" = "$pid" ] || alive+=("$other"); done
pids=("${alive[@]}")
wait "$wrk_pid"
grep '^load: ' "$work/kill.wrk" >"$work/kill.load" || true
answered="$(sed -nE 's/.* ok=([0-9]+).*/\1/p' "$work/kill.load")"
echo "sandbox-load: kill: $(sed -nE 's/.* requests=([0-9]+).*/\1/p' "$work/kill.load") requests, ${answered:-?} statuses" \
    "answered 2xx before kill -9 at ${seconds}/2 s; sandbox peak RSS $before_kill MiB"
check "$([ "${answered:-0}" -gt 0 ] && echo yes)" "kill: no status was posted before the kill"
log_lines="$(wc -l <"$state.log" 2>/dev/null || echo 0)"
echo "sandbox-load: kill: the state file's log holds $log_lines changes not yet folded into the file"
start_sandbox restarted "$binary" --quiet --state "$state" || fatal "the sandbox did not restart on its state file"
# The restart replayed the log and folded it into the file.
stored="$(python3 -c 'import json, sys; print(len(json.load(open(sys.argv[1]))["statuses"]))' "$state" 2>"$work/parse.err")"
check "$([ -n "$stored" ] && echo yes)" "kill: the state file does not parse: $(cat "$work/parse.err")"
check "$([ -n "$stored" ] && [ "$stored" -ge "${answered:-0}" ] && echo yes)" \
    "kill: the state file holds ${stored:-no} statuses, fewer than the ${answered:-?} answered"
echo "sandbox-load: kill: after the restart the state file parses and holds ${stored:-?} statuses"
page="$(curl -s -w '\n%{http_code}' "$url/oauth/authorize?oauth_token=$request_token")"
check "$([ "$(tail -n 1 <<<"$page")" = 200 ] && grep -q "RemoteAuth Demo" <<<"$page" && echo yes)" \
    "restart: the temporary credential issued before the kill is unknown"
# Every access token answered before the kill, and the one the load posted with, still work.
issued_count="$(wc -l <"$work/issued.txt" 2>/dev/null || echo 0)"
check "$([ "${issued_count:-0}" -gt 0 ] && echo yes)" "kill: no access token was issued before the kill"
working=0
while read -r issued; do
    [ "$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $issued" "$url/1.1/account/verify_credentials.json")" = 200 ] &&
        working=$((working + 1))
done <"$work/issued.txt"
check "$([ "$working" -eq "${issued_count:-0}" ] && echo yes)" \
    "restart: $working of the $issued_count access tokens issued before the kill work"
status="$(curl -s -o /dev/null -w '%{http_code}' -X POST -H "Authorization: Bearer $token" \
    --data-urlencode "status=after the restart" "$url/1.1/statuses/update.json")"
check "$([ "$status" = 200 ] && echo yes)" "restart: the load's access token answered $status, not 200"
echo "sandbox-load: restart: all $working access tokens issued before the kill work, and the load's token posts"
token="$(tail -n 1 "$work/issued.txt")"
count="$(curl -s -H "Authorization: Bearer $token" "$url/1.1/statuses/home_timeline.json?count=200" |
    python3 -c 'import json, sys; print(len(json.load(sys.stdin)))' 2>/dev/null)"
check "$([ "${count:-0}" -gt 0 ] && echo yes)" "restart: the home timeline shows none of the statuses posted before the kill"
echo "sandbox-load: restart: the temporary credential issued before the kill is known; the home timeline" \
    "shows ${count:-no} statuses (at most 200)"
processes_alive
interop_finish
