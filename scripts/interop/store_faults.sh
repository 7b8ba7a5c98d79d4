#!/usr/bin/env bash
# Faults in the file store (issue 24), on real file systems the kernel makes: the profile file
# on a full tmpfs and on a read-only one. Needs root (mount); scripts/interop.sh runs as root.
#
#   store_faults.sh REMOTE_AUTH_BINARY
#
# 1. A profile is signed in (client credentials at the sandbox) into a 64 KiB tmpfs. The file
#    system is then filled: a second sign-in fails with a plain message naming the file and
#    "No space left on device", exits non-zero, leaves the first profile's file byte for byte as
#    it was and readable (`profiles list`, `token --profile`), and no temporary file behind.
# 2. The tmpfs remounted read-only: reading still works; a sign-in fails with "Read-only file
#    system" named, and the file is as it was.
# Prints one 'FAIL:' line per failed check and ends with 'store-faults: N passed, M failed'.
set -uo pipefail
source "$(dirname "$0")/lib.sh"
interop_begin store-faults

if [ $# -ne 1 ] || [ ! -x "$1" ]; then
    fatal "usage: store_faults.sh REMOTE_AUTH_BINARY (an executable)"
fi
binary="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
[ "$(id -u)" = 0 ] || fatal "mounting a tmpfs needs root"

home="$work/home"
mkdir -p "$home"
mount -t tmpfs -o size=64k,mode=0700 tmpfs "$home" || fatal "cannot mount a tmpfs on $home"
unmount() { umount "$home" 2>/dev/null || true; }
trap 'unmount; interop_cleanup' EXIT
export REMOTE_AUTH_HOME="$home"

start_sandbox faults "$binary" || fatal "the sandbox did not start"
sign_in() { # PROFILE: client credentials at the sandbox, the secret on stdin
    echo demo-service-secret | "$binary" authorize oauth2 --client-credentials --profile "$1" --issuer "$url" \
        --client-id demo-service --client-secret - --scope statuses:read >"$work/out.txt" 2>"$work/err.txt"
}

sign_in first
check "$([ $? = 0 ] && echo yes)" "a first sign-in into the tmpfs: $(cat "$work/err.txt")"
cp "$home/tokens.json" "$work/before.json"

# 1. Full.
dd if=/dev/zero of="$home/filler" bs=1k count=128 2>/dev/null || true
sign_in second
status=$?
err="$(cat "$work/err.txt")"
check "$([ $status != 0 ] && echo yes)" "a sign-in on a full file system fails (exit $status)"
check "$(grep -q "cannot write $home/tokens.json: .*No space left on device; the file is as it was" <<<"$err" && echo yes)" \
    "the failure names the file and the full file system: '$err'"
check "$(cmp -s "$home/tokens.json" "$work/before.json" && echo yes)" "tokens.json is byte for byte as it was"
check "$([ -z "$(ls -A "$home" | grep '\.tmp$')" ] && echo yes)" "no temporary file is left: $(ls -A "$home")"
"$binary" profiles list >"$work/list.txt" 2>&1
check "$(grep -q '^first ' "$work/list.txt" && ! grep -q '^second ' "$work/list.txt" && echo yes)" \
    "profiles list reads the old file: $(cat "$work/list.txt")"
token="$("$binary" token --profile first 2>"$work/err.txt")"
check "$([ -n "$token" ] && echo yes)" "token --profile first still answers: $(cat "$work/err.txt")"
rm -f "$home/filler"

# 2. Read-only.
mount -o remount,ro "$home" || fatal "cannot remount $home read-only"
"$binary" profiles list >"$work/list.txt" 2>&1
check "$(grep -q '^first ' "$work/list.txt" && echo yes)" "profiles list on a read-only home: $(cat "$work/list.txt")"
sign_in third
status=$?
err="$(cat "$work/err.txt")"
check "$([ $status != 0 ] && echo yes)" "a sign-in on a read-only home fails (exit $status)"
check "$(grep -q "Read-only file system" <<<"$err" && echo yes)" "the failure names the read-only file system: '$err'"
check "$(cmp -s "$home/tokens.json" "$work/before.json" && echo yes)" "tokens.json is as it was"

interop_finish
