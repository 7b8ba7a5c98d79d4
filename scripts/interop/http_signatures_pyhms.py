#!/usr/bin/env python3
"""HTTP Message Signatures (RFC 9421) against the PyPI package http-message-signatures (pyhms),
every algorithm both implement: rsa-pss-sha512, rsa-v1_5-sha256, hmac-sha256,
ecdsa-p256-sha256, ecdsa-p384-sha384, ed25519, each with a key made here by `cryptography`.

  1. pyhms signs requests to the sandbox's status API (GET and a POST with a Content-Digest it
     computes); the sandbox (RemoteAuth's Verifier) accepts them, and refuses a tampered body, an
     unknown keyid and a signature by another key with 401.
  2. pyhms asks for a signed response (Accept-Signature, covering @status, content-digest and its
     own signature with ;req) and verifies the sandbox's signature with the key
     `remote-auth sandbox --write-response-key` wrote.
  3. `remote-auth sign http-signature` signs requests (no body, a body, query parameters and
     fields covered); pyhms verifies each, Content-Digest against the body included, and refuses
     the same fields over another body.

Usage: http_signatures_pyhms.py REMOTE_AUTH_BINARY
Last line: 'http-signatures-pyhms: N passed, M failed'. Fails, never skips, when a peer is missing.
"""
import base64
import json
import os
import subprocess
import sys
import tempfile
import time

NAME = "http-signatures-pyhms"
try:
    import requests
    import http_message_signatures as hms
    from http_message_signatures import algorithms, HTTPMessageSigner, HTTPMessageVerifier, MappingKeyResolver
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ec, ed25519, rsa
except ImportError as error:
    print(f"{NAME}: FAILED: a peer is not importable: {error}")
    print(f"{NAME}: 0 passed, 1 failed")
    sys.exit(1)

binary = sys.argv[1]
passed = 0
failed = 0


def check(name, condition, detail=""):
    global passed, failed
    if condition:
        passed += 1
    else:
        failed += 1
        print(f"{NAME}: FAILED {name} {detail}")


def pem_private(key):
    return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())


def pem_public(key):
    return key.public_key().public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)


# One key per algorithm: (algorithm id, pyhms class, private key object or HMAC secret).
KEYS = [
    ("rsa-pss-sha512", algorithms.RSA_PSS_SHA512, rsa.generate_private_key(public_exponent=65537, key_size=2048)),
    ("rsa-v1_5-sha256", algorithms.RSA_V1_5_SHA256, rsa.generate_private_key(public_exponent=65537, key_size=2048)),
    ("hmac-sha256", algorithms.HMAC_SHA256, os.urandom(32)),
    ("ecdsa-p256-sha256", algorithms.ECDSA_P256_SHA256, ec.generate_private_key(ec.SECP256R1())),
    ("ecdsa-p384-sha384", algorithms.ECDSA_P384_SHA384, ec.generate_private_key(ec.SECP384R1())),
    ("ed25519", algorithms.ED25519, ed25519.Ed25519PrivateKey.generate()),
]
from importlib.metadata import version

print(f"{NAME}: http-message-signatures {version('http-message-signatures')}, {len(KEYS)} algorithms")


def resolver(alg, key, key_id):
    if alg == "hmac-sha256":
        return MappingKeyResolver(public_keys={key_id: key}, private_keys={key_id: key})
    return MappingKeyResolver(public_keys={key_id: pem_public(key)}, private_keys={key_id: pem_private(key)})


work = tempfile.mkdtemp(prefix="pyhms-")
config = {"httpSignatureKeys": []}
for alg, _, key in KEYS:
    entry = {"keyID": f"py-{alg}", "user": "alice", "algorithm": alg}
    if alg == "hmac-sha256":
        entry["secretBase64"] = base64.b64encode(key).decode()
    else:
        entry["publicKeyPEM"] = pem_public(key).decode()
    config["httpSignatureKeys"].append(entry)
with open(f"{work}/sandbox.json", "w") as f:
    json.dump(config, f)

