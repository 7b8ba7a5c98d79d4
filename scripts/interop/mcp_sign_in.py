#!/usr/bin/env python3
"""Interop (issue 26, signing in from nothing but a resource URL): RemoteAuth against the Model
Context Protocol's Python SDK (`mcp` on PyPI, pinned in scripts/requirements.txt), both ways.
MCP's authorization is RFC 9728 discovery from a resource's 401, RFC 8414 metadata, RFC 7591
dynamic registration, code + PKCE S256 and RFC 8707 resource indicators: what issue 26 builds,
and the SDK is the client and server many resource servers will actually run. Nobody here wrote it.

Part A, the SDK's OAuth client against RemoteAuth's sandbox (`remote-auth sandbox --port 0
--auto-approve --access-token-ttl 5`, started here; its request log on stderr is read back).
`mcp.client.auth.OAuthClientProvider` is an httpx2.Auth; the script gives it an in-memory
TokenStorage, a redirect handler that plays the browser (GET the authorization URL; with
--auto-approve the sandbox answers 302 to the redirect URI, which is captured, not followed)
and a callback handler returning the code, state and iss from that redirect. Every request the
SDK sends goes through an httpx2 event hook, so the registration, the authorization request and
the token requests are checked as sent and as answered:

  - a public client (token_endpoint_auth_method none) starting from
    BASE/1.1/account/verify_credentials.json: the 401's Bearer challenge names
    resource_metadata, the SDK reads BASE/.well-known/oauth-protected-resource/1.1 (resource
    BASE/1.1) and the sandbox's RFC 8414 metadata, registers at BASE/oauth2/register (the
    client_id it then uses is the one the sandbox issued), asks for a code with
    resource=BASE/1.1 and S256, redeems it with the same resource, and gets alice's JSON; the
    token's audience (RFC 7662 introspection) is exactly [BASE/1.1] and /files refuses it;
  - a second request, and a new provider on the same storage (a restart), reuse the token: one
    request each, nothing registered or redeemed (the sandbox's log agrees);
  - after the 5 s access token expired (the sandbox refuses it), one refresh_token grant with
    resource=BASE/1.1, then the call; the rotated-out refresh token is refused;
  - the SDK's default client metadata (no token_endpoint_auth_method: RFC 7591 §2's default,
    client_secret_basic) against BASE/files: the sandbox issues a secret, the token request
    authenticates with Basic (RFC 6749 §2.3.1) and resource=BASE/files, the token's audience is
    [BASE/files] and the status API refuses it.

Part B, RemoteAuth's tool against an authorization server and a resource server built from the
SDK's server side: `mcp.server.auth.routes.create_auth_routes` over an in-memory
OAuthAuthorizationServerProvider (open registration, authorize() approves at once and redirects
with a code, tokens carry the authorization request's resource as their audience, refresh
tokens rotate) on one loopback port, and on another a Starlette route GET /api/hello behind the
SDK's BearerAuthBackend (resource_server_url set: only tokens for this resource) and
RequireAuthMiddleware (401 `Bearer error="invalid_token", ..., resource_metadata="..."`), with
`create_protected_resource_routes` serving RFC 9728 metadata naming the authorization server.
Both run under uvicorn in threads; an ASGI wrapper logs every request and answer. The resource
server checks tokens with the SDK's ProviderTokenVerifier (the provider's store, in process)
instead of introspection over HTTP: the split is still two origins, two metadata documents.
The servers are first proven sane with the SDK's own client. Then, REMOTE_AUTH_HOME in a
temporary directory:

  1. `authorize oauth2 --resource RS_URL --profile mcp --no-browser`: the script reads the
     authorization URL alone on a stdout line and plays the browser (GET it, then GET the 302's
     Location, the command's loopback listener). Checked at the servers: the RFC 7591
     registration (exactly one loopback redirect URI with a port, token_endpoint_auth_method
     none, authorization_code among grant_types), resource=RS_URL exactly and S256 on the
     authorization request, the same resource and the verifier of the challenge on the token
     request; 'Signed in; saved as profile 'mcp'.' and exit 0;
  2. `request --profile mcp RS_URL/api/hello`: the JSON, the resource saw the issued token;
     then with that access token expired at the server (the resource answers 401
     invalid_token), one refresh_token grant and a retry with the new token;
  3. `request RS_URL/api/hello --sign-in --profile mcp2 --no-browser`: the 401, the sign-in as
     in 1, the retry, the body on stdout;
  4. a resource whose metadata names another resource (RFC 9728 §3.3): `authorize oauth2
     --resource` exits 111 naming the mismatch, asks the authorization server nothing, stores nothing.

Part C, the SDK's client with a client ID metadata document (CIMD,
draft-ietf-oauth-client-id-metadata-document) against `remote-auth sandbox
--allow-loopback-client-metadata` (also --auto-approve, TTL s tokens). The document is JSON served
by http.server on 127.0.0.1 (client_id its own URL, redirect_uris the SDK client's callback,
token_endpoint_auth_method none, code + refresh). OAuthClientProvider(client_metadata_url=...)
takes only https URLs, and the sandbox fetches https documents trusting the system's CAs alone, so
the SDK's one validator (is_valid_client_metadata_url, as oauth2.py imported it) is patched to also
accept this server's http://127.0.0.1:PORT/ URLs (checked: unpatched, the SDK raises ValueError);
everything else of the SDK's CIMD path runs as shipped:

  - the metadata says client_id_metadata_document_supported: true; the SDK registers nothing (its
    requests and the sandbox's log: no POST /oauth2/register), stores the document URL as its public
    client, asks for a code with client_id = the document URL and is redirected with code, state and
    iss; the document server saw the sandbox's one GET, Accept with application/json; the token
    request (client_id the URL, no secret), introspection (the token is the document client's, for
    alice, audience [BASE/1.1]) and a status API write with the token; after expiry a refresh as the
    document client, the document not fetched again;
  - a document whose redirect_uris lacks the SDK client's callback: the authorization endpoint
    answers 400 with an 'Invalid redirect URI' page (invalid_request) and no Location; the SDK's
    flow stops with OAuthFlowError (state mismatch: nothing came back), no token requested.

Part D, step-up (RFC 9470) against `remote-auth sandbox --step-up --step-up-max-age 300`: the
OpenID metadata lists urn:remote-auth:sandbox:acr:mfa in acr_values_supported. A status API write
through the SDK's client signs in (without acr_values: the SDK has no parameter for extra
authorization request parameters) and gets 401 insufficient_user_authentication; with that token
the challenge is exactly `Bearer realm="RemoteAuth Sandbox", error="insufficient_user_authentication",
acr_values="urn:remote-auth:sandbox:acr:mfa", max_age=300, resource_metadata="..."` and reads still
work. The SDK's step-up handling is for 403 insufficient_scope only: it takes this 401 as any other,
signs in again the same way (no registration, no acr_values) and returns the same 401. With the
application's redirect handler appending acr_values to the SDK's authorization URL, the new token writes.

Usage: mcp_sign_in.py REMOTE_AUTH_BINARY
Prints one line per failed check and ends with 'mcp-sign-in: N passed, M failed'; exits 1 on
any failure (a missing peer, or a command that does not exist yet, fails: nothing is skipped).
"""
import asyncio
import base64
import hashlib
import html
import json
import logging
import os
import re
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import traceback
import urllib.parse

import httpx2
import uvicorn
from mcp.client.auth import OAuthClientProvider
from mcp.client.auth.exceptions import OAuthFlowError
from mcp.server.auth.middleware.bearer_auth import BearerAuthBackend, RequireAuthMiddleware
from mcp.server.auth.provider import (
    AccessToken, AuthorizationCode, AuthorizationParams, ProviderTokenVerifier, RefreshToken, TokenError,
    construct_redirect_uri,
)
from mcp.server.auth.routes import build_resource_metadata_url, create_auth_routes, create_protected_resource_routes
from mcp.server.auth.settings import AuthSettings, ClientRegistrationOptions, RevocationOptions
from mcp.shared.auth import AuthorizationCodeResult, OAuthClientMetadata, OAuthToken
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.authentication import AuthenticationMiddleware
from starlette.responses import JSONResponse
from starlette.routing import Route

import harness
from harness import Checks

if len(sys.argv) != 2:
    sys.exit("usage: mcp_sign_in.py REMOTE_AUTH_BINARY")
BINARY = sys.argv[1]
NAME = "mcp-sign-in"
TIMEOUT = 60  # seconds for one remote-auth command
TTL = 5  # the sandbox's --access-token-ttl (s): Part A uses its token at once, then after TTL + 1 s
ALICE = {"id": 1001, "id_str": "1001", "name": "alice", "screen_name": "alice"}
SIGNED_IN = "Signed in; saved as profile '{}'."

CHECKS = Checks(NAME)
check = CHECKS.check


def query_of(url):
    return dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(url).query))


def s256(verifier):
    return base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).decode().rstrip("=")


def short(value):
    """A token or secret shortened for a failure message."""
    return value[:8] + "…" if isinstance(value, str) and len(value) > 8 else value


