#!/usr/bin/env bash
# The documentation (issue 25): builds the DocC catalog of every library product with
# swift-docc-plugin, in one invocation, and fails on any warning DocC prints (an unresolved
# ``link``, a parameter documented that does not exist or missing from a `- Parameters:` list,
# an ambiguous overload, a bad article). Then reports documentation coverage two ways:
#
#   - DocC's own (`--experimental-documentation-coverage --coverage-summary-level brief`): the
#     share of types and members with an abstract, per product. Informative: DocC counts
#     members the package does not declare (inherited `!=`, OptionSet's set algebra, …).
#   - This script's check over the symbol graphs the plugin extracted: every public symbol
#     declared in Sources/ has a summary line (its own, or the one of the protocol requirement
#     it implements). Members whose meaning a standard protocol fixes (`description`, `debugDescription`, `customMirror`, `hash(into:)`, `==`,
#     `rawValue`, `init(rawValue:)`, `encode(to:)`, `init(from:)`) are exempt. A symbol that
#     lacks a summary fails the run unless scripts/docs-undocumented.txt lists it: that list
#     only shrinks (a listed symbol that has gained a summary, or is gone, fails the run too,
#     until its line is removed), so no new public symbol goes in without a summary.
#
# Cheap after `swift test`: the plugin's build reuses the debug build (same flags), `swift
# package` reads the symbol graphs from it, and `--disable-indexing` skips the navigator index.
# Preview one catalog with `swift package --disable-sandbox preview-documentation --target X`.
#
#   bash scripts/docs.sh            # build, check, report
#   DOCS_UPDATE_BASELINE=1 bash scripts/docs.sh   # rewrite the list after adding summaries
set -euo pipefail
cd "$(dirname "$0")/.."

targets=(
    RemoteAuth RemoteAuthAsyncHTTPClient RemoteAuthNIO RemoteAuthURLSession RemoteAuthFileStore
    RemoteAuthPostgres RemoteAuthKeyring RemoteAuthLoopback RemoteAuthSandbox RemoteAuthOpenAPI
)
for target in "${targets[@]}"; do
    if [ ! -d "Sources/$target/$target.docc" ]; then
        echo "docs: FAILED: Sources/$target has no $target.docc catalog" >&2
        exit 1
    fi
done

arguments=()
for target in "${targets[@]}"; do arguments+=(--target "$target"); done
mkdir -p .build
log=.build/docs.log # the plugin's whole output, kept for a look after a failure
started=$(date +%s)
status=0
swift package generate-documentation "${arguments[@]}" --disable-indexing \
    --experimental-documentation-coverage --coverage-summary-level brief >"$log" 2>&1 || status=$?
elapsed=$(($(date +%s) - started))
if [ "$status" -ne 0 ]; then
    tail -n 60 "$log" >&2
    echo "docs: FAILED: swift package generate-documentation exited $status (whole output: $log)" >&2
    exit 1
fi

# DocC's diagnostics (`warning: 'X' doesn't exist at …`) and the compiler's (a cold build) fail
# the run; several conversions print at once, so a diagnostic may not start its line. SwiftPM's
# note about a dependency's own files (`warning: 'swift-distributed-tracing': found 1 file(s)
# which are unhandled`) is not about this package.
diagnostics="$(grep -E '(warning|error): ' "$log" | grep -Ev "warning: '[^']+': found [0-9]+ file\(s\) which are unhandled" || true)"
if [ -n "$diagnostics" ]; then
    grep -E -A4 '(warning|error): ' "$log" | grep -Ev "found [0-9]+ file\(s\) which are unhandled" >&2
    echo "docs: FAILED: $(printf '%s\n' "$diagnostics" | wc -l) warnings or errors" >&2
    exit 1
fi

python3 scripts/docs_coverage.py "${targets[@]}"
echo "docs: ${#targets[@]} catalogs built with no warning in ${elapsed} s; archives in .build/plugins/Swift-DocC/outputs"
