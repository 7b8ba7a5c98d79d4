#!/usr/bin/env bash
# Coverage-guided fuzzing of RemoteAuth's parsers of untrusted bytes (libFuzzer, with
# AddressSanitizer and leak detection). Builds every target of the Fuzz/ package and runs each
# for a bounded time from its seed corpus (Fuzz/Corpus/<target>/), then prints executions,
# exec/s, coverage (cov: edges, ft: features) and corpus size per target.
#
# Fails on any finding (crash, broken invariant, timeout, leak, out-of-memory), on a build
# failure, and when a target did not run; it never skips. The input that failed is kept in the
# work directory and printed in Base64.
#
#   FUZZ_SECONDS   seconds per target (default 30)
#   FUZZ_RUNS      stop a target after this many executions instead (default: time only)
#   FUZZ_TARGETS   space-separated targets to run (default: every directory of Fuzz/Sources/
#                  except the support targets)
#   FUZZ_EXCLUDE   space-separated targets not to build or run (CI leaves out sandbox_request,
#                  whose build of SwiftNIO, NIOSSL's BoringSSL and Hummingbird with the
#                  sanitizers takes about ten minutes more; see .ci/run)
#                  When the targets are not all of them, only their products are built.
#   FUZZ_MAX_LEN   largest input, bytes (default 4096)
#   FUZZ_TIMEOUT   seconds one input may take before it is a hang (default 10)
#   FUZZ_RSS_MB    memory limit, MB (default 2048)
#   FUZZ_WORK      where new corpus units and failing inputs go (default: a temporary directory,
#                  removed unless a target failed); keep one to resume a campaign
#   FUZZ_JOBS      how many targets run at once (default: the number of cores, `nproc`)
#   FUZZ_JOBS_NICE nice level of the fuzzing processes (default 10)
#
# Leaks: every target runs with libFuzzer's -detect_leaks=1 (LeakSanitizer after each input
# that allocated more than it freed), except sandbox_request: the sandbox it drives keeps
# tokens and codes in its (bounded) tables, so most inputs end with more live memory than they
# began with, and a leak scan after each would take 80% of the run. That target is checked by
# LeakSanitizer once, at the end of its run, over everything the run allocated.
# Fuzz/lsan.supp lists the leaks of other projects' code that are not reported (each with its
# cause); RemoteAuth's own code has none.
#
# Adding a target: create Fuzz/Sources/<name>/<name>.swift (see any target there) and seed
# files in Fuzz/Corpus/<name>/. Fuzz/Package.swift and this script find it by its directory.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
cd "$repo"

seconds="${FUZZ_SECONDS:-30}"
runs="${FUZZ_RUNS:-0}"
max_len="${FUZZ_MAX_LEN:-4096}"
timeout="${FUZZ_TIMEOUT:-10}"
rss_mb="${FUZZ_RSS_MB:-2048}"
nice_level="${FUZZ_JOBS_NICE:-10}"
jobs="${FUZZ_JOBS:-$(nproc 2>/dev/null || echo 1)}"
[[ "$jobs" =~ ^[1-9][0-9]*$ ]] || { echo "fuzz: FAILED: FUZZ_JOBS must be a positive number, not '$jobs'" >&2; exit 1; }

fail() {
    echo "fuzz: FAILED: $*" >&2
    exit 1
}

# The toolchain's own libFuzzer and ASan runtimes, and its lld (GNU gold cannot link a Swift
# executable with -sanitize=fuzzer here: an internal error over the two `main`s).
command -v swift >/dev/null || fail "swift is not on PATH"
toolchain_bin="$(dirname "$(readlink -f "$(command -v swift)")")"
resource_dir="$toolchain_bin/../lib/swift/clang/lib/linux"
for runtime in libclang_rt.fuzzer-x86_64.a libclang_rt.asan-x86_64.a; do
    if [ "$(uname -s)" = Linux ] && [ ! -f "$resource_dir/$runtime" ]; then
        fail "the Swift toolchain has no $runtime in $resource_dir (install a toolchain from swift.org, which ships it)"
    fi