# ---------------------------------------------------------------------------------------------
# The SDK's client, with a log of what it sends and what it is answered.
# ---------------------------------------------------------------------------------------------

class MemoryStorage:
    """The SDK's TokenStorage, in memory; counts the writes."""

    def __init__(self):
        self.tokens, self.client_info = None, None
        self.token_writes, self.client_writes = 0, 0

    async def get_tokens(self):
        return self.tokens

    async def set_tokens(self, tokens):
        self.tokens, self.token_writes = tokens, self.token_writes + 1

    async def get_client_info(self):
        return self.client_info

    async def set_client_info(self, client_info):
        self.client_info, self.client_writes = client_info, self.client_writes + 1


class Browser:
    """The user's browser for the SDK: opens the authorization URL, keeps the redirect."""

    def __init__(self):
        self.urls, self.answers, self.pages = [], [], []

    async def redirect_handler(self, url):
        self.urls.append(url)
        async with httpx2.AsyncClient(trust_env=False, follow_redirects=False) as client:
            answer = await client.get(url)
        self.answers.append((answer.status_code, answer.headers.get("Location")))
        self.pages.append(answer.text)

    async def callback_handler(self):
        status, location = self.answers[-1] if self.answers else (None, None)
        back = query_of(location or "")
        return AuthorizationCodeResult(code=back.get("code", ""), state=back.get("state"), iss=back.get("iss"))


class Exchange:
    """One request the SDK's httpx2 client sent, and its answer."""

    def __init__(self, request):
        self.method, self.url = request.method, str(request.url)
        self.headers = dict(request.headers)
        self.body = request.content.decode("utf-8", "replace")
        self.status, self.response_headers, self.response_body = None, None, None

    def form(self):
        return dict(urllib.parse.parse_qsl(self.body))

    def json(self):
        return json.loads(self.body or "null")

    def answer(self):
        return json.loads(self.response_body or "null")

    def __repr__(self):
        return f"{self.method} {self.url} -> {self.status}"


def sdk_client(provider, log):
    """An httpx2.AsyncClient authenticating with `provider`, logging every exchange into `log`."""

    async def on_request(request):
        log.append(Exchange(request))

    async def on_response(response):
        exchange = next((e for e in reversed(log) if e.status is None and e.url == str(response.request.url)), None)
        if exchange is not None:
            await response.aread()
            exchange.status = response.status_code
            exchange.response_headers = response.headers
            exchange.response_body = response.text

    return httpx2.AsyncClient(auth=provider, trust_env=False, timeout=30,
                              event_hooks={"request": [on_request], "response": [on_response]})


def provider_for(server_url, storage, browser, redirect_uri, auth_method="none", client_name="mcp-interop"):
    metadata = {"redirect_uris": [redirect_uri], "client_name": client_name}
    if auth_method is not None:
        metadata["token_endpoint_auth_method"] = auth_method
    return OAuthClientProvider(server_url=server_url, client_metadata=OAuthClientMetadata(**metadata),
                               storage=storage, redirect_handler=browser.redirect_handler,
                               callback_handler=browser.callback_handler)


def sdk_get(provider, url):
    """GET `url` through the SDK's auth flow; returns (response or the exception, the exchanges)."""
    log = []

    async def go():
        async with sdk_client(provider, log) as client:
            return await client.get(url)

    try:
        return asyncio.run(go()), log
    except Exception as error:  # noqa: BLE001 - the SDK's failure is a finding, reported as such
        return error, log


def outcome(response):
    if isinstance(response, Exception):
        return f"the SDK raised {type(response).__name__}: {response}"
    return f"{response.status_code} {response.text[:300]!r}"


def body_of(response):
    try:
        return response.json()
    except Exception:  # noqa: BLE001
        return None


def plain():
    return httpx2.Client(trust_env=False, timeout=30, follow_redirects=False)


# ---------------------------------------------------------------------------------------------
# Part A: the SDK's client against the sandbox.
# ---------------------------------------------------------------------------------------------

class Sandbox:
    """`remote-auth sandbox --port 0 --auto-approve --access-token-ttl TTL [EXTRA...]`, its log in a file."""

    def __init__(self, work, extra=(), name="sandbox"):
        self.log_path = os.path.join(work, name + ".err")
        self.err = open(self.log_path, "wb")
        self.process = subprocess.Popen(
            [BINARY, "sandbox", "--port", "0", "--auto-approve", "--access-token-ttl", str(TTL), *extra],
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=self.err)
        self.url = None
        first = []
        reader = threading.Thread(target=lambda: first.append(self.process.stdout.readline()), daemon=True)
        reader.start()
        reader.join(timeout=15)
        line = first[0] if first else b""
        match = re.fullmatch(rb"RemoteAuth sandbox listening on (http://127\.0\.0\.1:\d+)\n", line)
        if match:
            self.url = match.group(1).decode()
            threading.Thread(target=lambda: self.process.stdout.read(), daemon=True).start()

    def lines(self):
        """The request log: 'METHOD PATH STATUS' of each line (what follows the status dropped)."""
        with open(self.log_path, "rb") as f:
            text = f.read().decode("utf-8", "replace")
        return [" ".join(line.split(" ")[:3]) for line in text.splitlines() if re.match(r"^[A-Z]+ /", line)]

    def lines_since(self, mark, count):
        """The log lines after `mark`, once there are `count` of them (or after 5 s)."""
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline and len(self.lines()) - mark < count:
            time.sleep(0.05)
        time.sleep(0.1)  # a line more than expected would show here
        return self.lines()[mark:]

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
        self.err.close()


def introspect(base, token):
    """RFC 7662 at the sandbox, as its confidential demo client."""
    with plain() as http:
        return http.post(base + "/oauth2/introspect", data={"token": token},
                         auth=("demo-service", "demo-service-secret")).json()


def part_a(work):
    sandbox = Sandbox(work)
    try:
        if not check(sandbox.url is not None,
                     "A: the sandbox says 'RemoteAuth sandbox listening on http://127.0.0.1:PORT'",
                     open(sandbox.log_path, "rb").read().decode("utf-8", "replace")[-400:]):
            return
        public_client(sandbox)
        confidential_client(sandbox)
        check(sandbox.process.poll() is None, "A: the sandbox still runs at the end")
    finally:
        sandbox.stop()


