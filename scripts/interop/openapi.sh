#!/usr/bin/env bash
# Interop: the sandbox's OpenAPI document and the client generated from it.
#
#   openapi.sh BINARY
#
# 1. Tests/RemoteAuthOpenAPITests/Generated/SHA256SUMS holds (sha256sum -c): the committed client
#    is what scripts/generate-openapi-client.sh made of the committed document, configuration and
#    generator version (swift test checks the same; the generator itself, a 4-minute build, runs
#    only when they change: `bash scripts/generate-openapi-client.sh --check` compares for real).
# 2. scripts/interop/openapi_document.py against a sandbox (BINARY sandbox): what GET /openapi.json
#    serves is that copy, openapi-spec-validator (PyPI, pinned) finds it valid OpenAPI 3.1, and the
#    sandbox's live answers are valid against its response schemas (openapi-schema-validator).
#
# The validators come from scripts/requirements.txt (scripts/interop.sh installs them); one that is
# missing is a failure, never a skip. Ends with 'openapi: N passed, M failed'.
set -uo pipefail
source "$(dirname "$0")/lib.sh"
if [ $# -ne 1 ]; then
    echo "usage: openapi.sh BINARY" >&2
    exit 2
fi
binary="$1"
interop_begin openapi
cd "$(dirname "$0")/../.."

python3 -c "import openapi_spec_validator, openapi_schema_validator" 2>/dev/null ||
    fatal "openapi-spec-validator and openapi-schema-validator are not importable (pip install -r scripts/requirements.txt)"

if sha256sum --check --strict Tests/RemoteAuthOpenAPITests/Generated/SHA256SUMS >"$work/generate.log" 2>&1; then
    pass
else
    fail "the generated client is not what generate-openapi-client.sh made of the committed inputs" \
        "(run bash scripts/generate-openapi-client.sh and commit the result):"
    sed 's/^/  /' "$work/generate.log" | grep -v ': OK$' | tail -n 40
fi

start_sandbox sandbox "$binary" || fatal "the sandbox did not start"
python3 scripts/interop/openapi_document.py "$url" Tests/RemoteAuthOpenAPITests/Generated/openapi.json >"$work/document.log" 2>&1
cat "$work/document.log"
line="$(grep -E '^openapi-document: [0-9]+ passed, [0-9]+ failed$' "$work/document.log" | tail -n 1 || true)"
if [ -z "$line" ]; then
    fail "openapi_document.py ended without its 'passed, failed' line"
else
    passed=$((passed + $(echo "$line" | sed -E 's/.*: ([0-9]+) passed.*/\1/')))
    failed=$((failed + $(echo "$line" | sed -E 's/.*, ([0-9]+) failed/\1/')))
fi
processes_alive
interop_finish
