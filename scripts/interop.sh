#!/usr/bin/env bash
# The interop suite: RemoteAuth against peers nobody here wrote.
# Installs its peers itself and fails (never skips) when one cannot be had.
#
#   oauthlib (PyPI)  verifies requests signed by `remote-auth sign oauth1`
set -euo pipefail
cd "$(dirname "$0")/.."

export PIP_ROOT_USER_ACTION=ignore PIP_DISABLE_PIP_VERSION_CHECK=1
echo "interop: installing peers (oauthlib, pyjwt, cryptography from PyPI)"
if ! python3 -m pip install --quiet oauthlib pyjwt cryptography; then
    echo "interop: FAILED to install oauthlib from PyPI" >&2
    exit 1
fi
python3 -c "import oauthlib, jwt, cryptography" || { echo "interop: oauthlib is not importable" >&2; exit 1; }

swift build --product remote-auth
binary="$(swift build --show-bin-path)/remote-auth"

echo "interop: oauthlib verifies requests signed by remote-auth"
python3 scripts/interop/oauthlib_verify.py "$binary" ../shared/vectors 300
