#!/usr/bin/env python3
"""Interop (issue 26, private_key_jwt): a client nobody here wrote registers at RemoteAuth's
sandbox with its public key and authenticates with assertions signed by it.

The client is the Model Context Protocol's Python SDK (`mcp` on PyPI, pinned in
scripts/requirements.txt): its `PrivateKeyJWTOAuthProvider` (client credentials, RFC 7523 §2.2,
assertions signed by PyJWT with `SignedJWTParameters`, `aud` the issuer) starting from the
sandbox's status API URL (RFC 9728: the 401, the protected resource metadata, the
authorization server's metadata). The key is made by `cryptography` and its public JWK written
here by hand from the key's numbers (RFC 7518 §6.2.1), so neither the key nor the JWK passes
through RemoteAuth's code. Against `remote-auth sandbox --port 0` (started here):

  1. RFC 7591 registration with token_endpoint_auth_method private_key_jwt and that JWK in
     jwks: 201, no client_secret, the method and jwks echoed exactly (§3.2.1); RFC 7592 read
     with the registration access token answers the same;
  2. the SDK from the resource URL: exactly GET (401), the resource metadata, the server
     metadata, POST /oauth2/token (200: grant client_credentials, client_assertion_type
     jwt-bearer, resource the status API, no secret and no Authorization field), GET (200);
     introspection says the token is active, of that client, for audience [BASE/1.1];
  3. a second SDK provider for the same client whose assertions are signed by another key: the
     token request is refused, 401 invalid_client, and no token is issued;
  4. registrations the sandbox must refuse, each 400 invalid_client_metadata: a jwks holding the
     private key's `d`, jwks_uri instead of jwks, private_key_jwt without keys.

Usage: mcp_private_key_jwt.py REMOTE_AUTH_BINARY
Prints one line per failed check and ends with 'mcp-private-key-jwt: N passed, M failed'; exits
1 on any failure (a missing peer fails: nothing is skipped).
"""
import asyncio
import base64
import logging
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import traceback

import httpx2
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from mcp.client.auth.extensions.client_credentials import PrivateKeyJWTOAuthProvider, SignedJWTParameters

from harness import Checks

# The SDK logs a refused token request (check 3, expected) with its traceback: not a failure here.
logging.getLogger("mcp").setLevel(logging.CRITICAL)

if len(sys.argv) != 2:
    sys.exit("usage: mcp_private_key_jwt.py REMOTE_AUTH_BINARY")
BINARY = sys.argv[1]
CHECKS = Checks("mcp-private-key-jwt")
check = CHECKS.check
JWT_BEARER = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"


def b64url(number):
    return base64.urlsafe_b64encode(number.to_bytes(32, "big")).decode().rstrip("=")


def p256_key():
    """A P-256 key, its PEM (PKCS#8) and its public JWK (RFC 7518 §6.2.1), made here."""
    key = ec.generate_private_key(ec.SECP256R1())
    numbers = key.public_key().public_numbers()
    jwk = {"kty": "EC", "crv": "P-256", "x": b64url(numbers.x), "y": b64url(numbers.y), "use": "sig", "alg": "ES256"}
    pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                            serialization.NoEncryption()).decode()
    return key, pem, jwk


class Storage:
    """The SDK's TokenStorage, in memory."""

    def __init__(self):
        self.tokens = None

    async def get_tokens(self):
        return self.tokens

    async def set_tokens(self, tokens):
        self.tokens = tokens

    async def get_client_info(self):
        return None

    async def set_client_info(self, client_info):
        pass


def sdk_get(base, client_id, pem, url):
    """GET `url` through the SDK's private_key_jwt provider; (response or exception, exchanges)."""
    log = []

    async def on_request(request):
        log.append({"method": request.method, "url": str(request.url), "headers": dict(request.headers),
                    "body": request.content.decode("utf-8", "replace")})

    async def on_response(response):
        await response.aread()
        log[-1]["status"], log[-1]["answer"] = response.status_code, response.text

    async def go():
        provider = PrivateKeyJWTOAuthProvider(
            server_url=base + "/1.1", storage=Storage(), client_id=client_id,
            assertion_provider=SignedJWTParameters(issuer=client_id, subject=client_id, signing_key=pem,
                                                   signing_algorithm="ES256").create_assertion_provider(),
            scope="statuses:read", issuer=base)
        async with httpx2.AsyncClient(auth=provider, trust_env=False, timeout=30,
                                      event_hooks={"request": [on_request], "response": [on_response]}) as client:
            return await client.get(url)

    try:
        return asyncio.run(go()), log
    except Exception as error:  # noqa: BLE001 - the SDK's failure is a finding, reported as such
        return error, log


def form_of(body):
    import urllib.parse
    return dict(urllib.parse.parse_qsl(body))


