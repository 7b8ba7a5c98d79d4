#!/usr/bin/env bash
# Interop: `remote-auth request --aws-sigv4` uploads to and downloads from an S3-compatible
# server that verifies SigV4 signatures: moto's server mode (PyPI, pinned in
# scripts/interop/requirements-moto.txt, in a venv of its own, .build/moto-venv, since moto pins
# botocore and boto3 its own way).
#
#   s3_moto.sh REMOTE_AUTH_BINARY
#
# moto checks signatures only with its IAM authentication on (INITIAL_NO_AUTH_ACTION_COUNT): the
# first 3 actions go unchecked, and they create an IAM user with an s3:* policy and its access
# key (boto3); every request after them must be signed with that key, and moto recomputes the
# header form's signature with botocore's S3SigV4Auth and compares (SignatureDoesNotMatch,
# InvalidAccessKeyId otherwise). What moto does not check, read in moto 5.2.5's source and
# shown below: the chunk signatures of an aws-chunked upload (it strips them; the seed signature
# in Authorization is checked), and presigned URLs (with IAM authentication on, a request
# without Authorization fails with a 500), so the presigned URL is fetched from a second moto
# without authentication, its bytes compared, and its signature is checked against botocore's
# by scripts/interop/sigv4_botocore.py.
#
# Prints one line per failed check and ends with 's3-moto: N passed, M failed'.
set -uo pipefail
source "$(dirname "$0")/lib.sh"

if [ $# -ne 1 ]; then
    echo "usage: s3_moto.sh REMOTE_AUTH_BINARY" >&2
    exit 2
fi
binary="$1"
interop_begin s3-moto
command -v curl >/dev/null || fatal "curl is not on PATH"

root="$(cd "$(dirname "$0")/../.." && pwd)"
venv="${REMOTE_AUTH_MOTO_VENV:-$root/.build/moto-venv}"
if ! { [ -x "$venv/bin/python" ] || python3 -m venv "$venv"; } ||
    ! PIP_DISABLE_PIP_VERSION_CHECK=1 "$venv/bin/python" -m pip install --quiet -r "$root/scripts/interop/requirements-moto.txt" >"$work/pip.log" 2>&1; then
    tail -n 20 "$work/pip.log"
    fatal "cannot install scripts/interop/requirements-moto.txt into $venv"
fi
"$venv/bin/python" -c 'import moto, boto3' || fatal "moto or boto3 is not importable from $venv"
echo "s3-moto: moto $("$venv/bin/python" -c 'import moto; print(moto.__version__)'), boto3 $("$venv/bin/python" -c 'import boto3; print(boto3.__version__)')"

# start_moto PORT AUTH_COUNT: a moto server on loopback; waits for its port with a bare TCP
# connect (an HTTP request would spend one of the unauthenticated actions).
start_moto() {
    local port="$1"
    INITIAL_NO_AUTH_ACTION_COUNT="$2" "$venv/bin/moto_server" -H 127.0.0.1 -p "$port" >"$work/moto-$port.log" 2>&1 &
    pids+=("$!")
    for _ in $(seq 1 300); do
        python3 -c "import socket; socket.create_connection(('127.0.0.1', $port)).close()" 2>/dev/null && return 0
        sleep 0.1
    done
    return 1
}
port="$(free_port)"
start_moto "$port" 3 || fatal "moto_server did not start (see its log)"
base="http://127.0.0.1:$port"

# The three unauthenticated actions: an IAM user, its policy, its access key (0600 file).
umask 077
"$venv/bin/python" - "$base" "$work/key" <<'PY' || fatal "cannot create the IAM user and access key"
import json, sys
import boto3
iam = boto3.client("iam", endpoint_url=sys.argv[1], region_name="us-east-1",
                   aws_access_key_id="bootstrap", aws_secret_access_key="bootstrap")
iam.create_user(UserName="interop")
iam.put_user_policy(UserName="interop", PolicyName="s3", PolicyDocument=json.dumps(
    {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "s3:*", "Resource": "*"}]}))
key = iam.create_access_key(UserName="interop")["AccessKey"]
with open(sys.argv[2], "w") as f:
    f.write(key["AccessKeyId"] + ":" + key["SecretAccessKey"])
PY
IFS=: read -r key_id secret <"$work/key"
sign=(--aws-sigv4 aws:amz:us-east-1:s3 -u "$key_id:$secret")
bucket="$base/interop-bucket"

# Test data: a small text, 200 KiB of random octets (3 chunks of 64 KiB and one of 8 KiB).
printf 'hello from remote-auth\n' >"$work/small.txt"
head -c 204800 /dev/urandom >"$work/big.bin"

# ra ARGS...: remote-auth request, its stdout in $work/out, its stderr in $work/err, its exit status returned.
ra() { "$binary" request "$@" >"$work/out" 2>"$work/err"; }
# same_file A B: yes when the files hold the same octets.
same_file() { cmp -s "$1" "$2" && echo yes; }

ra -f -X PUT "${sign[@]}" "$bucket"
check "$([ $? -eq 0 ] && echo yes)" "create the bucket (PUT, signed empty payload): $(cat "$work/err")"

ra -f -X PUT --data-binary "@$work/small.txt" -H 'Content-Type: text/plain' "${sign[@]}" "$bucket/small.txt"
check "$([ $? -eq 0 ] && echo yes)" "upload, header form, the payload's SHA-256 signed: $(cat "$work/err")"
ra -f "${sign[@]}" -o "$work/small.back" "$bucket/small.txt"
check "$([ $? -eq 0 ] && same_file "$work/small.txt" "$work/small.back")" "download of small.txt: the same octets"

