#!/usr/bin/env bash
# Interop: `remote-auth request` against a Digest server nobody here wrote, Python's httpbin
# (its /digest-auth/{qop}/{user}/{passwd}/{algorithm} routes), for MD5 and SHA-256 with qop auth
# and auth-int: a right password gets httpbin's JSON, a wrong one exit status 1 and the 401
# status line, and -v shows the Authorization field redacted.
#
# Usage: httpbin_digest.sh REMOTE_AUTH_BINARY HTTPBIN_URL
# Ends with 'httpbin: N passed, M failed'.
set -uo pipefail
source "$(dirname "$0")/lib.sh"
binary="$1"
base="$2"
interop_begin httpbin

for algorithm in MD5 SHA-256; do
    for qop in auth auth-int; do
        url="$base/digest-auth/$qop/user/passwd/$algorithm"
        body="$("$binary" request --user user:passwd "$url" 2>"$work/err")"
        status=$?
        if [ "$status" -eq 0 ] && python3 -c '
import json, sys
sys.exit(0 if json.loads(sys.argv[1]) == {"authenticated": True, "user": "user"} else 1)' "$body"; then
            pass
        else
            fail "$algorithm $qop: exit $status, body: $body, stderr: $(cat "$work/err")"
        fi

        "$binary" request --user user:wrong "$url" >/dev/null 2>"$work/err"
        status=$?
        if [ "$status" -eq 1 ] && grep -qx "remote-auth: HTTP 401 UNAUTHORIZED\|remote-auth: HTTP 401 Unauthorized" "$work/err"; then
            pass
        else
            fail "$algorithm $qop with a wrong password: exit $status, stderr: $(cat "$work/err")"
        fi

        "$binary" request -v --user user:passwd "$url" >/dev/null 2>"$work/verbose"
        authorization="$(grep -i '^> Authorization:' "$work/verbose" || true)"
        if [ -n "$authorization" ] && ! grep -q 'response=' <<<"$authorization" && ! grep -q 'passwd' <<<"$authorization"; then
            pass
        else
            fail "$algorithm $qop -v: the Authorization line is missing or not redacted: $authorization"
        fi
    done
done

interop_finish