def public_client(sandbox):
    base = sandbox.url
    label = "A public client"
    resource, prm_url = base + "/1.1", base + "/.well-known/oauth-protected-resource/1.1"
    me_url = base + "/1.1/account/verify_credentials.json"
    redirect = f"http://127.0.0.1:{harness.free_port()}/callback"
    storage, browser = MemoryStorage(), Browser()
    provider = provider_for(resource, storage, browser, redirect)

    mark = len(sandbox.lines())
    response, log = sdk_get(provider, me_url)
    if not check(not isinstance(response, Exception) and response.status_code == 200 and body_of(response) == ALICE,
                 f"{label}: GET {me_url} through the SDK's OAuthClientProvider ends 200 with alice's JSON",
                 f"{outcome(response)}; exchanges: {log}"):
        return
    expected = [("GET", me_url, 401), ("GET", prm_url, 200),
                ("GET", base + "/.well-known/oauth-authorization-server", 200),
                ("POST", base + "/oauth2/register", 201), ("POST", base + "/oauth2/token", 200), ("GET", me_url, 200)]
    check([(e.method, e.url, e.status) for e in log] == expected,
          f"{label}: the SDK's requests: the call, RFC 9728 and RFC 8414 metadata, registration, token, the call again",
          log)
    seen = sandbox.lines_since(mark, 7)
    check(seen == ["GET /1.1/account/verify_credentials.json 401", "GET /.well-known/oauth-protected-resource/1.1 200",
                   "GET /.well-known/oauth-authorization-server 200", "POST /oauth2/register 201",
                   "GET /oauth2/authorize 302", "POST /oauth2/token 200",
                   "GET /1.1/account/verify_credentials.json 200"],
          f"{label}: the sandbox's log shows the same requests, and the browser's authorization request", seen)
    first, register, token, last = log[0], log[3], log[4], log[5]
    challenges = first.response_headers.get_list("WWW-Authenticate") if first.response_headers else []
    check(f'Bearer realm="RemoteAuth Sandbox", resource_metadata="{prm_url}"' in challenges,
          f"{label}: the 401 carries the Bearer challenge with resource_metadata (RFC 9728 §5.1)", challenges)

    sent = register.json()
    check(sent == {"redirect_uris": [redirect], "token_endpoint_auth_method": "none",
                   "grant_types": ["authorization_code", "refresh_token"], "response_types": ["code"],
                   "scope": "statuses:read statuses:write", "client_name": "mcp-interop", "application_type": "native"},
          f"{label}: the SDK's RFC 7591 registration: the redirect URI, none, code + refresh, the resource's scopes",
          sent)
    issued = register.answer() or {}
    client_id = issued.get("client_id")
    check(isinstance(client_id, str) and len(client_id) >= 22 and "client_secret" not in issued
          and issued.get("token_endpoint_auth_method") == "none" and issued.get("redirect_uris") == [redirect]
          and issued.get("grant_types") == ["authorization_code", "refresh_token"],
          f"{label}: the sandbox registers a public client: a client_id, no secret, the metadata echoed "
          "(RFC 7591 §3.2.1)",
          {k: v for k, v in issued.items() if k != "client_secret"})
    stored = storage.client_info
    check(stored is not None and stored.client_id == client_id and stored.issuer == base and storage.client_writes == 1,
          f"{label}: the SDK keeps the sandbox's client_id, bound to the issuer {base}",
          stored and (stored.client_id, stored.issuer, storage.client_writes))

    url = browser.urls[0] if len(browser.urls) == 1 else ""
    q = query_of(url)
    check(url.startswith(base + "/oauth2/authorize?")
          and set(q) == {"response_type", "client_id", "redirect_uri", "state", "code_challenge",
                         "code_challenge_method", "resource", "scope"}
          and q.get("response_type") == "code" and q.get("client_id") == client_id and q.get("redirect_uri") == redirect
          and q.get("code_challenge_method") == "S256"
          and re.fullmatch(r"[A-Za-z0-9_-]{43}", q.get("code_challenge", "")) and q.get("resource") == resource
          and q.get("scope") == "statuses:read statuses:write",
          f"{label}: one authorization request: code, the registered client_id, S256, resource={resource} (RFC 8707)",
          browser.urls)
    status, location = browser.answers[0] if browser.answers else (None, "")
    back = query_of(location or "")
    check(status == 302 and (location or "").startswith(redirect + "?") and back.get("state") == q.get("state")
          and back.get("iss") == base and back.get("code"),
          f"{label}: --auto-approve answers 302 to the redirect URI with code, state and iss (RFC 9207)",
          (status, location))

    form = token.form()
    check(form.get("grant_type") == "authorization_code" and form.get("code") == back.get("code")
          and form.get("client_id") == client_id and form.get("redirect_uri") == redirect
          and s256(form.get("code_verifier", "")) == q.get("code_challenge") and form.get("resource") == resource
          and "client_secret" not in form and "authorization" not in token.headers,
          f"{label}: the token request: the code, client_id, the redirect URI, the verifier, resource={resource}, "
          "no secret",
          {k: v for k, v in form.items() if k not in ("code", "code_verifier")})
    tokens = token.answer() or {}
    access, refresh = tokens.get("access_token"), tokens.get("refresh_token")
    check(tokens.get("token_type") == "Bearer" and tokens.get("expires_in") == TTL
          and tokens.get("scope") == "statuses:read statuses:write" and refresh,
          f"{label}: Bearer tokens for statuses:read statuses:write, expires_in {TTL}, a refresh token",
          {k: (short(v) if k.endswith("token") else v) for k, v in tokens.items()})
    check(storage.tokens is not None and storage.tokens.access_token == access and storage.token_writes == 1
          and last.headers.get("authorization") == "Bearer " + (access or ""),
          f"{label}: the SDK stored the issued token and retried with it as Bearer")
    seen = introspect(base, access)
    check(seen.get("active") is True and seen.get("aud") == [resource] and seen.get("client_id") == client_id
          and seen.get("username") == "alice" and seen.get("scope") == "statuses:read statuses:write",
          f"{label}: RFC 7662: the token's audience is exactly [{resource}], for the registered client and alice",
          {k: seen.get(k) for k in ("active", "aud", "client_id", "username", "scope")})
    with plain() as http:
        files = http.get(base + "/files", headers={"Authorization": "Bearer " + access})
    check(files.status_code == 401 and files.headers.get("WWW-Authenticate") ==
          'Bearer realm="RemoteAuth Sandbox", error="invalid_token", '
          f'resource_metadata="{base}/.well-known/oauth-protected-resource/files"',
          f"{label}: /files (another resource) refuses the token with invalid_token (RFC 8707)",
          f"{files.status_code} {files.headers.get('WWW-Authenticate')}")

    # The token is reused: by the same provider, and by a new one on the same storage.
    for which, again in (("the same provider", provider),
                         ("a new provider on the same storage (a restart)",
                          provider_for(resource, storage, browser, redirect))):
        mark = len(sandbox.lines())
        response, log = sdk_get(again, me_url)
        check(not isinstance(response, Exception) and response.status_code == 200 and body_of(response) == ALICE
              and [(e.method, e.url, e.status) for e in log] == [("GET", me_url, 200)]
              and log[0].headers.get("authorization") == "Bearer " + access,
              f"{label}: a second call through {which}: one request with the stored token, 200",
              f"{outcome(response)}; exchanges: {log}")
        seen = sandbox.lines_since(mark, 1)
        check(seen == ["GET /1.1/account/verify_credentials.json 200"] and storage.client_writes == 1
              and storage.token_writes == 1 and len(browser.urls) == 1,
              f"{label}: {which}: no registration, no authorization, no token request", seen)

    # The access token expires: the sandbox refuses it, the SDK refreshes with the resource.
    time.sleep(TTL + 1)
    with plain() as http:
        expired = http.get(me_url, headers={"Authorization": "Bearer " + access})
    challenges = ",".join(expired.headers.get_list("WWW-Authenticate"))
    check(expired.status_code == 401 and 'error="invalid_token"' in challenges,
          f"{label}: after {TTL} s the sandbox refuses the access token (invalid_token)",
          f"{expired.status_code} {expired.headers.get_list('WWW-Authenticate')}")
    mark = len(sandbox.lines())
    response, log = sdk_get(provider, me_url)
    if not check(not isinstance(response, Exception) and response.status_code == 200 and body_of(response) == ALICE
                 and [(e.method, e.url, e.status) for e in log] == [("POST", base + "/oauth2/token", 200),
                                                                    ("GET", me_url, 200)],
                 f"{label}: after expiry the SDK refreshes first, then calls: 200",
                 f"{outcome(response)}; exchanges: {log}"):
        return
    form = log[0].form()
    check(form == {"grant_type": "refresh_token", "refresh_token": refresh, "client_id": client_id,
                   "resource": resource},
          f"{label}: the refresh_token grant names the refresh token, client_id and resource={resource}",
          {k: (short(v) if k == "refresh_token" else v) for k, v in form.items()})
    renewed = log[0].answer() or {}
    check(renewed.get("access_token") not in (None, access) and renewed.get("refresh_token") not in (None, refresh)
          and log[1].headers.get("authorization") == "Bearer " + renewed.get("access_token", "")
          and storage.tokens.access_token == renewed.get("access_token"),
          f"{label}: the refresh rotates both tokens; the SDK stores them and calls with the new one")
    check(sandbox.lines_since(mark, 2) == ["POST /oauth2/token 200", "GET /1.1/account/verify_credentials.json 200"],
          f"{label}: the sandbox saw one token request and the call", sandbox.lines()[mark:])
    seen = introspect(base, renewed.get("access_token", ""))
    check(seen.get("active") is True and seen.get("aud") == [resource],
          f"{label}: the refreshed token's audience is still [{resource}]", seen.get("aud"))
    with plain() as http:
        reused = http.post(base + "/oauth2/token", data={"grant_type": "refresh_token", "refresh_token": refresh,
                                                          "client_id": client_id})
    check(reused.status_code == 400 and reused.json().get("error") == "invalid_grant",
          f"{label}: the rotated-out refresh token is refused (invalid_grant)", f"{reused.status_code} {reused.text}")


def confidential_client(sandbox):
    """The SDK's default client metadata (no token_endpoint_auth_method) for the /files resource."""
    base = sandbox.url
    label = "A default client (/files)"
    resource, files_url = base + "/files", base + "/files"
    redirect = f"http://127.0.0.1:{harness.free_port()}/callback"
    storage, browser = MemoryStorage(), Browser()
    provider = provider_for(resource, storage, browser, redirect, auth_method=None)
    response, log = sdk_get(provider, files_url)
    if not check(not isinstance(response, Exception) and response.status_code == 200
                 and body_of(response) == {"files": ["alice.txt"], "user": "alice"},
                 f"{label}: GET {files_url} through the SDK ends 200 with alice's files",
                 f"{outcome(response)}; exchanges: {log}"):
        return
    expected = [("GET", files_url, 401), ("GET", base + "/.well-known/oauth-protected-resource/files", 200),
                ("GET", base + "/.well-known/oauth-authorization-server", 200),
                ("POST", base + "/oauth2/register", 201),
                ("POST", base + "/oauth2/token", 200), ("GET", files_url, 200)]
    check([(e.method, e.url, e.status) for e in log] == expected, f"{label}: the SDK's requests", log)
    register, token = log[3], log[4]
    sent, issued = register.json(), register.answer() or {}
    client_id, secret = issued.get("client_id", ""), issued.get("client_secret")
    check("token_endpoint_auth_method" not in sent and sent.get("scope") == "statuses:read"
          and issued.get("token_endpoint_auth_method") == "client_secret_basic" and isinstance(secret, str)
          and len(secret) >= 22 and issued.get("client_secret_expires_at") == 0,
          f"{label}: registered without a method, the sandbox applies RFC 7591 §2's default client_secret_basic, "
          "issues a secret that does not expire",
          {"sent": sent, "issued": {k: v for k, v in issued.items() if k != "client_secret"}})
    q = query_of(browser.urls[0] if browser.urls else "")
    check(q.get("resource") == resource and q.get("scope") == "statuses:read" and q.get("client_id") == client_id,
          f"{label}: the authorization request: resource={resource}, scope statuses:read", q)
    form = token.form()
    basic = "Basic " + base64.b64encode(
        f"{urllib.parse.quote(client_id, safe='')}:{urllib.parse.quote(secret or '', safe='')}".encode()).decode()
    check(token.headers.get("authorization") == basic and "client_secret" not in form
          and form.get("resource") == resource,
          f"{label}: the token request authenticates with Basic (RFC 6749 §2.3.1), resource={resource}",
          {k: v for k, v in form.items() if k not in ("code", "code_verifier")})
    access = (token.answer() or {}).get("access_token", "")
    seen = introspect(base, access)
    check(seen.get("active") is True and seen.get("aud") == [resource] and seen.get("scope") == "statuses:read",
          f"{label}: the token's audience is exactly [{resource}]",
          {k: seen.get(k) for k in ("active", "aud", "scope")})
    with plain() as http:
        status_api = http.get(base + "/1.1/account/verify_credentials.json",
                              headers={"Authorization": "Bearer " + access})
    check(status_api.status_code == 401
          and 'error="invalid_token"' in ",".join(status_api.headers.get_list("WWW-Authenticate")),
          f"{label}: the status API refuses the /files token (RFC 8707)", status_api.status_code)