response_key_path = f"{work}/response.pem"
sandbox_out = open(f"{work}/sandbox.out", "w+")
sandbox = subprocess.Popen(
    [binary, "sandbox", "--port", "0", "--quiet", "--config", f"{work}/sandbox.json",
     "--write-response-key", response_key_path],
    stdout=sandbox_out, stderr=subprocess.STDOUT,
)
try:
    base = None
    for _ in range(300):
        time.sleep(0.1)
        sandbox_out.seek(0)
        first = sandbox_out.readline()
        if first.startswith("RemoteAuth sandbox listening on "):
            base = first.strip().split()[-1]
            break
        if sandbox.poll() is not None:
            break
    if base is None:
        sandbox_out.seek(0)
        print(f"{NAME}: FAILED: the sandbox did not start: {sandbox_out.read()[:2000]}")
        print(f"{NAME}: {passed} passed, {failed + 1} failed")
        sys.exit(1)
    with open(response_key_path, "rb") as f:
        response_public = f.read()
    response_verifier = HTTPMessageVerifier(
        signature_algorithm=algorithms.ED25519,
        key_resolver=MappingKeyResolver(public_keys={"sandbox-response-ed25519": response_public}, private_keys={}),
    )

    # 1 and 2: pyhms signs, the sandbox verifies; the sandbox signs, pyhms verifies.
    for alg, cls, key in KEYS:
        key_id = f"py-{alg}"
        signer = HTTPMessageSigner(signature_algorithm=cls, key_resolver=resolver(alg, key, key_id))
        # A GET, asking for a signed response.
        get = requests.Request(
            "GET", base + "/1.1/account/verify_credentials.json",
            headers={"Accept-Signature": 'res1=("@status" "content-digest" "signature";req;key="pyhms")'},
        ).prepare()
        signer.sign(get, key_id=key_id, label="pyhms")
        answer = requests.Session().send(get)
        check(f"{alg}: the sandbox accepts pyhms's GET", answer.status_code == 200, f"{answer.status_code} {answer.text}")
        check(f"{alg}: as alice", answer.status_code == 200 and answer.json().get("screen_name") == "alice")
        try:
            results = response_verifier.verify(
                answer, body=answer.content, max_age=None,
                require_components=["@status", "content-digest", '"signature";req;key="pyhms"'],
            )
            check(f"{alg}: pyhms verifies the sandbox's signed response", len(results) == 1)
        except Exception as error:
            check(f"{alg}: pyhms verifies the sandbox's signed response", False, repr(error))
        # A POST with a body: pyhms adds Content-Digest and covers it.
        text = f"signed by pyhms with {alg}"
        body = f"status={requests.utils.quote(text)}".encode()
        post = requests.Request(
            "POST", base + "/1.1/statuses/update.json", data=body,
            headers={"Content-Type": "application/x-www-form-urlencoded"},
        ).prepare()
        signer.sign(post, key_id=key_id, label="pyhms", body=body)
        answer = requests.Session().send(post)
        check(f"{alg}: the sandbox accepts pyhms's POST", answer.status_code == 200, f"{answer.status_code} {answer.text}")
        check(f"{alg}: the status posted", answer.status_code == 200 and answer.json().get("text") == text)
        # The same signature over another body: Content-Digest no longer matches.
        post.body = b"status=tampered"
        post.headers["Content-Length"] = str(len(post.body))
        answer = requests.Session().send(post)
        check(f"{alg}: a tampered body is refused", answer.status_code == 401 and "digestMismatch" in answer.text,
              f"{answer.status_code} {answer.text}")
        # An unknown keyid.
        stranger = HTTPMessageSigner(signature_algorithm=cls, key_resolver=resolver(alg, key, "nobody"))
        get = requests.Request("GET", base + "/1.1/account/verify_credentials.json").prepare()
        stranger.sign(get, key_id="nobody", label="pyhms")
        answer = requests.Session().send(get)
        check(f"{alg}: an unknown keyid is refused", answer.status_code == 401 and "unknownKey" in answer.text,
              f"{answer.status_code} {answer.text}")
    # Another key under a known keyid: the signature does not verify.
    other = ed25519.Ed25519PrivateKey.generate()
    forger = HTTPMessageSigner(
        signature_algorithm=algorithms.ED25519,
        key_resolver=MappingKeyResolver(public_keys={}, private_keys={"py-ed25519": pem_private(other)}),
    )
    get = requests.Request("GET", base + "/1.1/account/verify_credentials.json").prepare()
    forger.sign(get, key_id="py-ed25519", label="pyhms")
    answer = requests.Session().send(get)
    check("ed25519: a signature by another key is refused",
          answer.status_code == 401 and "invalidSignature" in answer.text, f"{answer.status_code} {answer.text}")

    # 3: remote-auth signs, pyhms verifies.
    cases = [
        ("GET", "https://example.com/resource?b=2&a=1", None, None, ["@method", "@target-uri", "@authority"]),
        ("POST", "https://example.com/foo?param=Value&Pet=dog", '{"hello": "world"}',
         '@method @path @query "@query-param";name="Pet" @authority content-type',
         ["@method", "@path", "@query", '"@query-param";name="Pet"', "@authority", "content-type", "content-digest"]),
        ("PUT", "http://127.0.0.1:8080/a%20b/c", "status=é", "@method @target-uri @scheme @request-target",
         ["@method", "@target-uri", "@scheme", "@request-target", "content-digest"]),
    ]
    for alg, cls, key in KEYS:
        key_id = f"ra-{alg}"
        key_path = f"{work}/{alg}.key"
        with open(key_path, "wb") as f:
            f.write(key if alg == "hmac-sha256" else pem_private(key))
        verifier = HTTPMessageVerifier(signature_algorithm=cls, key_resolver=resolver(alg, key, key_id))
        for method, url, body, components, covered in cases:
            arguments = [binary, "sign", "http-signature", "--key", key_path, "--keyid", key_id, "-X", method,
                         "-H", "Content-Type: application/json"]
            if alg.startswith("rsa"):
                arguments += ["--alg", alg]
            if components:
                arguments += ["--components", components]
            if body is not None:
                arguments += ["-d", body]
            result = subprocess.run(arguments + [url], capture_output=True, text=True)
            name = f"{alg}: pyhms verifies remote-auth's {method} {url}"
            if result.returncode != 0:
                check(name, False, result.stderr)
                continue
            headers = {"Content-Type": "application/json"}
            for line in result.stdout.splitlines():
                field, _, value = line.partition(": ")
                headers[field] = value
            content = body.encode() if body is not None else None
            message = requests.Request(method, url, headers=headers, data=content).prepare()
            try:
                results = verifier.verify(message, body=content, require_components=covered)
                alg_param = str(results[0].parameters.get("alg"))
                check(name, len(results) == 1 and alg_param == alg, f"{results}")
            except Exception as error:
                check(name, False, repr(error))
            if content is not None:
                try:
                    verifier.verify(message, body=content + b"!", require_components=covered)
                    check(f"{alg}: pyhms refuses remote-auth's {method} over another body", False)
                except hms.exceptions.InvalidSignature:
                    check(f"{alg}: pyhms refuses remote-auth's {method} over another body", True)
finally:
    sandbox.terminate()
    sandbox.wait()

print(f"{NAME}: {passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
