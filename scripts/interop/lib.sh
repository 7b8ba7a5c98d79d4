# What every shell interop peer shares (sourced, not run): counting checks, the closing line
# scripts/interop.sh adds to its total, a work directory with the background processes to stop,
# starting a sandbox and waiting for servers. The Python peers share harness.py the same way.
#
#   source "$(dirname "$0")/lib.sh"
#   interop_begin NAME        # counters, $work (removed on exit), $pids (stopped on exit)
#   pass | fail MESSAGE       # count one check; a failure prints 'FAIL: MESSAGE'
#   check yes|'' MESSAGE      # pass when the first word is 'yes', else fail
#   fatal MESSAGE             # a setup step failed: 'NAME: FAILED: ...', the count, exit 1
#   interop_finish            # 'NAME: N passed, M failed'; exits 1 on a failure or when nothing ran
#
# shellcheck shell=bash

interop_begin() {
    interop_name="$1"
    passed=0
    failed=0
    work="$(mktemp -d)"
    pids=()
    trap interop_cleanup EXIT
    trap 'exit 130' INT TERM
}

# Stops every process in $pids (SIGTERM, then waits) and removes $work.
interop_cleanup() {
    local pid
    for pid in ${pids[@]+"${pids[@]}"}; do
        if kill -0 "$pid" 2>/dev/null; then
            kill -TERM "$pid" 2>/dev/null || true
            wait "$pid" 2>/dev/null || true
        fi
    done
    [ -n "${work:-}" ] && rm -rf "$work"
}

pass() { passed=$((passed + 1)); }
fail() {
    failed=$((failed + 1))
    echo "FAIL: $*"
}
check() {
    local ok="$1"
    shift
    if [ "$ok" = yes ]; then pass; else fail "$@"; fi
}
fatal() {
    echo "$interop_name: FAILED: $*"
    echo "$interop_name: $passed passed, $((failed + 1)) failed"
    exit 1
}
interop_finish() {
    echo "$interop_name: $passed passed, $failed failed"
    [ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
    exit $?
}

# free_port: a loopback port nobody listens on right now.
free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

# wait_for_http URL [SECONDS]: true once URL answers at all (any status), false after SECONDS (15).
wait_for_http() {
    local url="$1" tries=$((${2:-15} * 10))
    for _ in $(seq 1 "$tries"); do
        curl -s -o /dev/null "$url" && return 0
        sleep 0.1
    done
    return 1
}

# apt_install PACKAGES...: installs from the package lists as they are, and only when that fails
# refreshes them and tries again (a fresh machine may have no lists yet). Its output goes to
# $work/apt.log.
apt_install() {
    local sudo=""
    if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
    $sudo apt-get install -y -qq "$@" >"$work/apt.log" 2>&1 && return 0
    $sudo apt-get update -qq >>"$work/apt.log" 2>&1 && $sudo apt-get install -y -qq "$@" >>"$work/apt.log" 2>&1
}

# start_sandbox NAME BINARY ARGS...: starts `BINARY sandbox --port 0 ARGS...` in the background
# (stdout in $work/NAME.out, stderr in $work/NAME.err, its pid added to $pids) and sets `url` from
# its first line, 'RemoteAuth sandbox listening on http(s)://127.0.0.1:PORT'; waits 15 seconds at
# most. On failure `url` is empty, the sandbox's output has been shown, and it returns 1.
start_sandbox() {
    local name="$1" binary="$2" pid first
    shift 2
    # The files exist before the sandbox starts: the loop below may read before its redirections run.
    : >"$work/$name.out"
    : >"$work/$name.err"
    "$binary" sandbox --port 0 "$@" </dev/null >"$work/$name.out" 2>"$work/$name.err" &
    pid=$!
    pids+=("$pid")
    url=""
    for _ in $(seq 1 150); do
        first="$(head -n 1 "$work/$name.out" || true)"
        if [[ "$first" =~ ^RemoteAuth\ sandbox\ listening\ on\ (https?://127\.0\.0\.1:[0-9]+)$ ]]; then
            url="${BASH_REMATCH[1]}"
            return 0
        fi
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
    done
    echo "$interop_name: the sandbox ($name) did not say 'RemoteAuth sandbox listening on http(s)://127.0.0.1:PORT' within 15 s"
    echo "$interop_name: its stdout:"
    sed 's/^/  /' "$work/$name.out"
    echo "$interop_name: its stderr:"
    sed 's/^/  /' "$work/$name.err"
    return 1
}

# sandbox_pin NAME: sets `pin` to the SPKI pin a sandbox started with --tls printed after its URL
# ('sha256//' and the base64 of 32 bytes); waits 5 seconds at most; returns 1 when there is none.
sandbox_pin() {
    pin=""
    for _ in $(seq 1 50); do
        pin="$(grep -o -m 1 'sha256//[A-Za-z0-9+/]\{43\}=' "$work/$1.out" || true)"
        [ -n "$pin" ] && return 0
        sleep 0.1
    done
    return 1
}

# processes_alive: one check per process in $pids, passing while it still runs.
processes_alive() {
    local pid
    for pid in ${pids[@]+"${pids[@]}"}; do
        if kill -0 "$pid" 2>/dev/null; then pass; else fail "a server (pid $pid) died during the run"; fi
    done
}