# ---------------------------------------------------------------------------------------------
# Part B: an authorization server and a resource server from the SDK's server side.
# ---------------------------------------------------------------------------------------------

USER = "alice"
SCOPE = "read"


class Provider:
    """The SDK's OAuthAuthorizationServerProvider protocol over dicts: registration open,
    authorize() approves at once, tokens take the authorization request's resource."""

    def __init__(self):
        self.lock = threading.Lock()
        self.clients, self.codes, self.access, self.refresh = {}, {}, {}, {}
        self.authorizations = []  # the AuthorizationParams authorize() got, with the client_id
        self.issued = []  # (grant, OAuthToken, resource)

    async def get_client(self, client_id):
        return self.clients.get(client_id)

    async def register_client(self, client_info):
        self.clients[client_info.client_id] = client_info

    async def authorize(self, client, params: AuthorizationParams):
        code = "mcp_code_" + secrets.token_urlsafe(24)
        with self.lock:
            self.authorizations.append((client.client_id, params))
            self.codes[code] = AuthorizationCode(
                code=code, scopes=params.scopes or [SCOPE], expires_at=time.time() + 300, client_id=client.client_id,
                code_challenge=params.code_challenge, redirect_uri=params.redirect_uri,
                redirect_uri_provided_explicitly=params.redirect_uri_provided_explicitly, resource=params.resource,
                subject=USER)
        return construct_redirect_uri(str(params.redirect_uri), code=code, state=params.state)

    async def load_authorization_code(self, client, authorization_code):
        return self.codes.get(authorization_code)

    def _issue(self, grant, client_id, scopes, resource, subject):
        access, refresh = "mcp_at_" + secrets.token_urlsafe(24), "mcp_rt_" + secrets.token_urlsafe(24)
        with self.lock:
            self.access[access] = AccessToken(token=access, client_id=client_id, scopes=scopes,
                                              expires_at=int(time.time()) + 3600, resource=resource, subject=subject)
            self.refresh[refresh] = RefreshToken(token=refresh, client_id=client_id, scopes=scopes, resource=resource,
                                                 subject=subject)
            token = OAuthToken(access_token=access, token_type="Bearer", expires_in=3600, scope=" ".join(scopes),
                               refresh_token=refresh)
            self.issued.append((grant, token, resource))
        return token

    async def exchange_authorization_code(self, client, authorization_code):
        if self.codes.pop(authorization_code.code, None) is None:
            raise TokenError("invalid_grant", "authorization code already used")
        return self._issue("authorization_code", client.client_id, authorization_code.scopes,
                           authorization_code.resource, authorization_code.subject)

    async def load_refresh_token(self, client, refresh_token):
        return self.refresh.get(refresh_token)

    async def exchange_refresh_token(self, client, refresh_token, scopes):
        with self.lock:
            if self.refresh.pop(refresh_token.token, None) is None:
                raise TokenError("invalid_grant", "refresh token already used")
        return self._issue("refresh_token", client.client_id, scopes, refresh_token.resource, refresh_token.subject)

    async def load_access_token(self, token):
        return self.access.get(token)

    async def revoke_token(self, token):
        with self.lock:
            self.access.pop(token.token, None)
            self.refresh.pop(token.token, None)


class Logged:
    """ASGI wrapper: every HTTP request (method, path, query, headers, body) and its status."""

    def __init__(self, app, log, lock):
        self.app, self.log, self.lock = app, log, lock

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        entry = {"method": scope["method"], "path": scope["path"], "query": scope["query_string"].decode(),
                 "headers": {k.decode().lower(): v.decode() for k, v in scope["headers"]}, "body": b"",
                 "status": None, "response_headers": {}, "response_body": b""}
        with self.lock:
            self.log.append(entry)

        async def logged_receive():
            message = await receive()
            if message["type"] == "http.request":
                entry["body"] += message.get("body", b"")
            return message

        async def logged_send(message):
            if message["type"] == "http.response.start":
                entry["status"] = message["status"]
                entry["response_headers"] = {k.decode().lower(): v.decode() for k, v in message.get("headers", [])}
            elif message["type"] == "http.response.body":
                entry["response_body"] += message.get("body", b"")
            await send(message)

        await self.app(scope, logged_receive, logged_send)


class Served:
    """An ASGI app under uvicorn in a thread, on a loopback socket bound before the app exists."""

    def __init__(self):
        self.socket = socket.socket()
        self.socket.bind(("127.0.0.1", 0))
        self.socket.listen(64)
        self.url = f"http://127.0.0.1:{self.socket.getsockname()[1]}"
        self.log, self.lock = [], threading.Lock()
        self.server, self.thread = None, None

    def start(self, app):
        self.server = uvicorn.Server(uvicorn.Config(Logged(app, self.log, self.lock), log_level="warning",
                                                    lifespan="off", access_log=False))
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [self.socket]}, daemon=True)
        self.thread.start()
        deadline = time.monotonic() + 15
        while not self.server.started and time.monotonic() < deadline and self.thread.is_alive():
            time.sleep(0.05)
        return self.server.started

    def mark(self):
        with self.lock:
            return len(self.log)

    def since(self, mark, path=None, method=None):
        with self.lock:
            return [e for e in self.log[mark:] if (path is None or e["path"] == path)
                    and (method is None or e["method"] == method)]

    def stop(self):
        if self.server is not None:
            self.server.should_exit = True
            self.thread.join(timeout=10)
        self.socket.close()


def resource_server(url, claimed, as_url, verifier):
    """GET /api/hello behind the SDK's bearer middleware for the resource `url`; its RFC 9728
    metadata (at the well-known URL of `claimed`'s path) names `claimed` as the resource."""

    async def hello(scope, receive, send):
        token = scope["user"].access_token
        await JSONResponse({"hello": token.subject, "client_id": token.client_id, "scopes": token.scopes,
                            "resource": token.resource})(scope, receive, send)

    metadata_url = build_resource_metadata_url(url)
    routes = create_protected_resource_routes(resource_url=claimed, authorization_servers=[as_url],
                                              scopes_supported=[SCOPE], resource_name="mcp interop resource")
    protected = RequireAuthMiddleware(hello, [SCOPE], resource_metadata_url=metadata_url)
    routes.append(Route("/api/hello", endpoint=protected, methods=["GET"]))
    return Starlette(routes=routes, middleware=[
        Middleware(AuthenticationMiddleware, backend=BearerAuthBackend(verifier, resource_server_url=url))])


