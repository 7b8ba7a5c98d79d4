#!/usr/bin/env bash
# Generates the sandbox status API's Swift client (Tests/RemoteAuthOpenAPITests/Generated/) with
# apple/swift-openapi-generator 1.14.3, once, so that no build runs the generator's plugin
# (it would add minutes to every cold build). The files are committed; this script makes them
# again byte for byte:
#
#   1. builds swift-openapi-generator 1.14.3 in .build-openapi-generator/ (git-ignored);
#   2. writes Tests/RemoteAuthOpenAPITests/Generated/openapi.json: the document the sandbox serves at
#      GET /openapi.json, copied from its one source, Sources/RemoteAuthSandbox/StatusAPIDocument.swift;
#   3. gives the generator that document less its form-encoded responses (which the runtime
#      here cannot decode; below);
#   4. runs `swift-openapi-generator generate` with openapi-generator-config.yaml beside it
#      (types and client, internal to the test target), writing Types*.swift and Client.swift there;
#   5. writes SHA256SUMS there: the inputs' and outputs' digests, which `swift test` checks.
#
#   bash scripts/generate-openapi-client.sh           regenerate
#   bash scripts/generate-openapi-client.sh --check   regenerate, then fail if anything differs
#                                                     from what is committed (drift fails)
set -euo pipefail
cd "$(dirname "$0")/.."

version=1.14.3
scratch=.build-openapi-generator
target=Tests/RemoteAuthOpenAPITests/Generated
check=false
case "${1:-}" in
    "") ;;
    --check) check=true ;;
    *) echo "usage: $0 [--check]" >&2; exit 2 ;;
esac

# 1. The generator, from its tag (github.com addresses are read from wherever git is told to).
source_dir="$scratch/swift-openapi-generator"
if [ "$(git -C "$source_dir" describe --tags --exact-match 2>/dev/null || true)" != "$version" ]; then
    rm -rf "$source_dir"
    mkdir -p "$scratch"
    git clone --quiet https://github.com/apple/swift-openapi-generator.git "$source_dir"
    git -C "$source_dir" -c advice.detachedHead=false checkout --quiet "$version"
fi
echo "generate-openapi-client: building swift-openapi-generator $version in $scratch"
swift build --package-path "$source_dir" --scratch-path "$scratch/build" --product swift-openapi-generator \
    >"$scratch/build.log" 2>&1 || { tail -n 30 "$scratch/build.log" >&2; exit 1; }
generator="$(swift build --package-path "$source_dir" --scratch-path "$scratch/build" --show-bin-path)/swift-openapi-generator"

# 2. The document: the raw string literal after the line `    static let json = #"""` of
# StatusAPIDocument.swift, up to its closing `"""#`, less the closing delimiter's indentation on
# every line, as Swift reads it: exactly what the sandbox serves (no newline at the end).
python3 - Sources/RemoteAuthSandbox/StatusAPIDocument.swift "$target/openapi.json" <<'PY'
import json, sys
lines = open(sys.argv[1], encoding="utf-8").read().split("\n")
start = lines.index('    static let json = #"""') + 1
end = next(i for i in range(start, len(lines)) if lines[i].strip() == '"""#')
indent = lines[end][: len(lines[end]) - len(lines[end].lstrip(" "))]
content = []
for line in lines[start:end]:
    if line and not line.startswith(indent):
        sys.exit(f"StatusAPIDocument.swift: a line of the document is indented less than its closing delimiter: {line!r}")
    content.append(line[len(indent):])
document = "\n".join(content)
json.loads(document)  # fails loudly on a document that is not JSON
with open(sys.argv[2], "w", encoding="utf-8") as f:
    f.write(document)
PY

# 3. The generator's input: the document less the form-encoded answers of its responses (the
# OAuth 1.0a refusals, RFC 5849 §3.2). The generator decodes such a body with
# Converter.getResponseBodyAsURLEncodedForm, which swift-openapi-runtime 1.13.4, the newest
# runtime here, does not have. Such a refusal that reaches the generated client (one the
# middleware does not answer) is thrown as an unexpected Content-Type, not returned typed.
python3 - "$target/openapi.json" "$scratch/openapi.json" <<'PY'
import json, sys
document = json.load(open(sys.argv[1], encoding="utf-8"))
responses = list(document["components"]["responses"].values())
for item in document["paths"].values():
    for operation in item.values():
        if isinstance(operation, dict) and "responses" in operation:
            responses += operation["responses"].values()
for response in responses:
    response.get("content", {}).pop("application/x-www-form-urlencoded", None)
with open(sys.argv[2], "w", encoding="utf-8") as f:
    json.dump(document, f, indent=2, ensure_ascii=False)
PY

# 4. The client: Types*.swift and Client.swift, after removing the old ones (so a file the
# generator no longer writes does not linger).
rm -f "$target"/*.swift
"$generator" generate --config "$target/openapi-generator-config.yaml" --output-directory "$target" \
    "$scratch/openapi.json" >"$scratch/generate.log" 2>&1 || { cat "$scratch/generate.log" >&2; exit 1; }
echo "generate-openapi-client: wrote $target/openapi.json and $(cd "$target" && ls ./*.swift | sed 's#^./##' | tr '\n' ' ')"

# 5. The fingerprint: SHA-256 of the generator's inputs (the document, the configuration, this
# script, which names the generator's version) and of its outputs. `swift test` checks it
# (GeneratedClientFingerprintTests), so a document, configuration or version changed without
# regenerating, or a generated file edited by hand, fails there without building the generator.
sha256sum "$target/openapi.json" "$target/openapi-generator-config.yaml" scripts/generate-openapi-client.sh \
    $(printf '%s\n' "$target"/*.swift | LC_ALL=C sort) >"$target/SHA256SUMS"

if $check; then
    if ! git diff --exit-code -- "$target" || [ -n "$(git status --porcelain --untracked-files=all -- "$target")" ]; then
        echo "generate-openapi-client: FAILED: $target differs from what is committed (see above);" \
            "run bash scripts/generate-openapi-client.sh and commit the result" >&2
        git status --short -- "$target" >&2
        exit 1
    fi
    echo "generate-openapi-client: $target is what the generator makes"
fi
