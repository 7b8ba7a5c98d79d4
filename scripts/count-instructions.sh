#!/usr/bin/env bash
# Instructions per operation of remote-auth-bench's hot paths, counted by valgrind's callgrind.
#
#   bash scripts/count-instructions.sh                      # every operation
#   bash scripts/count-instructions.sh oauth1-header hmac-sha1-keyed
#   ANNOTATE=1 bash scripts/count-instructions.sh oauth1-header   # and the profile (callgrind_annotate)
#
# Each operation runs twice under callgrind, `remote-auth-bench count NAME N` with N=$N1 and
# N=$N2; instructions per operation = (I(N2) - I(N1)) / (N2 - N1), so start-up and one-time
# set-up cancel out. Counts repeat to about 0.1% where times drift by 2x on a shared machine.
#
# A developer tool, not part of CI. It builds the benchmark in release into .build-release,
# strips the debug information into a copy (valgrind 3.19 cannot read the DWARF of Swift 6.3
# binaries; `--strip-debug` keeps the symbols, so the profile still names functions), and
# installs valgrind with apt-get when it is missing; it fails when it cannot.
set -euo pipefail

cd "$(dirname "$0")/.."
N1=${N1:-200}
N2=${N2:-1200}
SCRATCH=${SCRATCH:-.build-release}
WORK=$SCRATCH/count-instructions
ALL=(oauth1-header hmac-sha1-raw hmac-sha1-keyed oauth1-sign-request oauth1-verify
    digest-sha256-response digest-sha256-authorization digest-sha256-raw
    id-token-validate-rs256 rsa2048-verify-raw dpop-proof-es256 dpop-p256-sign-raw
    sigv4-header sigv4-floor sigv4-header-cached sigv4-floor-cached http-signature-ed25519 ed25519-sign-raw)

if ! command -v valgrind >/dev/null || ! command -v callgrind_annotate >/dev/null; then
    echo "valgrind is missing; installing it with apt-get" >&2
    sudo apt-get install -y valgrind >&2 || { sudo apt-get update >&2 && sudo apt-get install -y valgrind >&2; }
fi
command -v valgrind >/dev/null || { echo "error: valgrind could not be installed" >&2; exit 1; }

echo "building remote-auth-bench (release, $SCRATCH)" >&2
REMOTE_AUTH_BENCHMARKS=1 swift build -c release --product remote-auth-bench --scratch-path "$SCRATCH" >&2
mkdir -p "$WORK"
BIN=$WORK/remote-auth-bench
strip --strip-debug -o "$BIN" "$SCRATCH/release/remote-auth-bench"

# Total instructions of one run, from callgrind's summary line.
count() {
    local name=$1 n=$2 out=$WORK/callgrind.$1.$2
    valgrind --tool=callgrind --dump-instr=no --callgrind-out-file="$out" "$BIN" count "$name" "$n" \
        >/dev/null 2>"$out.log" || { cat "$out.log" >&2; echo "error: $name N=$n failed" >&2; exit 1; }
    awk '/^(summary|totals):/ { print $2; exit }' "$out"
}

operations=("$@")
[ ${#operations[@]} -gt 0 ] || operations=("${ALL[@]}")
printf '%-30s %14s\n' "operation" "instructions/op"
for name in "${operations[@]}"; do
    first=$(count "$name" "$N1")
    second=$(count "$name" "$N2")
    printf '%-30s %14d\n' "$name" $(((second - first) / (N2 - N1)))
    if [ -n "${ANNOTATE:-}" ]; then
        callgrind_annotate --inclusive=no "$WORK/callgrind.$name.$N2" 2>/dev/null | head -40
    fi
done
echo "(callgrind, N=$N1 and N=$N2, binary: $BIN)" >&2