class PartB:
    def __init__(self, work):
        self.authz, self.rs, self.liar = Served(), Served(), Served()
        self.provider = Provider()
        settings = AuthSettings(issuer_url=self.authz.url, resource_server_url=None)  # as the SDK's servers build it
        self.issuer = str(settings.issuer_url)
        routes = create_auth_routes(self.provider, settings.issuer_url,
                                    client_registration_options=ClientRegistrationOptions(
                                        enabled=True, valid_scopes=[SCOPE], default_scopes=[SCOPE]),
                                    revocation_options=RevocationOptions(enabled=True))
        verifier = ProviderTokenVerifier(self.provider)
        self.started = (self.authz.start(Starlette(routes=routes))
                        and self.rs.start(resource_server(self.rs.url, self.rs.url, self.authz.url, verifier))
                        # A resource whose metadata claims to be the first one (RFC 9728 §3.3).
                        and self.liar.start(resource_server(self.liar.url, self.rs.url, self.authz.url, verifier)))
        self.home = os.path.join(work, "home")
        os.makedirs(self.home, mode=0o700)
        self.env = {k: v for k, v in os.environ.items() if not k.startswith("REMOTE_AUTH_")}
        self.env["REMOTE_AUTH_HOME"] = self.home
        self.hello_url = self.rs.url + "/api/hello"

    def stop(self):
        for served in (self.authz, self.rs, self.liar):
            served.stop()

    # The remote-auth command lines, in one place.
    def command(self, args):
        return harness.Command(BINARY, args, self.env, timeout=TIMEOUT)

    def run(self, args):
        command = self.command(args)
        command.wait()
        return command

    def authorize(self, profile, resource):
        return self.command(["authorize", "oauth2", "--resource", resource, "--profile", profile, "--no-browser",
                             "--timeout", "30"])

    def profiles(self):
        command = self.run(["profiles", "list"])
        return [line.split()[0] for line in command.stdout if line.strip()], command

    def expected_hello(self, client_id):
        return {"hello": USER, "client_id": client_id, "scopes": [SCOPE], "resource": self.rs.url}

    def play_browser(self, label, url):
        """GET the authorization URL (the AS approves at once: a 302), then the Location (the
        command's loopback listener). Returns the Location."""
        with plain() as http:
            answer = http.get(url)
            location = answer.headers.get("Location", "")
            if not check(answer.status_code == 302 and location.startswith("http://127.0.0.1:"),
                         f"{label}: the authorization server answers the browser 302 to the loopback listener",
                         f"{answer.status_code} {location!r} {answer.text[:300]!r}"):
                return None
            try:
                landing = http.get(location)
                check(landing.status_code == 200, f"{label}: the command's listener answers the browser 200",
                      f"{landing.status_code} {landing.text[:200]!r}")
            except httpx2.HTTPError as error:
                check(False, f"{label}: GET the loopback callback", repr(error))
        return location

    # 0. The servers are sane: the SDK's own client signs in to them and calls /api/hello.
    def self_check(self):
        label = "B self-check"
        with plain() as http:
            bare = http.get(self.hello_url)
            prm = http.get(self.rs.url + "/.well-known/oauth-protected-resource")
            asm = http.get(self.authz.url + "/.well-known/oauth-authorization-server")
            liar = http.get(self.liar.url + "/.well-known/oauth-protected-resource")
        check(bare.status_code == 401 and bare.headers.get("WWW-Authenticate") ==
              'Bearer error="invalid_token", error_description="Authentication required", '
              f'resource_metadata="{self.rs.url}/.well-known/oauth-protected-resource"',
              f"{label}: /api/hello without a token: 401 and the SDK's challenge with resource_metadata",
              f"{bare.status_code} {bare.headers.get('WWW-Authenticate')}")
        check(prm.status_code == 200
              and prm.json() == {"resource": self.rs.url, "authorization_servers": [self.issuer],
                                 "scopes_supported": [SCOPE], "bearer_methods_supported": ["header"],
                                 "resource_name": "mcp interop resource"},
              f"{label}: RFC 9728 metadata names the resource {self.rs.url} and the issuer", prm.text)
        meta = asm.json() if asm.status_code == 200 else {}
        check(meta.get("issuer") == self.issuer and meta.get("authorization_endpoint") == self.issuer + "/authorize"
              and meta.get("token_endpoint") == self.issuer + "/token"
              and meta.get("registration_endpoint") == self.issuer + "/register"
              and meta.get("code_challenge_methods_supported") == ["S256"],
              f"{label}: RFC 8414 metadata: issuer {self.issuer}, /authorize, /token, /register, S256", asm.text)
        check(liar.status_code == 200 and liar.json().get("resource") == self.rs.url,
              f"{label}: the lying resource at {self.liar.url} claims to be {self.rs.url}", liar.text)
        storage, browser = MemoryStorage(), Browser()
        redirect = f"http://127.0.0.1:{harness.free_port()}/callback"
        response, log = sdk_get(provider_for(self.rs.url, storage, browser, redirect), self.hello_url)
        client_id = storage.client_info.client_id if storage.client_info else None
        check(not isinstance(response, Exception) and response.status_code == 200
              and body_of(response) == self.expected_hello(client_id),
              f"{label}: the SDK's own client signs in and calls /api/hello", f"{outcome(response)}; {log}")
        q = query_of(browser.urls[0] if browser.urls else "")
        check(q.get("resource") == self.rs.url, f"{label}: the SDK's client asked for resource={self.rs.url}", q)

    # 1. authorize oauth2 --resource.
    def sign_in(self, profile):
        label = f"B authorize oauth2 --resource ({profile})"
        a_mark, r_mark = self.authz.mark(), self.rs.mark()
        command = self.authorize(profile, self.rs.url)
        client_id = self.sign_in_flow(label, command, a_mark, r_mark)
        code = command.wait()
        stdout = command.stdout
        check(code == 0 and SIGNED_IN.format(profile) in stdout,
              f"{label}: exit 0 and {SIGNED_IN.format(profile)!r} on stdout", command.describe())
        names, listing = self.profiles()
        check(profile in names, f"{label}: `profiles list` shows '{profile}'", listing.describe())
        return client_id

    def sign_in_flow(self, label, command, a_mark, r_mark, expect_401=False):
        """Reads the authorization URL, plays the browser and checks what the servers saw. Returns
        the registered client_id, or None."""
        match = command.line_matching(r"^(http://127\.0\.0\.1:\d+/authorize\?.*)$")
        if not check(match is not None and match.group(1).startswith(self.issuer + "/authorize?"),
                     f"{label}: the authorization URL ({self.issuer}/authorize?…) alone on a stdout line",
                     command.describe() if match is None else match.group(1)):
            command.kill()
            return None
        url = match.group(1)
        rs_seen = [(e["method"], e["path"], e["status"]) for e in self.rs.since(r_mark)]
        # The tool first requests the URL itself, without a credential, to read a 401 that names
        # the metadata (RFC 9728 §5.1): /api/hello answers 401; the resource's root (no route
        # there) 404, and then the well-known URL is read (§3.1).
        wanted = [("GET", "/.well-known/oauth-protected-resource", 200)]
        wanted = [("GET", "/api/hello", 401) if expect_401 else ("GET", "/", 404)] + wanted
        check(rs_seen == wanted, f"{label}: the resource server saw {wanted} (RFC 9728 discovery)", rs_seen)
        as_seen = [(e["method"], e["path"], e["status"]) for e in self.authz.since(a_mark)]
        check(as_seen == [("GET", "/.well-known/oauth-authorization-server", 200), ("POST", "/register", 201)],
              f"{label}: the authorization server saw its RFC 8414 metadata read, then one registration", as_seen)
        registrations = self.authz.since(a_mark, "/register")
        sent = json.loads(registrations[0]["body"] or b"null") if registrations else {}
        issued = json.loads(registrations[0]["response_body"] or b"null") if registrations else {}
        redirects = sent.get("redirect_uris") if isinstance(sent, dict) else None
        check(isinstance(redirects, list) and len(redirects) == 1
              and re.fullmatch(r"http://127\.0\.0\.1:\d+/callback", redirects[0] or "")
              and sent.get("token_endpoint_auth_method") == "none"
              and "authorization_code" in (sent.get("grant_types") or []),
              f"{label}: RFC 7591 registration: one loopback redirect URI with its port, none, authorization_code",
              sent)
        client_id = (issued or {}).get("client_id")
        check(client_id in self.provider.clients and "client_secret" not in issued,
              f"{label}: the SDK's server registered a public client", {k: v for k, v in (issued or {}).items()
                                                                      if k != "client_secret"})
        q = query_of(url)
        redirect = (redirects or [None])[0]
        check(q.get("response_type") == "code" and q.get("client_id") == client_id and q.get("redirect_uri") == redirect
              and q.get("code_challenge_method") == "S256"
              and re.fullmatch(r"[A-Za-z0-9_-]{43}", q.get("code_challenge", ""))
              and q.get("resource") == self.rs.url and len(q.get("state", "")) >= 22,
              f"{label}: the authorization URL: code, the registered client and redirect URI, S256, "
              f"resource={self.rs.url} exactly, a state", url)
        location = self.play_browser(label, url)
        if location is None:
            command.kill()
            return None
        with self.provider.lock:
            authorized = [p for cid, p in self.provider.authorizations if cid == client_id]
        check(len(authorized) == 1 and authorized[0].resource == self.rs.url,
              f"{label}: the SDK's authorization handler passed resource={self.rs.url} to the provider",
              [p.resource for p in authorized])
        command.wait()
        grants = [e for e in self.authz.since(a_mark, "/token")
                  if dict(urllib.parse.parse_qsl(e["body"].decode())).get("grant_type") == "authorization_code"]
        form = dict(urllib.parse.parse_qsl(grants[0]["body"].decode())) if grants else {}
        check(len(grants) == 1 and grants[0]["status"] == 200 and form.get("resource") == self.rs.url
              and form.get("client_id") == client_id and form.get("redirect_uri") == redirect
              and s256(form.get("code_verifier", "")) == q.get("code_challenge") and "client_secret" not in form,
              f"{label}: one token request: resource={self.rs.url}, client_id, the redirect URI, the verifier",
              [(e["status"], {k: v for k, v in dict(urllib.parse.parse_qsl(e["body"].decode())).items()
                              if k not in ("code", "code_verifier")}) for e in grants])
        return client_id

    def issued_to(self, client_id, grant):
        with self.provider.lock:
            return [(t, r) for g, t, r in self.provider.issued
                    if g == grant and self.provider.access.get(t.access_token, None) is not None
                    and self.provider.access[t.access_token].client_id == client_id]

    # 2. request --profile, and a refresh on the resource's 401.
    def request(self, profile, client_id):
        label = f"B request --profile {profile}"
        issued = self.issued_to(client_id, "authorization_code")
        if not check(len(issued) == 1 and issued[0][1] == self.rs.url,
                     f"{label}: the authorization server issued one token for the resource {self.rs.url}",
                     [r for _, r in issued]):
            return
        token = issued[0][0]
        r_mark = self.rs.mark()
        command = self.run(["request", "--profile", profile, self.hello_url])
        check(command.process.returncode == 0 and self.json_out(command) == self.expected_hello(client_id),
              f"{label} {self.hello_url}: exit 0 and the resource's JSON", command.describe())
        seen = [(e["status"], e["headers"].get("authorization")) for e in self.rs.since(r_mark, "/api/hello")]
        check(seen == [(200, "Bearer " + token.access_token)],
              f"{label}: the resource saw one call with the token the authorization server issued",
              [(s, short(a)) for s, a in seen])

        # The access token dies at the server: the resource answers 401 invalid_token.
        with self.provider.lock:
            self.provider.access[token.access_token].expires_at = int(time.time()) - 10
        a_mark, r_mark = self.authz.mark(), self.rs.mark()
        command = self.run(["request", "--profile", profile, self.hello_url])
        refreshes = self.authz.since(a_mark, "/token")
        forms = [dict(urllib.parse.parse_qsl(e["body"].decode())) for e in refreshes]
        check(command.process.returncode == 0 and self.json_out(command) == self.expected_hello(client_id)
              and len(forms) == 1 and forms[0].get("grant_type") == "refresh_token"
              and forms[0].get("refresh_token") == token.refresh_token and refreshes[0]["status"] == 200,
              f"{label} after the server expired the token: one refresh_token grant, then the JSON",
              f"{command.describe()}; token requests: {[(e['status'], e['response_body'][:200]) for e in refreshes]}")
        renewed = json.loads(refreshes[0]["response_body"] or b"null") if refreshes else {}
        seen = [(e["status"], e["headers"].get("authorization")) for e in self.rs.since(r_mark, "/api/hello")]
        check(seen == [(401, "Bearer " + token.access_token),
                       (200, "Bearer " + (renewed or {}).get("access_token", ""))],
              f"{label}: the resource saw the dead token (401), then the refreshed one (200)",
              [(s, short(a)) for s, a in seen])
        check(not forms or forms[0].get("resource") in (None, self.rs.url),
              f"{label}: the refresh names no other resource than {self.rs.url}", forms and forms[0].get("resource"))

    @staticmethod
    def json_out(command, lines=None):
        try:
            return json.loads("\n".join(command.stdout if lines is None else lines))
        except ValueError:
            return None

    # 3. request --sign-in.
    def request_sign_in(self, profile):
        label = f"B request --sign-in ({profile})"
        a_mark, r_mark = self.authz.mark(), self.rs.mark()
        command = self.command(["request", self.hello_url, "--sign-in", "--profile", profile, "--no-browser",
                                "--timeout", "30"])
        client_id = self.sign_in_flow(label, command, a_mark, r_mark, expect_401=True)
        code = command.wait()
        body_lines = [line for line in command.stdout
                      if not line.startswith("http://127.0.0.1:") and line != SIGNED_IN.format(profile)]
        check(code == 0 and client_id is not None
              and self.json_out(command, body_lines) == self.expected_hello(client_id),
              f"{label}: exit 0 and the resource's JSON on stdout after the sign-in", command.describe())
        issued = self.issued_to(client_id, "authorization_code") if client_id else []
        seen = [(e["status"], e["headers"].get("authorization")) for e in self.rs.since(r_mark, "/api/hello")]
        check(len(issued) == 1 and seen == [(401, None), (200, "Bearer " + issued[0][0].access_token)],
              f"{label}: the resource saw the call without a token (401), then with the issued one (200)",
              [(s, short(a)) for s, a in seen])
        names, listing = self.profiles()
        check(profile in names, f"{label}: `profiles list` shows '{profile}'", listing.describe())

    # 4. A resource whose metadata names another resource.
    def mismatch(self, profile):
        label = f"B authorize oauth2 --resource {self.liar.url} (its metadata says {self.rs.url})"
        a_mark, l_mark = self.authz.mark(), self.liar.mark()
        command = self.authorize(profile, self.liar.url)
        command.wait()
        stderr = command.stderr.decode("utf-8", "replace")
        check(command.process.returncode == 111 and "resource" in stderr.lower() and self.rs.url in stderr
              and not any(line.startswith("http://") for line in command.stdout),
              f"{label}: exits 111, naming the resource mismatch (RFC 9728 §3.3), and prints no authorization URL",
              command.describe())
        read = [(e["method"], e["path"]) for e in self.liar.since(l_mark)]
        check(read == [("GET", "/"), ("GET", "/.well-known/oauth-protected-resource")] and self.authz.since(a_mark) == [],
              f"{label}: it requested the resource, read its metadata and asked the authorization server nothing",
              {"resource": [(e["method"], e["path"]) for e in self.liar.since(l_mark)],
               "authorization server": [(e["method"], e["path"]) for e in self.authz.since(a_mark)]})
        names, listing = self.profiles()
        check(listing.process.returncode == 0 and profile not in names,
              f"{label}: nothing stored: `profiles list` has no '{profile}'", listing.describe())