# -T to s3: aws-chunked, STREAMING-AWS4-HMAC-SHA256-PAYLOAD, 64 KiB chunks (the default).
ra -f -v -T "$work/big.bin" "${sign[@]}" "$bucket/"
status=$?
check "$([ $status -eq 0 ] && echo yes)" "streaming upload of big.bin (-T, the URL's / gets the file's name): $(tail -n 3 "$work/err")"
check "$(grep -q '^> x-amz-content-sha256: STREAMING-AWS4-HMAC-SHA256-PAYLOAD' "$work/err" && grep -q '^> Content-Encoding: aws-chunked' "$work/err" && echo yes)" \
    "the streaming upload was sent aws-chunked"
ra -f "${sign[@]}" -o "$work/big.back" "$bucket/big.bin"
check "$([ $? -eq 0 ] && same_file "$work/big.bin" "$work/big.back")" "download of big.bin: the 204800 octets uploaded"
# The object as moto stored it, read by boto3 with the same key: no framing left in it.
"$venv/bin/python" - "$base" "$work/key" "$work/big.bin" <<'PY'
import sys
import boto3
key_id, secret = open(sys.argv[2]).read().split(":", 1)
s3 = boto3.client("s3", endpoint_url=sys.argv[1], region_name="us-east-1",
                  aws_access_key_id=key_id, aws_secret_access_key=secret)
stored = s3.get_object(Bucket="interop-bucket", Key="big.bin")["Body"].read()
sys.exit(0 if stored == open(sys.argv[3], "rb").read() else 1)
PY
check "$([ $? -eq 0 ] && echo yes)" "boto3 reads big.bin as uploaded"

head -c 70000 /dev/urandom >"$work/piped.bin"
ra -f -T - "${sign[@]}" "$bucket/piped.bin" <"$work/piped.bin"
check "$([ $? -eq 0 ] && echo yes)" "streaming upload from standard input (-T -): $(cat "$work/err")"
ra -f "${sign[@]}" -o "$work/piped.back" "$bucket/piped.bin"
check "$([ $? -eq 0 ] && same_file "$work/piped.bin" "$work/piped.back")" "download of piped.bin: the same octets"

ra -f -T "$work/small.txt" --aws-payload unsigned "${sign[@]}" "$bucket/unsigned.txt"
check "$([ $? -eq 0 ] && echo yes)" "upload with UNSIGNED-PAYLOAD: $(cat "$work/err")"
ra -f -T "$work/small.txt" --aws-payload signed "${sign[@]}" "$bucket/signed.txt"
check "$([ $? -eq 0 ] && echo yes)" "-T with the payload's SHA-256 (--aws-payload signed): $(cat "$work/err")"

# A wrong secret: refused by moto's own signature check, in both forms.
wrong=(--aws-sigv4 aws:amz:us-east-1:s3 -u "$key_id:not-the-secret")
ra "${wrong[@]}" "$bucket/small.txt"
status=$?
check "$([ $status -eq 1 ] && grep -q '<Code>SignatureDoesNotMatch</Code>' "$work/out" && echo yes)" \
    "GET with a wrong secret: SignatureDoesNotMatch (status $status: $(cat "$work/out"))"
ra -T "$work/big.bin" "${wrong[@]}" "$bucket/wrong.bin"
status=$?
check "$([ $status -eq 1 ] && grep -q '<Code>SignatureDoesNotMatch</Code>' "$work/out" && echo yes)" \
    "streaming upload with a wrong secret: SignatureDoesNotMatch (status $status)"
ra "${sign[@]}" "$bucket/wrong.bin"
check "$(grep -q '<Code>NoSuchKey</Code>' "$work/out" && echo yes)" "nothing was stored by the refused upload"
ra --aws-sigv4 aws:amz:us-east-1:s3 -u "AKIANOTAKEY000000000:$secret" "$bucket/small.txt"
check "$(grep -q '<Code>InvalidAccessKeyId</Code>' "$work/out" && echo yes)" "an unknown access key: InvalidAccessKeyId"

# Presigned: a second moto, without IAM authentication (moto cannot serve a presigned URL with
# it on), the object uploaded signed, then fetched by curl from remote-auth's presigned URL.
open_port="$(free_port)"
start_moto "$open_port" inf || fatal "the second moto_server did not start"
ra -f -X PUT "${sign[@]}" "http://127.0.0.1:$open_port/presigned-bucket"
ra -f -T "$work/big.bin" "${sign[@]}" "http://127.0.0.1:$open_port/presigned-bucket/big.bin"
check "$([ $? -eq 0 ] && echo yes)" "streaming upload to the second moto"
url="$("$binary" sign sigv4 GET "http://127.0.0.1:$open_port/presigned-bucket/big.bin" "${sign[@]}" --presign 300 2>"$work/err")"
check "$(echo "$url" | grep -q 'X-Amz-Signature=' && echo yes)" "remote-auth sign sigv4 --presign printed a URL: $(cat "$work/err")"
curl -sf -o "$work/presigned.back" "$url"
check "$([ $? -eq 0 ] && same_file "$work/big.bin" "$work/presigned.back")" "curl fetches the presigned URL: the same octets"

interop_finish