done
if [ ! -x "$toolchain_bin/ld.lld" ] && ! command -v ld.lld >/dev/null; then
    echo "fuzz: installing lld (the toolchain has none)"
    sudo apt-get install -y lld >/dev/null || fail "could not install lld"
fi

all_targets=()
for dir in Fuzz/Sources/*/; do
    name="$(basename "$dir")"
    case "$name" in CFuzzDriver | FuzzSupport) continue ;; esac
    all_targets+=("$name")
done
# shellcheck disable=SC2206
selected=(${FUZZ_TARGETS:-${all_targets[@]}})
excluded=" ${FUZZ_EXCLUDE:-} "
for target in ${FUZZ_EXCLUDE:-}; do
    [ -f "Fuzz/Sources/$target/$target.swift" ] || fail "FUZZ_EXCLUDE names no target '$target'"
done
targets=()
for target in "${selected[@]}"; do
    case "$excluded" in *" $target "*) ;; *) targets+=("$target") ;; esac
done
[ "${#targets[@]}" -gt 0 ] || fail "no fuzz targets to run (Fuzz/Sources, FUZZ_TARGETS, FUZZ_EXCLUDE)"
for target in "${targets[@]}"; do
    [ -f "Fuzz/Sources/$target/$target.swift" ] || fail "no target '$target' (Fuzz/Sources/$target/$target.swift)"
    [ -d "Fuzz/Corpus/$target" ] && [ -n "$(ls -A "Fuzz/Corpus/$target")" ] || fail "no seeds in Fuzz/Corpus/$target"
done

# One build of every target: release (the campaign's throughput), libFuzzer's coverage
# instrumentation and AddressSanitizer on every Swift module, in a scratch directory of its own.
echo "fuzz: building ${#targets[@]} targets (release, -sanitize=fuzzer,address)"
build_start=$SECONDS
build=(swift build --package-path Fuzz -c release --scratch-path Fuzz/.build
    -Xswiftc -sanitize=fuzzer,address -Xswiftc -use-ld=lld)
mkdir -p Fuzz/.build
: >Fuzz/.build/build-log.txt
if [ "${#targets[@]}" -eq "${#all_targets[@]}" ]; then
    products=("")
else
    products=("${targets[@]}")  # only what they need: one build per product, sharing the rest
fi
for product in "${products[@]}"; do
    if ! nice -n "$nice_level" "${build[@]}" ${product:+--product "$product"} >>Fuzz/.build/build-log.txt 2>&1; then
        tail -40 Fuzz/.build/build-log.txt >&2
        fail "the build failed (log: Fuzz/.build/build-log.txt)"
    fi
done
bin="$(swift build --package-path Fuzz -c release --scratch-path Fuzz/.build --show-bin-path)"
echo "fuzz: built in $((SECONDS - build_start)) s"

if [ -n "${FUZZ_WORK:-}" ]; then
    work="$FUZZ_WORK"
    mkdir -p "$work"
    keep_work=1
else
    work="$(mktemp -d)"
    keep_work=0
fi

# A failed check or fatalError traps straight into libFuzzer's handler: the Swift runtime's
# backtracer would read its own stack in a way ASan reports as a second, spurious error.
export SWIFT_BACKTRACE=enable=no
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=0:allocator_may_return_null=0:${ASAN_OPTIONS:-}"
export LSAN_OPTIONS="suppressions=$repo/Fuzz/lsan.supp:print_suppressions=0:${LSAN_OPTIONS:-}"
# Runs one target and writes its summary line to $work/$target/summary, with FAILED appended
# when it found something. Its report to the terminal comes in one piece once it has ended.
run_target() {
    local target="$1"
    local log="$work/$target/log.txt"
    local limit=(-max_total_time="$seconds")
    if [ "$runs" != 0 ]; then limit=(-runs="$runs"); fi
    local leaks=1
    case "$target" in sandbox_request) leaks=0 ;; esac
    local report=""
    report+="fuzz: $target (${limit[*]}, -max_len=$max_len, -timeout=$timeout, -rss_limit_mb=$rss_mb)"$'\n'
    local status=0
    nice -n "$nice_level" "$bin/$target" \
        "${limit[@]}" -max_len="$max_len" -timeout="$timeout" -rss_limit_mb="$rss_mb" \
        -malloc_limit_mb="$rss_mb" -detect_leaks="$leaks" -print_final_stats=1 -print_pcs=0 \
        -artifact_prefix="$work/$target/artifacts/" \
        "$work/$target/corpus" "Fuzz/Corpus/$target" >"$log" 2>&1 || status=$?
    # The last status line: `#N DONE cov: C ft: F corp: U/S exec/s: E rss: R Mb`.
    local done_line cov ft corp execs rate rss line
    done_line="$(grep -E '^#[0-9]+[[:space:]]+DONE' "$log" | tail -1 || true)"
    cov="$(sed -nE 's/.* cov: ([0-9]+).*/\1/p' <<<"$done_line")"
    ft="$(sed -nE 's/.* ft: ([0-9]+).*/\1/p' <<<"$done_line")"
    corp="$(sed -nE 's/.* corp: ([0-9]+\/[0-9]+[a-zA-Z]*).*/\1/p' <<<"$done_line")"
    execs="$(sed -nE 's/^stat::number_of_executed_units:[[:space:]]*([0-9]+)/\1/p' "$log" | tail -1)"
    rate="$(sed -nE 's/^stat::average_exec_per_sec:[[:space:]]*([0-9]+)/\1/p' "$log" | tail -1)"
    rss="$(sed -nE 's/^stat::peak_rss_mb:[[:space:]]*([0-9]+)/\1/p' "$log" | tail -1)"
    line="$(printf '%-20s execs %10s  exec/s %7s  cov %5s  ft %6s  corpus %-12s rss %5s MB' \
        "$target" "${execs:-?}" "${rate:-?}" "${cov:-?}" "${ft:-?}" "${corp:-?}" "${rss:-?}")"
    if [ "$status" -ne 0 ] || [ -z "$done_line" ] || [ -n "$(ls -A "$work/$target/artifacts")" ]; then
        report+="fuzz: $target FAILED (exit $status):"$'\n'
        report+="$(grep -E 'ERROR: |invariant broken|Fatal error|deadly signal|SUMMARY:|timeout|out-of-memory|leak' "$log" \
            | head -20 || true)"$'\n'
        local artifact
        for artifact in "$work/$target/artifacts"/*; do
            [ -f "$artifact" ] || continue
            report+="fuzz: $target input $artifact (Base64): $(base64 -w0 "$artifact" | head -c 2000)"$'\n'
        done
        report+="fuzz: $target log: $log"$'\n'
        line="$line  FAILED"
        printf '%s' "$report" >&2
    else
        printf '%s' "$report"
    fi
    echo "fuzz: $line"
    echo "$line" >"$work/$target/summary"
}

# At most $jobs targets at once; each is a background job of its own.
echo "fuzz: running ${#targets[@]} targets, $jobs at a time"
for target in "${targets[@]}"; do
    [ -x "$bin/$target" ] || fail "$bin/$target was not built"
    mkdir -p "$work/$target/corpus" "$work/$target/artifacts"
    rm -f "$work/$target/summary"
    while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n || true; done
    run_target "$target" &
done
wait

failed=()
summary=()
for target in "${targets[@]}"; do
    if [ ! -f "$work/$target/summary" ]; then
        summary+=("$(printf '%-20s did not report' "$target")  FAILED")
        failed+=("$target")
        continue
    fi
    line="$(cat "$work/$target/summary")"
    summary+=("$line")
    case "$line" in *FAILED) failed+=("$target") ;; esac
done
if [ "${#failed[@]}" -gt 0 ]; then keep_work=1; fi

echo "fuzz: summary (${seconds} s per target unless FUZZ_RUNS)"
printf 'fuzz:   %s\n' "${summary[@]}"
if [ "$keep_work" = 0 ]; then rm -rf "$work"; else echo "fuzz: work directory kept: $work"; fi
if [ "${#failed[@]}" -gt 0 ]; then
    fail "findings in: ${failed[*]}"
fi
echo "fuzz: OK: ${#targets[@]} targets, no crash, hang, leak or out-of-memory"