def part_b(work):
    servers = PartB(work)
    try:
        if not check(servers.started, "B: the SDK's authorization server and resource servers run under uvicorn"):
            return
        servers.self_check()
        if check(os.access(BINARY, os.X_OK), f"B: {BINARY} is an executable"):
            client_id = servers.sign_in("mcp")
            if client_id:
                servers.request("mcp", client_id)
            else:
                check(False, "B: no request --profile checks: the sign-in failed")
            servers.request_sign_in("mcp2")
            servers.mismatch("mcp-mismatch")
    finally:
        servers.stop()


# ---------------------------------------------------------------------------------------------
# Part C: the SDK's client signs in to the sandbox with a client ID metadata document.
# ---------------------------------------------------------------------------------------------

class DocumentServer:
    """Client ID metadata documents served on 127.0.0.1 (http.server in a thread); every request
    is logged with its headers."""

    def __init__(self):
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

        self.documents, self.requests, self.lock = {}, [], threading.Lock()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802 - http.server's name
                with outer.lock:
                    outer.requests.append((self.command, self.path, {k.lower(): v for k, v in self.headers.items()}))
                    document = outer.documents.get(self.path)
                body = json.dumps(document).encode() if document is not None else b"not found"
                self.send_response(200 if document is not None else 404)
                self.send_header("Content-Type", "application/json" if document is not None else "text/plain")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def url(self, path):
        return f"http://127.0.0.1:{self.port}{path}"

    def seen(self, path):
        with self.lock:
            return [(method, headers) for method, p, headers in self.requests if p == path]

    def stop(self):
        self.server.shutdown()
        self.server.server_close()


def sdk_request(provider, method, url, **kwargs):
    """`method url` through the SDK's auth flow; returns (response or the exception, the exchanges)."""
    log = []

    async def go():
        async with sdk_client(provider, log) as client:
            return await client.request(method, url, **kwargs)

    try:
        return asyncio.run(go()), log
    except Exception as error:  # noqa: BLE001 - the SDK's failure is a finding, reported as such
        return error, log


def document_provider(server_url, storage, browser, redirect, document_url):
    """The SDK's client with client_metadata_url=document_url (CIMD): it signs in with that URL as
    its client_id when the metadata says client_id_metadata_document_supported, registering nothing."""
    metadata = OAuthClientMetadata(redirect_uris=[redirect], client_name="mcp-interop (CIMD)",
                                   token_endpoint_auth_method="none")
    return OAuthClientProvider(server_url=server_url, client_metadata=metadata, storage=storage,
                               redirect_handler=browser.redirect_handler, callback_handler=browser.callback_handler,
                               client_metadata_url=document_url)


def part_c(work):
    sandbox = Sandbox(work, ["--allow-loopback-client-metadata"], name="sandbox-cimd")
    documents = DocumentServer()
    try:
        if not check(sandbox.url is not None,
                     "C: the sandbox (--allow-loopback-client-metadata) says it listens on http://127.0.0.1:PORT",
                     open(sandbox.log_path, "rb").read().decode("utf-8", "replace")[-400:]):
            return
        document_client(sandbox, documents)
        refused_document(sandbox, documents)
        check(sandbox.process.poll() is None, "C: the sandbox still runs at the end")
    finally:
        documents.stop()
        sandbox.stop()


