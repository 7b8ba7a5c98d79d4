#!/usr/bin/env bash
# Interop: RemoteAuthKeyring against a real Secret Service: Debian's gnome-keyring on a session
# bus of its own (dbus-run-session), its login keyring created and unlocked with a password on
# stdin (gnome-keyring-daemon --unlock), in a throwaway HOME. A second dbus-daemon listens on an
# abstract socket (unix:abstract=) for the D-Bus client's own tests. Runs every test whose name
# has "Keyring" with REMOTE_AUTH_KEYRING_TESTS=1: the D-Bus wire format, the connection on both
# kinds of address, the store's items, other programs' items, a collection locked between calls,
# the shared lock, the credential store (SecretServiceCredentialStore: its items, a client answering
# the sandbox from it), and libsecret's secret-tool reading what the stores wrote and writing what the
# store refuses as another program's (REMOTE_AUTH_SECRET_TOOL); and the tool's profiles in the
# login keyring (KeyringCLITests: profiles list and migrate both ways, foreign and undecodable
# items left alone, secret-tool search, 4 processes x 50 requests refreshing through the keyring).
#
# Without REMOTE_AUTH_KEYRING_TESTS (a plain `swift test`) those suites are skipped; here a run in
# which no test ran, or any was skipped, fails.
#
# Usage: keyring.sh
# Ends with 'keyring: N passed, M failed'.
set -uo pipefail
cd "$(dirname "$0")/../.."
source scripts/interop/lib.sh
interop_begin keyring
export DEBIAN_FRONTEND=noninteractive

if ! command -v gnome-keyring-daemon >/dev/null || ! command -v dbus-run-session >/dev/null ||
    ! command -v secret-tool >/dev/null; then
    echo "keyring: installing gnome-keyring, dbus, libsecret-tools from Debian"
    apt_install gnome-keyring dbus libsecret-tools ||
        { sed 's/^/  /' "$work/apt.log" | tail -n 20; fatal "cannot install gnome-keyring, dbus, libsecret-tools from Debian"; }
fi
for tool in gnome-keyring-daemon dbus-run-session dbus-daemon secret-tool; do
    command -v "$tool" >/dev/null || fatal "$tool is not on PATH after installing it"
done
echo "keyring: $(dbus-daemon --version | head -n 1), gnome-keyring $(dpkg-query -W -f '${Version}' gnome-keyring 2>/dev/null), libsecret-tools $(dpkg-query -W -f '${Version}' libsecret-tools 2>/dev/null)"

# Built before the bus starts (a no-op after CI's swift test), so that only the tests run inside it.
swift build --build-tests >"$work/build.log" 2>&1 || { tail -n 30 "$work/build.log"; fatal "swift build --build-tests failed"; }

# The keyring files, the daemon's control socket and the lock files go under $work, not ~.
mkdir -p "$work/data" "$work/runtime" "$work/home"
chmod 700 "$work/runtime"

cat >"$work/session.sh" <<'SESSION'
set -uo pipefail
# The password on stdin creates the login keyring (the 'default' alias) and unlocks it.
printf '%s' remote-auth-interop |
    XDG_DATA_HOME="$KEYRING_WORK/data" XDG_RUNTIME_DIR="$KEYRING_WORK/runtime" \
        gnome-keyring-daemon --unlock --components=secrets >"$KEYRING_WORK/daemon.env" 2>"$KEYRING_WORK/daemon.log" ||
    { echo "gnome-keyring-daemon --unlock failed"; cat "$KEYRING_WORK/daemon.log"; exit 3; }
# The daemon is up once it owns org.freedesktop.secrets.
for _ in $(seq 1 100); do
    dbus-send --session --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus \
        org.freedesktop.DBus.GetNameOwner string:org.freedesktop.secrets >/dev/null 2>&1 && break
    sleep 0.1
done
dbus-send --session --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus \
    org.freedesktop.DBus.GetNameOwner string:org.freedesktop.secrets >/dev/null ||
    { echo "nothing owns org.freedesktop.secrets"; cat "$KEYRING_WORK/daemon.log"; exit 3; }
echo "session bus: $DBUS_SESSION_BUS_ADDRESS"

# A second bus on an abstract socket, for the client's unix:abstract= path.
abstract="remote-auth-interop-$$"
dbus-daemon --session --nofork --address="unix:abstract=$abstract" --print-address=1 >"$KEYRING_WORK/abstract.address" 2>/dev/null &
abstract_pid=$!
for _ in $(seq 1 50); do [ -s "$KEYRING_WORK/abstract.address" ] && break; sleep 0.1; done
export REMOTE_AUTH_DBUS_ABSTRACT_ADDRESS="$(head -n 1 "$KEYRING_WORK/abstract.address")"
echo "abstract bus: $REMOTE_AUTH_DBUS_ABSTRACT_ADDRESS"

REMOTE_AUTH_KEYRING_TESTS=1 REMOTE_AUTH_SECRET_TOOL="$(command -v secret-tool)" REMOTE_AUTH_HOME="$KEYRING_WORK/home" \
    swift test --skip-build --filter Keyring
status=$?
kill "$abstract_pid" 2>/dev/null
exit $status
SESSION

KEYRING_WORK="$work" dbus-run-session -- bash "$work/session.sh" >"$work/test.log" 2>&1
status=$?
grep -E "^(session bus|abstract bus|gnome-keyring|nothing owns)" "$work/test.log" | sed 's/^/  /'
grep -E "^(✔|✘|↳)|Test run|skipped" "$work/test.log" | grep -v "started\.$" | sed 's/^/  /'
ran="$(grep -oE "Test run with [0-9]+ tests?" "$work/test.log" | tail -n 1 | grep -oE "[0-9]+" || echo 0)"
passed_tests="$(grep -E "^✔ Test .* passed after" "$work/test.log" | grep -cv "^✔ Test run " || true)"
failed_tests="$(grep -E "^✘ Test .* failed after" "$work/test.log" | grep -cv "^✘ Test run " || true)"
passed=$((passed + passed_tests))
failed=$((failed + failed_tests))
if grep -q "skipped" "$work/test.log"; then fail "a test was skipped: the Secret Service did not reach the suite"; fi
if [ "$ran" -eq 0 ]; then fail "no test ran (exit $status)"; tail -n 30 "$work/test.log"; fi
if [ "$status" -ne 0 ] && [ "$failed_tests" -eq 0 ]; then
    fail "the keyring session exited $status"
    tail -n 30 "$work/test.log"
fi
interop_finish
