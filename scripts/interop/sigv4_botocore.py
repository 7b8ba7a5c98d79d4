#!/usr/bin/env python3
"""Interop: `remote-auth sign sigv4` against botocore's own SigV4 signers, byte for byte.

For seeded random requests (methods; paths with spaces, unicode, dot segments and runs of '/',
percent-encoded as a client sends them; repeated and empty query parameters; header values with
runs of spaces and repeated fields; bodies; a session token; S3 and other services; presigned
URLs with an expiry) the script asks botocore (SigV4Auth / S3SigV4Auth, SigV4QueryAuth /
S3SigV4QueryAuth) for the Authorization value or the presigned URL, and runs our CLI on the
same inputs; they must be equal.

Usage: sigv4_botocore.py REMOTE_AUTH_BINARY [COUNT]
"""
import random
import subprocess
import sys
import urllib.parse

import datetime as real_datetime
import types

import botocore.auth as auth_module
from botocore.auth import S3SigV4Auth, S3SigV4QueryAuth, SigV4Auth, SigV4QueryAuth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials
from harness import Checks

binary = sys.argv[1]
count = int(sys.argv[2]) if len(sys.argv) > 2 else 200
rng = random.Random(4)
checks = Checks("sigv4-botocore")

SEGMENT = list("abcXYZ019-._~ $!'()*+,;=@:") + ["é", "漢", "😀"]
VALUE = list("abcXYZ019-._~ +/=&%") + ["é", "漢"]
DATE = "20261127T123456Z"


class FixedDatetime(real_datetime.datetime):
    """botocore dates its signatures with datetime.datetime.utcnow(): fixed here at DATE."""

    @classmethod
    def utcnow(cls):
        return cls(2026, 11, 27, 12, 34, 56)


auth_module.datetime = types.SimpleNamespace(datetime=FixedDatetime, timezone=real_datetime.timezone)


def quote(text):
    # What a client puts on the wire: AWS's encoding (unreserved kept, the rest %XX).
    return urllib.parse.quote(text, safe="-_.~")


def path(s3):
    segments = ["".join(rng.choice(SEGMENT) for _ in range(rng.randint(0, 6))) for _ in range(rng.randint(1, 4))]
    if not s3 and rng.random() < 0.3:
        segments.insert(rng.randrange(len(segments) + 1), rng.choice([".", "..", ""]))
    return "/" + "/".join(quote(s) for s in segments)


def query(presign):
    names = ["a", "B", "x-id", "prefix", "é", "list-type"]
    pairs = []
    for _ in range(rng.randint(0, 4)):
        name = rng.choice(names)
        if presign and any(n == name for n, _ in pairs):
            continue  # botocore's presigner keeps one value per name
        value = "".join(rng.choice(VALUE) for _ in range(rng.randint(0, 5)))
        pairs.append((name, value))
    return "&".join(quote(n) + "=" + quote(v) for n, v in pairs)


def headers():
    fields = []
    for _ in range(rng.randint(0, 3)):
        name = rng.choice(["X-Custom", "x-meta", "Content-Type", "X-Custom"])
        value = rng.choice(["  a   b  ", "text/plain", "v1", "x\ty", '"q   r"'])
        fields.append((name, value))
    return fields


for index in range(count):
    s3 = rng.random() < 0.4
    service = "s3" if s3 else rng.choice(["execute-api", "service", "sts"])
    region = rng.choice(["us-east-1", "eu-west-3"])
    presign = rng.random() < 0.3
    method = "GET" if presign else rng.choice(["GET", "PUT", "POST", "DELETE", "HEAD"])
    q = query(presign)
    url = "https://example.amazonaws.com" + path(s3) + ("?" + q if q else "")
    fields = headers()
    body = None if presign or method in ("GET", "HEAD") else "".join(rng.choice(VALUE) for _ in range(rng.randint(0, 20)))
    token = "FQoGZXIvYXdzE//token+" + str(index) if rng.random() < 0.3 else None
    credentials = Credentials("AKIDEXAMPLE", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", token)

    request = AWSRequest(method=method, url=url, data=(body or "").encode())
    for name, value in fields:
        request.headers[name] = value  # botocore's HTTPHeaders keeps repeated names
    if presign:
        expires = rng.choice([60, 3600, 604800])
        signer = (S3SigV4QueryAuth if s3 else SigV4QueryAuth)(credentials, service, region, expires=expires)
    else:
        signer = (S3SigV4Auth if s3 else SigV4Auth)(credentials, service, region)
    signer.add_auth(request)
    expected = request.url if presign else request.headers["Authorization"]

    command = [binary, "sign", "sigv4", "--aws-sigv4", f"aws:amz:{region}:{service}",
               "-u", "AKIDEXAMPLE:wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", "--date", DATE]
    if token:
        command += ["--security-token", token]
    for name, value in fields:
        command += ["-H", f"{name}:{value}"]
    if body:
        command += [f"--data-binary={body}"]  # attached: a body may start with "-"
    if presign:
        command += ["--presign", str(expires)]
    if s3 and not presign:
        command += ["--print", "authorization"]
    command += [method, url]
    result = subprocess.run(command, capture_output=True, text=True)
    ours = result.stdout.rstrip("\n")
    checks.check(result.returncode == 0 and ours == expected, f"#{index} {method} {url} ({service}{', presigned' if presign else ''})",
                 f"\n  botocore: {expected}\n  ours:     {ours}\n  stderr: {result.stderr.strip()}")

checks.finish()