def accepting_loopback_documents(documents):
    """The SDK's client takes a client_metadata_url only if `is_valid_client_metadata_url` says it
    is https with a path (OAuthClientProvider.__init__, its only caller, raises ValueError
    otherwise). The sandbox fetches https documents trusting the system's CAs alone, so a document
    served here can only be http on 127.0.0.1 (remote-auth sandbox --allow-loopback-client-metadata).
    This patches that one validator, where oauth2.py imported it, to also accept this script's
    http://127.0.0.1:PORT/... documents; the rest of the SDK's CIMD logic (should_use_client_metadata_url,
    create_client_info_from_metadata_url, the flow) runs unchanged. Restored when the block ends."""
    import contextlib

    import mcp.client.auth.oauth2 as sdk_oauth2

    original = sdk_oauth2.is_valid_client_metadata_url
    prefix = documents.url("/")

    def is_valid(url):
        return original(url) or (isinstance(url, str) and url.startswith(prefix) and len(url) > len(prefix))

    @contextlib.contextmanager
    def patched():
        sdk_oauth2.is_valid_client_metadata_url = is_valid
        try:
            yield
        finally:
            sdk_oauth2.is_valid_client_metadata_url = original

    return patched()


def document_client(sandbox, documents):
    base = sandbox.url
    label = "C document client"
    resource, prm_url = base + "/1.1", base + "/.well-known/oauth-protected-resource/1.1"
    me_url = base + "/1.1/account/verify_credentials.json"
    redirect = f"http://127.0.0.1:{harness.free_port()}/callback"
    path = "/clients/mcp-interop.json"
    document_url = documents.url(path)
    documents.documents[path] = {
        "client_id": document_url, "client_name": "mcp-interop (CIMD)", "redirect_uris": [redirect],
        "token_endpoint_auth_method": "none", "grant_types": ["authorization_code", "refresh_token"],
        "response_types": ["code"]}

    with plain() as http:
        asm = http.get(base + "/.well-known/oauth-authorization-server")
    check(asm.status_code == 200 and asm.json().get("client_id_metadata_document_supported") is True,
          f"{label}: the sandbox's RFC 8414 metadata says client_id_metadata_document_supported: true",
          f"{asm.status_code} {asm.text[:300]}")

    storage, browser = MemoryStorage(), Browser()
    try:
        document_provider(resource, storage, browser, redirect, document_url)
        unpatched = None
    except ValueError as error:
        unpatched = error
    check(unpatched is not None and "HTTPS" in str(unpatched),
          f"{label}: unpatched, the SDK refuses the http client_metadata_url {document_url} (ValueError: HTTPS only)",
          repr(unpatched))
    with accepting_loopback_documents(documents):
        provider = document_provider(resource, storage, browser, redirect, document_url)

    mark = len(sandbox.lines())
    response, log = sdk_get(provider, me_url)
    if not check(not isinstance(response, Exception) and response.status_code == 200 and body_of(response) == ALICE,
                 f"{label}: GET {me_url} through the SDK with client_metadata_url ends 200 with alice's JSON",
                 f"{outcome(response)}; exchanges: {log}; sandbox log: {sandbox.lines()[mark:]}; "
                 f"browser: {browser.answers} {[p[:300] for p in browser.pages]}"):
        return
    expected = [("GET", me_url, 401), ("GET", prm_url, 200),
                ("GET", base + "/.well-known/oauth-authorization-server", 200),
                ("POST", base + "/oauth2/token", 200), ("GET", me_url, 200)]
    check([(e.method, e.url, e.status) for e in log] == expected,
          f"{label}: the SDK's requests: the call, RFC 9728 and RFC 8414 metadata, token, the call again "
          "(no registration)", log)
    seen = sandbox.lines_since(mark, 6)
    check(seen == ["GET /1.1/account/verify_credentials.json 401", "GET /.well-known/oauth-protected-resource/1.1 200",
                   "GET /.well-known/oauth-authorization-server 200", "GET /oauth2/authorize 302",
                   "POST /oauth2/token 200", "GET /1.1/account/verify_credentials.json 200"],
          f"{label}: the sandbox's log: no POST /oauth2/register, the authorization request answered 302", seen)
    stored = storage.client_info
    check(stored is not None and stored.client_id == document_url and stored.client_secret is None
          and stored.token_endpoint_auth_method == "none" and storage.client_writes == 1,
          f"{label}: the SDK's stored client is the document URL, public, no secret",
          stored and (stored.client_id, stored.token_endpoint_auth_method, storage.client_writes))

    url = browser.urls[0] if len(browser.urls) == 1 else ""
    q = query_of(url)
    check(url.startswith(base + "/oauth2/authorize?") and q.get("client_id") == document_url
          and q.get("redirect_uri") == redirect and q.get("code_challenge_method") == "S256"
          and q.get("resource") == resource,
          f"{label}: the authorization request's client_id is the document URL, with its redirect URI, S256, "
          f"resource={resource}", browser.urls)
    status, location = browser.answers[0] if browser.answers else (None, "")
    back = query_of(location or "")
    check(status == 302 and (location or "").startswith(redirect + "?") and back.get("state") == q.get("state")
          and back.get("iss") == base and back.get("code"),
          f"{label}: the sandbox answers 302 to the document's redirect URI with code, state and iss",
          (status, location))
    fetched = documents.seen(path)
    check(len(fetched) == 1 and fetched[0][0] == "GET" and "application/json" in fetched[0][1].get("accept", ""),
          f"{label}: the document server saw one GET {path} from the sandbox, Accept with application/json",
          [(m, h.get("accept")) for m, h in fetched])

    token = log[3]
    form = token.form()
    check(form.get("grant_type") == "authorization_code" and form.get("client_id") == document_url
          and form.get("redirect_uri") == redirect and s256(form.get("code_verifier", "")) == q.get("code_challenge")
          and form.get("resource") == resource and "client_secret" not in form and "authorization" not in token.headers,
          f"{label}: the token request: client_id the document URL, the verifier, resource={resource}, no secret",
          {k: v for k, v in form.items() if k not in ("code", "code_verifier")})
    tokens = token.answer() or {}
    access, refresh = tokens.get("access_token"), tokens.get("refresh_token")
    check(tokens.get("token_type") == "Bearer" and access and refresh
          and log[4].headers.get("authorization") == "Bearer " + access,
          f"{label}: Bearer tokens and a refresh token; the SDK calls with the access token",
          {k: (short(v) if k.endswith("token") else v) for k, v in tokens.items()})
    seen = introspect(base, access)
    check(seen.get("active") is True and seen.get("client_id") == document_url and seen.get("aud") == [resource]
          and seen.get("username") == "alice",
          f"{label}: RFC 7662: the token is the document client's, for alice, audience [{resource}]",
          {k: seen.get(k) for k in ("active", "aud", "client_id", "username")})
    with plain() as http:
        posted = http.post(base + "/1.1/statuses/update.json", data={"status": "signed in with a CIMD"},
                           headers={"Authorization": "Bearer " + access})
    check(posted.status_code == 200 and (body_of(posted) or {}).get("text") == "signed in with a CIMD",
          f"{label}: the status API takes the token for a write (POST /1.1/statuses/update.json)",
          f"{posted.status_code} {posted.text[:300]}")

    # The access token expires: the SDK refreshes as the document client; the document is not fetched again.
    time.sleep(TTL + 1)
    mark = len(sandbox.lines())
    response, log = sdk_get(provider, me_url)
    check(not isinstance(response, Exception) and response.status_code == 200 and body_of(response) == ALICE
          and [(e.method, e.url, e.status) for e in log] == [("POST", base + "/oauth2/token", 200), ("GET", me_url, 200)]
          and log[0].form() == {"grant_type": "refresh_token", "refresh_token": refresh, "client_id": document_url,
                                "resource": resource},
          f"{label}: after expiry the SDK refreshes (client_id the document URL, resource={resource}), then calls: 200",
          f"{outcome(response)}; exchanges: {log}; forms: {[e.form() for e in log if e.method == 'POST']}")
    check(sandbox.lines_since(mark, 2) == ["POST /oauth2/token 200", "GET /1.1/account/verify_credentials.json 200"]
          and len(documents.seen(path)) == 1,
          f"{label}: the refresh: one token request, the document still fetched once (the sandbox's cache)",
          (sandbox.lines()[mark:], len(documents.seen(path))))