def run(base):
    key, pem, jwk = p256_key()
    with httpx2.Client(trust_env=False, timeout=30) as http:
        # 1. Registration with the public key.
        registered = http.post(base + "/oauth2/register", json={
            "grant_types": ["client_credentials"], "response_types": [], "token_endpoint_auth_method": "private_key_jwt",
            "jwks": {"keys": [jwk]}, "client_name": "mcp private_key_jwt", "scope": "statuses:read"})
        answer = registered.json() if registered.headers.get("content-type", "").startswith("application/json") else {}
        check(registered.status_code == 201 and answer.get("token_endpoint_auth_method") == "private_key_jwt"
              and answer.get("jwks") == {"keys": [jwk]} and "client_secret" not in answer
              and "client_secret_expires_at" not in answer and answer.get("client_id"),
              "1: private_key_jwt with jwks registers (201): method and jwks echoed, no secret (RFC 7591 §3.2.1)",
              f"{registered.status_code} {registered.text[:400]}")
        client_id = answer.get("client_id", "")
        read = http.get(answer.get("registration_client_uri", base + "/oauth2/register/x"),
                        headers={"Authorization": "Bearer " + answer.get("registration_access_token", "")})
        check(read.status_code == 200 and read.json().get("jwks") == {"keys": [jwk]}
              and read.json().get("token_endpoint_auth_method") == "private_key_jwt",
              "1: RFC 7592 read answers the same method and jwks", f"{read.status_code} {read.text[:300]}")

        # 2. The SDK from the resource URL, with assertions signed by the key.
        home = base + "/1.1/statuses/home_timeline.json"
        response, log = sdk_get(base, client_id, pem, home)
        steps = [(e["method"], e["url"], e.get("status")) for e in log]
        check(not isinstance(response, Exception) and response.status_code == 200 and response.text == "[]"
              and steps == [("GET", home, 401), ("GET", base + "/.well-known/oauth-protected-resource/1.1", 200),
                            ("GET", base + "/.well-known/oauth-authorization-server", 200),
                            ("POST", base + "/oauth2/token", 200), ("GET", home, 200)],
              "2: the SDK signs in from the resource URL with its key and reads the timeline (200 [])",
              f"{response if isinstance(response, Exception) else response.status_code}; {steps}")
        token_request = next((e for e in log if e["url"] == base + "/oauth2/token"), {"body": "", "headers": {}})
        form = form_of(token_request["body"])
        check(form.get("grant_type") == "client_credentials" and form.get("client_assertion_type") == JWT_BEARER
              and form.get("client_assertion", "").count(".") == 2 and form.get("resource") == base + "/1.1"
              and "client_secret" not in form and "authorization" not in token_request["headers"],
              "2: the token request: client_credentials, a jwt-bearer assertion, resource, no secret (RFC 7523 §2.2)",
              sorted(form))
        issued = {}
        try:
            issued = httpx2.Response(200, content=next(e for e in log if e["url"] == base + "/oauth2/token")["answer"]).json()
        except Exception:  # noqa: BLE001
            pass
        introspected = http.post(base + "/oauth2/introspect", data={"token": issued.get("access_token", "")},
                                 auth=("demo-service", "demo-service-secret")).json()
        check(introspected.get("active") is True and introspected.get("client_id") == client_id
              and introspected.get("aud") in ([base + "/1.1"], base + "/1.1"),
              "2: introspection: active, of the registered client, for the status API", introspected)

        # 3. Another key signs: refused.
        _, other_pem, _ = p256_key()
        response, log = sdk_get(base, client_id, other_pem, home)
        token_answers = [(e.get("status"), e.get("answer", "")) for e in log if e["url"] == base + "/oauth2/token"]
        check(len(token_answers) == 1 and token_answers[0][0] == 401 and '"invalid_client"' in token_answers[0][1]
              and (isinstance(response, Exception) or response.status_code == 401),
              "3: an assertion signed by another key is refused: 401 invalid_client, no token",
              f"{token_answers}; {response}")

        # 4. Registrations refused.
        private = dict(jwk, d=b64url(key.private_numbers().private_value))
        for label, body in [
            ("a jwks holding the private key's d", {"token_endpoint_auth_method": "private_key_jwt",
                                                    "grant_types": ["client_credentials"], "response_types": [],
                                                    "jwks": {"keys": [private]}}),
            ("jwks_uri instead of jwks", {"token_endpoint_auth_method": "private_key_jwt",
                                          "grant_types": ["client_credentials"], "response_types": [],
                                          "jwks_uri": "https://client.example/jwks"}),
            ("private_key_jwt without keys", {"token_endpoint_auth_method": "private_key_jwt",
                                              "grant_types": ["client_credentials"], "response_types": []}),
        ]:
            refused = http.post(base + "/oauth2/register", json=body)
            check(refused.status_code == 400 and refused.json().get("error") == "invalid_client_metadata",
                  f"4: {label}: 400 invalid_client_metadata", f"{refused.status_code} {refused.text[:300]}")


work = tempfile.mkdtemp(prefix="remote-auth-mcp-pkjwt-")
sandbox = None
try:
    err = open(os.path.join(work, "sandbox.err"), "wb")
    sandbox = subprocess.Popen([BINARY, "sandbox", "--port", "0"], stdin=subprocess.DEVNULL,
                               stdout=subprocess.PIPE, stderr=err)
    first = []
    reader = threading.Thread(target=lambda: first.append(sandbox.stdout.readline()), daemon=True)
    reader.start()
    reader.join(timeout=30)
    match = re.fullmatch(rb"RemoteAuth sandbox listening on (http://127\.0\.0\.1:\d+)\n", first[0] if first else b"")
    if check(match is not None, "the sandbox says 'RemoteAuth sandbox listening on http://127.0.0.1:PORT'"):
        threading.Thread(target=lambda: sandbox.stdout.read(), daemon=True).start()
        try:
            run(match.group(1).decode())
        except Exception:  # a bug in this script: still end with the count
            check(False, "the checks ran to the end", traceback.format_exc())
        check(sandbox.poll() is None, "the sandbox still runs at the end")
finally:
    if sandbox is not None and sandbox.poll() is None:
        sandbox.terminate()
        try:
            sandbox.wait(timeout=10)
        except subprocess.TimeoutExpired:
            sandbox.kill()
    shutil.rmtree(work, ignore_errors=True)

CHECKS.finish()
