#!/usr/bin/env bash
# Interop: RemoteAuthPostgres against a real PostgreSQL server, Debian's package (installed here
# when missing), started on a free loopback port in a temporary data directory and stopped at
# the end. Runs the RemoteAuthPostgresTests suite with POSTGRES_URL naming that server: the
# store's reads and writes across instances, its exclusive access, its lock timeout, and N
# instances (each its own PostgresClient pool) × 50 concurrent requests refreshing one session
# against the sandbox's 1-second, rotating tokens with one refresh per expiry. Faults (issue 24):
# a connection terminated (pg_terminate_backend) inside exclusive access, and the server
# restarted while instances refresh: POSTGRES_RESTART is the command that restarts this server
# (pg_ctl restart -m fast -w, as the server's user), which that test runs itself.
#
# Without POSTGRES_URL (a plain `swift test`) that suite is skipped; here a run in which no test
# ran, or any was skipped, fails.
#
# Usage: postgres_store.sh
# Ends with 'postgres-store: N passed, M failed'.
set -uo pipefail
cd "$(dirname "$0")/../.."
source scripts/interop/lib.sh
interop_begin postgres-store
export DEBIAN_FRONTEND=noninteractive

bin="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)"
if [ -z "$bin" ] || [ ! -x "$bin/initdb" ]; then
    echo "postgres-store: installing postgresql from Debian"
    apt_install postgresql || { sed 's/^/  /' "$work/apt.log" | tail -n 20; fatal "cannot install postgresql from Debian"; }
    bin="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)"
fi
[ -x "$bin/initdb" ] && [ -x "$bin/pg_ctl" ] || fatal "no initdb and pg_ctl under /usr/lib/postgresql/*/bin"

# PostgreSQL refuses to run as root: then the server runs as Debian's 'postgres' user, in a data
# directory it owns.
data="$(mktemp -d)"
as_server=()
if [ "$(id -u)" -eq 0 ]; then
    id postgres >/dev/null 2>&1 || fatal "running as root, and there is no 'postgres' user to run the server as"
    chown postgres "$data"
    as_server=(runuser -u postgres --)
fi
port="$(free_port)"
stop_server() {
    "${as_server[@]}" "$bin/pg_ctl" -D "$data/db" -m immediate stop >/dev/null 2>&1 || true
    rm -rf "$data"
    interop_cleanup
}
trap stop_server EXIT

"${as_server[@]}" "$bin/initdb" -D "$data/db" -U remote_auth --auth=trust -E UTF8 --no-instructions \
    >"$work/initdb.log" 2>&1 || { sed 's/^/  /' "$work/initdb.log"; fatal "initdb failed"; }
# Loopback only, no Unix socket outside the data directory; trust is for this throwaway server.
"${as_server[@]}" "$bin/pg_ctl" -D "$data/db" -l "$data/db/server.log" -w -t 30 \
    -o "-c listen_addresses=127.0.0.1 -p $port -k $data/db" start >"$work/pg_ctl.log" 2>&1 ||
    { sed 's/^/  /' "$work/pg_ctl.log" "$data/db/server.log"; fatal "the server did not start"; }
echo "postgres-store: $("$bin/postgres" --version) on 127.0.0.1:$port"

export POSTGRES_URL="postgres://remote_auth@127.0.0.1:$port/postgres"
# pg_ctl restart reuses the options of the start (postmaster.opts); -w: back once it accepts
# connections again.
restart=("${as_server[@]}" "$bin/pg_ctl" -D "$data/db" -l "$data/db/server.log" -m fast -w -t 60 restart)
export POSTGRES_RESTART="$(printf '%q ' "${restart[@]}")"
swift test --filter RemoteAuthPostgresTests >"$work/test.log" 2>&1
status=$?
grep -E "^(✔|✘|↳|postgres-store:)|Test run|skipped" "$work/test.log" | grep -v "started\.$" | sed 's/^/  /'
ran="$(grep -oE "Test run with [0-9]+ tests?" "$work/test.log" | tail -n 1 | grep -oE "[0-9]+" || echo 0)"
passed_tests="$(grep -E "^✔ Test .* passed after" "$work/test.log" | grep -cv "^✔ Test run " || true)"
failed_tests="$(grep -E "^✘ Test .* failed after" "$work/test.log" | grep -cv "^✘ Test run " || true)"
passed=$((passed + passed_tests))
failed=$((failed + failed_tests))
if grep -q "skipped" "$work/test.log"; then fail "a test was skipped: POSTGRES_URL did not reach the suite"; fi
if [ "$ran" -eq 0 ]; then fail "no test ran (swift test exited $status)"; tail -n 30 "$work/test.log"; fi
if [ "$status" -ne 0 ] && [ "$failed_tests" -eq 0 ]; then
    fail "swift test exited $status"
    tail -n 30 "$work/test.log"
fi
interop_finish