def refused_document(sandbox, documents):
    """A document whose redirect_uris lacks the SDK client's callback: the sandbox refuses at the
    authorization endpoint with an error page, never redirecting."""
    base = sandbox.url
    label = "C refused document"
    resource, me_url = base + "/1.1", base + "/1.1/account/verify_credentials.json"
    redirect = f"http://127.0.0.1:{harness.free_port()}/callback"
    elsewhere = f"http://127.0.0.1:{harness.free_port()}/elsewhere"
    path = "/clients/wrong-redirect.json"
    document_url = documents.url(path)
    documents.documents[path] = {
        "client_id": document_url, "client_name": "mcp-interop (wrong redirect)", "redirect_uris": [elsewhere],
        "token_endpoint_auth_method": "none", "grant_types": ["authorization_code", "refresh_token"]}
    storage, browser = MemoryStorage(), Browser()
    with accepting_loopback_documents(documents):
        provider = document_provider(resource, storage, browser, redirect, document_url)
    mark = len(sandbox.lines())
    sdk_logger = logging.getLogger("mcp.client.auth.oauth2")
    sdk_logger.disabled = True  # the SDK logs its flow's exception with a traceback: expected here
    try:
        response, log = sdk_get(provider, me_url)
    finally:
        sdk_logger.disabled = False
    # No redirect came back, so the callback handler has neither code nor state: the SDK stops there.
    check(isinstance(response, OAuthFlowError) and str(response).startswith("State parameter mismatch: None != ")
          and [(e.method, e.url) for e in log] == [("GET", me_url), ("GET", base + "/.well-known/oauth-protected-resource/1.1"),
                                                   ("GET", base + "/.well-known/oauth-authorization-server")],
          f"{label}: the SDK's flow fails (OAuthFlowError: State parameter mismatch) after the metadata, "
          "with no registration and no token request",
          f"{outcome(response)}; exchanges: {log}")
    status, location = browser.answers[0] if browser.answers else (None, None)
    page = browser.pages[0] if browser.pages else ""
    text = " ".join(html.unescape(re.sub(r"<[^>]+>", " ", page.split("</style>")[-1])).split())
    check(len(browser.urls) == 1 and query_of(browser.urls[0]).get("client_id") == document_url
          and status == 400 and location is None and "<title>Invalid redirect URI" in page
          and "invalid_request: the redirect_uri is not one of the redirect_uris of the client's metadata "
              "document (draft-ietf-oauth-client-id-metadata-document §4.2)" in text,
          f"{label}: the authorization endpoint answers 400, an 'Invalid redirect URI' page (invalid_request, "
          "not among the document's redirect_uris), no Location", (status, location, text[:800]))
    seen = sandbox.lines_since(mark, 4)
    check(seen == ["GET /1.1/account/verify_credentials.json 401", "GET /.well-known/oauth-protected-resource/1.1 200",
                   "GET /.well-known/oauth-authorization-server 200", "GET /oauth2/authorize 400"],
          f"{label}: the sandbox's log: the authorization request refused with 400, nothing after it", seen)
    fetched = documents.seen(path)
    check(len(fetched) == 1 and "application/json" in fetched[0][1].get("accept", ""),
          f"{label}: the sandbox fetched the document {path} once (Accept with application/json)",
          [(m, h.get("accept")) for m, h in fetched])


# ---------------------------------------------------------------------------------------------
# Part D: step-up (RFC 9470) at the sandbox, met by the SDK's client.
# ---------------------------------------------------------------------------------------------

MFA = "urn:remote-auth:sandbox:acr:mfa"
MAX_AGE = 300


class SteppingUpBrowser(Browser):
    """The application's redirect handler adding acr_values to the authorization URL the SDK built:
    the SDK has no parameter for extra authorization request parameters."""

    async def redirect_handler(self, url):
        await super().redirect_handler(url + "&" + urllib.parse.urlencode({"acr_values": MFA}))


def part_d(work):
    sandbox = Sandbox(work, ["--step-up", "--step-up-max-age", str(MAX_AGE)], name="sandbox-step-up")
    try:
        if not check(sandbox.url is not None,
                     "D: the sandbox (--step-up) says it listens on http://127.0.0.1:PORT",
                     open(sandbox.log_path, "rb").read().decode("utf-8", "replace")[-400:]):
            return
        step_up(sandbox)
        check(sandbox.process.poll() is None, "D: the sandbox still runs at the end")
    finally:
        sandbox.stop()


def step_up(sandbox):
    base = sandbox.url
    label = "D step-up"
    resource, prm_url = base + "/1.1", base + "/.well-known/oauth-protected-resource/1.1"
    asm_url = base + "/.well-known/oauth-authorization-server"
    update_url = base + "/1.1/statuses/update.json"
    me_url = base + "/1.1/account/verify_credentials.json"
    redirect = f"http://127.0.0.1:{harness.free_port()}/callback"
    challenge = (f'Bearer realm="RemoteAuth Sandbox", error="insufficient_user_authentication", acr_values="{MFA}", '
                 f'max_age={MAX_AGE}, resource_metadata="{prm_url}"')
    with plain() as http:
        oidc = http.get(base + "/.well-known/openid-configuration")
    check(oidc.status_code == 200 and MFA in (oidc.json().get("acr_values_supported") or []),
          f"{label}: the OpenID metadata lists {MFA} in acr_values_supported", f"{oidc.status_code} {oidc.text[:300]}")

    # The SDK's client asked to write: it signs in on the first 401 (no token), then meets the step-up 401.
    storage, browser = MemoryStorage(), Browser()
    provider = provider_for(resource, storage, browser, redirect)
    response, log = sdk_request(provider, "POST", update_url, data={"status": "no step-up"})
    check(not isinstance(response, Exception) and response.status_code == 401
          and (body_of(response) or {}).get("error") == "insufficient_user_authentication"
          and [(e.method, e.url, e.status) for e in log] == [
              ("POST", update_url, 401), ("GET", prm_url, 200), ("GET", asm_url, 200),
              ("POST", base + "/oauth2/register", 201), ("POST", base + "/oauth2/token", 200),
              ("POST", update_url, 401)]
          and len(browser.urls) == 1 and "acr_values" not in query_of(browser.urls[0]),
          f"{label}: a write through the SDK: it signs in (no acr_values) and hands back the sandbox's 401 "
          "insufficient_user_authentication", f"{outcome(response)}; exchanges: {log}; {browser.urls}")
    access = storage.tokens.access_token if storage.tokens else ""
    with plain() as http:
        refused = http.post(update_url, data={"status": "no step-up"}, headers={"Authorization": "Bearer " + access})
        read = http.get(me_url, headers={"Authorization": "Bearer " + access})
    check(refused.status_code == 401 and refused.headers.get_list("WWW-Authenticate") == [challenge]
          and (body_of(refused) or {}).get("error") == "insufficient_user_authentication",
          f"{label}: with the SDK's token the write is refused: 401 and exactly {challenge!r} (RFC 9470 §3)",
          f"{refused.status_code} {refused.headers.get_list('WWW-Authenticate')} {refused.text[:300]}")
    check(read.status_code == 200 and body_of(read) == ALICE,
          f"{label}: the same token still reads (only writes need the step-up)", f"{read.status_code} {read.text[:200]}")

    # Again through the SDK: it takes insufficient_user_authentication for any 401 and signs in
    # again the same way (it reads neither acr_values nor max_age), then returns the same 401.
    response, log = sdk_request(provider, "POST", update_url, data={"status": "no step-up, again"})
    check(not isinstance(response, Exception) and response.status_code == 401
          and (body_of(response) or {}).get("error") == "insufficient_user_authentication"
          and [(e.method, e.url, e.status) for e in log] == [
              ("POST", update_url, 401), ("GET", prm_url, 200), ("GET", asm_url, 200),
              ("POST", base + "/oauth2/token", 200), ("POST", update_url, 401)]
          and len(browser.urls) == 2 and "acr_values" not in query_of(browser.urls[1]),
          f"{label}: the SDK answers the step-up 401 with a new sign-in without acr_values (no registration), "
          "then returns the same 401", f"{outcome(response)}; exchanges: {log}; {browser.urls[1:]}")

    # The application's redirect handler adds acr_values (a new provider on the same storage).
    stepping = SteppingUpBrowser()
    stepped = provider_for(resource, storage, stepping, redirect)
    response, log = sdk_request(stepped, "POST", update_url, data={"status": "stepped up"})
    check(not isinstance(response, Exception) and response.status_code == 200
          and (body_of(response) or {}).get("text") == "stepped up"
          and [(e.method, e.url, e.status) for e in log] == [
              ("POST", update_url, 401), ("GET", prm_url, 200), ("GET", asm_url, 200),
              ("POST", base + "/oauth2/token", 200), ("POST", update_url, 200)]
          and storage.client_writes == 1,
          f"{label}: with acr_values={MFA} added to the SDK's authorization URL, the sign-in's token writes: 200",
          f"{outcome(response)}; exchanges: {log}")
    q = query_of(stepping.urls[0] if len(stepping.urls) == 1 else "")
    check(q.get("acr_values") == MFA and q.get("resource") == resource and q.get("code_challenge_method") == "S256"
          and stepping.answers and stepping.answers[0][0] == 302,
          f"{label}: the stepped-up authorization request: the SDK's parameters and acr_values={MFA}, answered 302",
          (stepping.urls, stepping.answers))


# ---------------------------------------------------------------------------------------------

WORK = tempfile.mkdtemp(prefix="remote-auth-mcp-")
try:
    for part in (part_a, part_b, part_c, part_d):
        try:
            part(WORK)
        except Exception:  # a bug in this script, or a command that could not start: still end with the count
            check(False, f"{part.__name__} stopped", traceback.format_exc())
finally:
    shutil.rmtree(WORK, ignore_errors=True)

CHECKS.finish()
