#!/usr/bin/env python3
"""Interop: `remote-auth` signs in to, and calls, an OAuth 2 authorization server built on Authlib.

The authorization server is written here with Authlib's framework-agnostic server side
(authlib.oauth2.rfc6749.AuthorizationServer and its grants, RFC 7636's CodeChallenge, RFC 8628's
device grant, RFC 7009 revocation, RFC 7662 introspection, RFC 9207's IssuerParameter, RFC 6750's
BearerTokenValidator behind a ResourceProtector) over in-memory state, served by http.server on
127.0.0.1 (a free port). Nobody here wrote it. It offers:

  - RFC 8414 metadata at /.well-known/oauth-authorization-server (issuer = its base URL) with
    authorization_response_iss_parameter_supported, and `iss` on every authorization response
    (RFC 9207);
  - the authorization code grant with PKCE, S256 only and required; a registered loopback
    redirect http://127.0.0.1/callback matches any port (RFC 8252 §7.3); the consent page is a
    form the script posts, as the user's browser would;
  - refresh tokens that rotate: a rotated (old) refresh token is refused with invalid_grant;
  - client_credentials for a confidential client whose secret, `cli service secret+&%`, holds a
    space, '+', '&' and '%': its Basic credentials must be form-urlencoded (RFC 6749 §2.3.1,
    Appendix B). Authlib's own client_secret_basic decodes them with unquote (a '+' stays a '+',
    and Authlib's client does not encode at all), so this server replaces it with a strict
    §2.3.1 decoder and logs the Authorization field byte for byte;
  - the device grant (RFC 8628) with a 1 s interval, answering slow_down once (injected), then
    authorization_pending, then the tokens once the script approves the user code on /device;
  - revocation (RFC 7009; revoking a refresh token revokes its access tokens, §2.1) and
    introspection (RFC 7662);
  - a protected resource GET /api/me (scope `read`) answering RFC 6750 §3 challenges.

Section 1 proves the server sane with Authlib's own client (OAuth2Session) and requests, before
remote-auth is blamed for anything. Section 2 drives remote-auth (REMOTE_AUTH_HOME in a temporary
directory) over real sockets:

  - `authorize oauth2 --no-browser`: the script reads the authorization URL from the command's
    stdout, plays the browser (the consent form, then the 302 to the command's loopback listener)
    and checks tokens.json (0600) holds exactly what the server issued;
  - `request --profile` (Bearer), `token --profile` (the access token alone on stdout);
  - a refresh before an expired token is used (the sign-in's access token lives 2 s and is used
    after 3 s, so the client's refresh skew does not matter), then a refresh on a 401
    invalid_token (the server revokes a valid access token behind the client's back): exactly
    one refresh_token grant each, the rotated-out refresh token refused afterwards, the new
    tokens saved;
  - `revoke --profile`: the server saw the revocation, the tokens are dead, the profile is gone;
  - a callback whose `iss` is not the issuer, and one whose `state` was changed: the command
    fails, saves nothing and never redeems the code; a refusal (access_denied) fails it too;
  - `authorize oauth2 --device`: the user code on stdout is approved on /device; the command
    must wait 1 s before its first poll and 1 + 5 s after slow_down (RFC 8628 §3.5);
  - `authorize oauth2 --client-credentials --client-secret -` (the secret on stdin): the Basic
    field must be exactly base64(`cli-service:cli+service+secret%2B%26%25`).

The remote-auth command lines are built in one place, `CLI` below, to be adjusted easily.

Usage: authlib_provider.py REMOTE_AUTH_BINARY
Prints one line per failed check and ends with 'authlib-provider: N passed, M failed'; exits 1
on any failure.
"""
import base64
import collections
import hmac
import http.server
import json
import os
import re
import secrets
import shutil
import stat
import subprocess
import sys
import tempfile
import threading
import time
import traceback
import urllib.parse

# Authlib refuses http:// URIs unless told this is a test (everything here is on 127.0.0.1).
os.environ["AUTHLIB_INSECURE_TRANSPORT"] = "1"

import requests  # noqa: E402
from authlib.common.security import generate_token  # noqa: E402
from authlib.integrations.requests_client import OAuth2Session  # noqa: E402
from authlib.oauth2 import rfc8414, rfc9207  # noqa: E402
from authlib.oauth2.rfc6749 import (  # noqa: E402
    AuthorizationServer, ClientMixin, OAuth2Error, OAuth2Payload, OAuth2Request, ResourceProtector, TokenMixin,
    grants,
)
from authlib.oauth2.rfc6750 import BearerTokenGenerator, BearerTokenValidator  # noqa: E402
from authlib.oauth2.rfc7009 import RevocationEndpoint  # noqa: E402
from authlib.oauth2.rfc7636 import CodeChallenge, create_s256_code_challenge  # noqa: E402
from authlib.oauth2.rfc7662 import IntrospectionEndpoint  # noqa: E402
from authlib.oauth2.rfc8628 import DeviceAuthorizationEndpoint, DeviceCodeGrant, DeviceCredentialDict  # noqa: E402

import harness  # noqa: E402
from harness import Checks  # noqa: E402

if len(sys.argv) != 2:
    sys.exit("usage: authlib_provider.py REMOTE_AUTH_BINARY")
BINARY = sys.argv[1]
NAME = "authlib-provider"
TIMEOUT = 60  # seconds for one remote-auth command
USER = "alice"
REALM = "authlib-interop"
PUBLIC_ID = "cli-app"
SERVICE_ID = "cli-service"
SERVICE_SECRET = "cli service secret+&%"
# RFC 6749 §2.3.1 / Appendix B: each of id and secret application/x-www-form-urlencoded, then Basic.
SERVICE_BASIC = "Basic " + base64.b64encode(
    f"{urllib.parse.quote_plus(SERVICE_ID)}:{urllib.parse.quote_plus(SERVICE_SECRET)}".encode()).decode()
assert SERVICE_BASIC == "Basic " + base64.b64encode(b"cli-service:cli+service+secret%2B%26%25").decode()
DEVICE_INTERVAL = 1  # the interval the device authorization response gives (s)
SLOW_DOWN = 5  # RFC 8628 §3.5: slow_down adds 5 s to it, for this and every later poll
SHORT_TTL = 2  # expires_in of the access token the code grant's sign-in gets (every other: 3600 s)

CHECKS = Checks(NAME)
check = CHECKS.check


# ---------------------------------------------------------------------------------------------
# The authorization server: Authlib over in-memory state.
# ---------------------------------------------------------------------------------------------

class Client(ClientMixin):
    def __init__(self, client_id, secret, redirect_uris, grant_types, auth_methods, scope):
        self.client_id, self.secret = client_id, secret
        self.redirect_uris, self.grant_types, self.auth_methods = redirect_uris, grant_types, auth_methods
        self.scope = scope

    def get_client_id(self):
        return self.client_id

    def get_default_redirect_uri(self):
        return None  # redirect_uri is required (there is no single loopback URI: the port varies)

    def get_allowed_scope(self, scope):
        if not scope:
            return "read"  # the default when the request names none (RFC 6749 §3.3)
        allowed = self.scope.split()
        return " ".join(s for s in scope.split() if s in allowed)

    def check_redirect_uri(self, redirect_uri):
        # RFC 8252 §7.3: a registered loopback redirect matches on any port. Nothing else varies.
        parts = urllib.parse.urlsplit(redirect_uri or "")
        if parts.scheme != "http" or parts.hostname != "127.0.0.1" or parts.fragment or parts.username:
            return False
        try:
            parts.port
        except ValueError:
            return False
        for registered in self.redirect_uris:
            r = urllib.parse.urlsplit(registered)
            if (r.scheme, r.hostname, r.path, r.query) == (parts.scheme, parts.hostname, parts.path, parts.query):
                return True
        return False

    def check_client_secret(self, client_secret):
        return self.secret is not None and hmac.compare_digest(self.secret.encode(), client_secret.encode())

    def check_endpoint_auth_method(self, method, endpoint):
        return method in self.auth_methods

    def check_response_type(self, response_type):
        return response_type == "code" and "authorization_code" in self.grant_types

    def check_grant_type(self, grant_type):
        return grant_type in self.grant_types


CLIENTS = {
    PUBLIC_ID: Client(PUBLIC_ID, None, ["http://127.0.0.1/callback"],
                      ["authorization_code", "refresh_token", DeviceCodeGrant.GRANT_TYPE], ["none"], "read write"),
    SERVICE_ID: Client(SERVICE_ID, SERVICE_SECRET, [], ["client_credentials"],
                       ["client_secret_basic", "client_secret_post"], "read write"),
}


class Record(TokenMixin):
    """An access or a refresh token; `family` ties the tokens of one grant together."""

    def __init__(self, kind, value, client_id, user, scope, expires_in, family):
        self.kind, self.value, self.client_id, self.user, self.scope = kind, value, client_id, user, scope
        self.issued_at, self.expires_in, self.family = time.time(), expires_in, family
        self.revoked = False
        self.why = None  # why it was revoked: "rotated", "revoked", "killed"

    def check_client(self, client):
        return client.get_client_id() == self.client_id

    def get_scope(self):
        return self.scope

    def get_expires_in(self):
        return self.expires_in or 0

    def get_expires_at(self):
        return int(self.issued_at + self.expires_in) if self.expires_in else 0

    def is_expired(self):
        return bool(self.expires_in) and time.time() >= self.issued_at + self.expires_in

    def is_revoked(self):
        return self.revoked

    def get_user(self):
        return self.user

    def get_client(self):
        return CLIENTS[self.client_id]


class Code:
    def __init__(self, code, client_id, redirect_uri, scope, user, challenge, method):
        self.code, self.client_id, self.redirect_uri, self.scope, self.user = code, client_id, redirect_uri, scope, user
        self.code_challenge, self.code_challenge_method = challenge, method
        self.issued_at = time.time()

    def get_redirect_uri(self):
        return self.redirect_uri

    def get_scope(self):
        return self.scope


class State:
    def __init__(self):
        self.lock = threading.RLock()
        self.access = {}  # value -> Record
        self.refresh = {}  # value -> Record
        self.codes = {}  # code -> Code
        self.redeemed = []  # codes redeemed
        self.devices = {}  # device_code -> DeviceCredentialDict (+ "polls": [(time, answer)], "issued": time)
        self.approvals = {}  # user_code -> (user, approved)
        self.ttl = 3600  # expires_in of the next access token
        self.issuer_override = None  # an `iss` to put in authorization responses instead of the issuer
        self.log = []  # one dict per HTTP request


STATE = State()


class Payload(OAuth2Payload):
    def __init__(self, pairs):
        self._datalist = collections.defaultdict(list)
        for name, value in pairs:
            self._datalist[name].append(value)
        self._data = {name: values[0] for name, values in self._datalist.items()}

    @property
    def data(self):
        return self._data

    @property
    def datalist(self):
        return self._datalist


class Request(OAuth2Request):
    """Authlib's request over what http.server received."""

    def __init__(self, raw):
        super().__init__(raw["method"], raw["uri"], headers=raw["headers"])
        self._args = dict(raw["query"])
        self._form = dict(raw["form"])
        self.payload = Payload(raw["query"] + raw["form"])

    @property
    def args(self):
        return self._args

    @property
    def form(self):
        return self._form


class Response:
    def __init__(self, status, body, headers):
        self.status, self.headers = status, list(headers)
        if isinstance(body, (dict, list)):
            body = json.dumps(body)
        self.body = body or ""

    @property
    def location(self):
        return next((v for k, v in self.headers if k.lower() == "location"), None)

    @location.setter
    def location(self, value):
        self.headers = [(k, v) for k, v in self.headers if k.lower() != "location"] + [("Location", value)]


class Server(AuthorizationServer):
    def query_client(self, client_id):
        return CLIENTS.get(client_id)

    def save_token(self, token, request):
        grant_type = request.payload.grant_type
        client_id = request.client.get_client_id()
        with STATE.lock:
            if grant_type == "refresh_token":
                old = request.refresh_token
                user, family = old.user, old.family
            else:
                user, family = request.user, secrets.token_hex(8)
            STATE.access[token["access_token"]] = Record(
                "access", token["access_token"], client_id, user, token.get("scope"), token.get("expires_in"), family)
            if "refresh_token" in token:
                STATE.refresh[token["refresh_token"]] = Record(
                    "refresh", token["refresh_token"], client_id, user, token.get("scope"), None, family)

    def send_signal(self, name, *args, **kwargs):
        pass

    def create_oauth2_request(self, request):
        return request if isinstance(request, OAuth2Request) else Request(request)

    def create_json_request(self, request):
        raise NotImplementedError("no JSON endpoints here")

    def handle_response(self, status, body, headers):
        return Response(status, body, headers)


def authenticate_basic_rfc6749(query_client, request):
    """client_secret_basic as RFC 6749 §2.3.1 has it: id and secret form-urlencoded, so decoded
    with unquote_plus (Authlib's own uses unquote, and would read '+' as '+')."""
    auth = request.headers.get("Authorization") or ""
    kind, _, credentials = auth.partition(" ")
    if kind.lower() != "basic":
        return None
    try:
        text = base64.b64decode(credentials, validate=True).decode("utf-8")
    except ValueError:
        return None
    if ":" not in text:
        return None
    client_id, secret = (urllib.parse.unquote_plus(part) for part in text.split(":", 1))
    client = query_client(client_id)
    if client and client.check_client_secret(secret):
        return client
    return None


class S256Challenge(CodeChallenge):
    """PKCE required and S256 only (Authlib would default a missing method to `plain`)."""
    SUPPORTED_CODE_CHALLENGE_METHOD = ["S256"]

    def validate_code_challenge(self, grant, redirect_uri):
        from authlib.oauth2.rfc6749 import InvalidRequestError
        data = grant.request.payload.data
        if not data.get("code_challenge"):
            raise InvalidRequestError("PKCE is required: missing 'code_challenge'")
        if data.get("code_challenge_method") != "S256":
            raise InvalidRequestError("code_challenge_method must be S256")
        super().validate_code_challenge(grant, redirect_uri)


class CodeGrant(grants.AuthorizationCodeGrant):
    TOKEN_ENDPOINT_AUTH_METHODS = ["none", "client_secret_basic", "client_secret_post"]

    def save_authorization_code(self, code, request):
        data = request.payload.data
        with STATE.lock:
            STATE.codes[code] = Code(code, request.client.get_client_id(), data.get("redirect_uri"), request.scope,
                                     request.user, data.get("code_challenge"), data.get("code_challenge_method"))

    def query_authorization_code(self, code, client):
        with STATE.lock:
            found = STATE.codes.get(code)
        if found and found.client_id == client.get_client_id() and time.time() - found.issued_at < 300:
            return found
        return None

    def delete_authorization_code(self, authorization_code):
        with STATE.lock:
            STATE.codes.pop(authorization_code.code, None)
            STATE.redeemed.append(authorization_code.code)

    def authenticate_user(self, authorization_code):
        return authorization_code.user


class RefreshGrant(grants.RefreshTokenGrant):
    TOKEN_ENDPOINT_AUTH_METHODS = ["none", "client_secret_basic", "client_secret_post"]
    INCLUDE_NEW_REFRESH_TOKEN = True  # rotation

    def authenticate_refresh_token(self, refresh_token):
        with STATE.lock:
            found = STATE.refresh.get(refresh_token)
        return found if found and not found.revoked else None

    def authenticate_user(self, refresh_token):
        return refresh_token.user

    def revoke_old_credential(self, refresh_token):
        with STATE.lock:
            refresh_token.revoked, refresh_token.why = True, "rotated"


class ServiceGrant(grants.ClientCredentialsGrant):
    TOKEN_ENDPOINT_AUTH_METHODS = ["client_secret_basic", "client_secret_post"]


class DeviceGrant(DeviceCodeGrant):
    TOKEN_ENDPOINT_AUTH_METHODS = ["none"]

    def query_device_credential(self, device_code):
        with STATE.lock:
            return STATE.devices.get(device_code)

    def query_user_grant(self, user_code):
        with STATE.lock:
            return STATE.approvals.get(user_code)

    def should_slow_down(self, credential):
        # Injected: the first poll is told to slow down, whatever its timing.
        with STATE.lock:
            if not credential.get("slowed"):
                credential["slowed"] = True
                return True
        return False

    def validate_device_credential(self, credential):
        answer = "approved"
        try:
            return super().validate_device_credential(credential)
        except OAuth2Error as error:
            answer = error.error
            raise
        finally:
            with STATE.lock:
                credential["polls"].append((time.monotonic(), answer))


class DeviceEndpoint(DeviceAuthorizationEndpoint):
    INTERVAL = DEVICE_INTERVAL
    EXPIRES_IN = 600
    CLIENT_AUTH_METHODS = ["none"]

    def get_verification_uri(self):
        return BASE + "/device"

    def save_device_credential(self, client_id, scope, data):
        with STATE.lock:
            STATE.devices[data["device_code"]] = DeviceCredentialDict(
                client_id=client_id, scope=scope, expires_at=time.time() + data["expires_in"],
                polls=[], issued=time.monotonic(), **data)


class TokenLookup:
    SUPPORTED_TOKEN_TYPES = ("access_token", "refresh_token")
    CLIENT_AUTH_METHODS = ["client_secret_basic", "client_secret_post", "none"]

    def query_token(self, token_string, token_type_hint):
        with STATE.lock:
            order = [STATE.access, STATE.refresh]
            if token_type_hint == "refresh_token":
                order.reverse()
            return next((table[token_string] for table in order if token_string in table), None)


class Revocation(TokenLookup, RevocationEndpoint):
    def revoke_token(self, token, request):
        with STATE.lock:
            token.revoked, token.why = True, "revoked"
            if token.kind == "refresh":  # RFC 7009 §2.1: and the access tokens of the same grant
                for access in STATE.access.values():
                    if access.family == token.family and not access.revoked:
                        access.revoked, access.why = True, "revoked"


class Introspection(TokenLookup, IntrospectionEndpoint):
    def check_permission(self, token, client, request):
        return True

    def introspect_token(self, token):
        return {"active": True, "client_id": token.client_id, "scope": token.scope,
                "token_type": "Bearer" if token.kind == "access" else "refresh_token",
                "sub": token.user or token.client_id, "iss": BASE,
                "iat": int(token.issued_at), **({"exp": token.get_expires_at()} if token.expires_in else {})}


class Issuer(rfc9207.IssuerParameter):
    def get_issuer(self):
        return STATE.issuer_override or BASE


class AccessValidator(BearerTokenValidator):
    def authenticate_token(self, token_string):
        with STATE.lock:
            return STATE.access.get(token_string)


SERVER = Server(scopes_supported=["read", "write"])
SERVER.register_client_auth_method("client_secret_basic", authenticate_basic_rfc6749)
SERVER.register_token_generator("default", BearerTokenGenerator(
    access_token_generator=lambda **_: "at." + generate_token(40),
    refresh_token_generator=lambda **_: "rt." + generate_token(48),
    expires_generator=lambda client, grant_type: STATE.ttl))
SERVER.register_grant(CodeGrant, [S256Challenge(required=True)])
SERVER.register_grant(RefreshGrant)
SERVER.register_grant(ServiceGrant)
SERVER.register_grant(DeviceGrant)
SERVER.register_endpoint(DeviceEndpoint)
SERVER.register_endpoint(Revocation)
SERVER.register_endpoint(Introspection)
SERVER.register_extension(Issuer())
PROTECTOR = ResourceProtector()
PROTECTOR.register_token_validator(AccessValidator(realm=REALM))


def metadata():
    return {
        "issuer": BASE,
        "authorization_endpoint": BASE + "/authorize",
        "token_endpoint": BASE + "/token",
        "device_authorization_endpoint": BASE + "/device_authorization",
        "revocation_endpoint": BASE + "/revoke",
        "introspection_endpoint": BASE + "/introspect",
        "scopes_supported": ["read", "write"],
        "response_types_supported": ["code"],
        "response_modes_supported": ["query"],
        "grant_types_supported": ["authorization_code", "refresh_token", "client_credentials",
                                  DeviceCodeGrant.GRANT_TYPE],
        "token_endpoint_auth_methods_supported": ["none", "client_secret_basic", "client_secret_post"],
        "revocation_endpoint_auth_methods_supported": ["none", "client_secret_basic", "client_secret_post"],
        "introspection_endpoint_auth_methods_supported": ["none", "client_secret_basic", "client_secret_post"],
        "code_challenge_methods_supported": ["S256"],
        "authorization_response_iss_parameter_supported": True,
    }


def html(text):
    return text.replace("&", "&amp;").replace("<", "&lt;").replace('"', "&quot;")


def consent_page(pairs):
    hidden = "".join(f'<input type="hidden" name="{html(k)}" value="{html(v)}">' for k, v in pairs)
    return (f'<!doctype html><title>Authorize</title><form method="post" action="/authorize">{hidden}'
            f'<p>Signed in as {USER}.</p><button name="action" value="approve">Approve</button>'
            f'<button name="action" value="deny">Deny</button></form>')


class HTTPServer(http.server.ThreadingHTTPServer):
    daemon_threads = True


class Handler(http.server.BaseHTTPRequestHandler):
    server_version = "authlib-provider"

    def log_message(self, *args):
        pass

    def do_GET(self):
        self.handle_one()

    do_POST = do_GET

    def handle_one(self):
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        parts = urllib.parse.urlsplit(self.path)
        form = []
        if "application/x-www-form-urlencoded" in (self.headers.get("Content-Type") or ""):
            form = urllib.parse.parse_qsl(body.decode("utf-8", "replace"), keep_blank_values=True)
        raw = {"method": self.command, "uri": BASE + self.path, "path": parts.path, "headers": self.headers,
               "query": urllib.parse.parse_qsl(parts.query, keep_blank_values=True), "form": form}
        entry = {"time": time.monotonic(), "wall": time.time(), "method": self.command, "path": parts.path,
                 "query": raw["query"], "form": form, "authorization": self.headers.get("Authorization")}
        try:
            response = self.route(raw, entry)
        except Exception:
            entry["problem"] = "exception: " + traceback.format_exc()
            response = Response(500, "server error", [("Content-Type", "text/plain")])
        entry["status"] = response.status
        entry["body"] = response.body
        entry["headers"] = response.headers
        if response.body.startswith("{"):
            try:
                entry["error"] = json.loads(response.body).get("error")
            except ValueError:
                pass
        with STATE.lock:
            STATE.log.append(entry)
        data = response.body.encode("utf-8")
        self.send_response(response.status)
        for name, value in response.headers:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def route(self, raw, entry):
        path, method = raw["path"], raw["method"]
        if path == "/.well-known/oauth-authorization-server" and method == "GET":
            return Response(200, metadata(), [("Content-Type", "application/json")])
        if path == "/authorize":
            try:
                grant = SERVER.get_consent_grant(raw, end_user=USER)
            except OAuth2Error as error:
                if error.redirect_uri:  # RFC 6749 §4.1.2.1: back to the (checked) client, with iss
                    response = SERVER.handle_error_response(None, error)
                    response.location = response.location + "&" + urllib.parse.urlencode(
                        {"iss": STATE.issuer_override or BASE})
                    return response
                return Response(400, f"invalid authorization request: {error.error} {error.description}",
                                [("Content-Type", "text/plain")])
            if method == "GET":
                return Response(200, consent_page(raw["query"]), [("Content-Type", "text/html; charset=utf-8")])
            action = dict(raw["form"]).get("action")
            entry["action"] = action
            return SERVER.create_authorization_response(grant.request, grant_user=USER if action == "approve" else None,
                                                        grant=grant)
        if path == "/token" and method == "POST":
            entry["grant_type"] = dict(raw["form"]).get("grant_type")
            return SERVER.create_token_response(raw)  # with Cache-Control: no-store (RFC 6749 §5.1)
        if path == "/device_authorization" and method == "POST":
            return SERVER.create_endpoint_response("device_authorization", raw)
        if path == "/revoke" and method == "POST":
            return SERVER.create_endpoint_response("revocation", raw)
        if path == "/introspect" and method == "POST":
            return SERVER.create_endpoint_response("introspection", raw)
        if path == "/device":
            fields = dict(raw["query"] + raw["form"])
            code = fields.get("user_code", "").upper()
            with STATE.lock:
                known = any(d["user_code"] == code for d in STATE.devices.values())
            if method == "GET":
                return Response(200 if known or not code else 404,
                                f'<form method="post"><input name="user_code" value="{html(code)}">'
                                f'<button name="action" value="approve">Approve</button></form>',
                                [("Content-Type", "text/html; charset=utf-8")])
            if not known:
                return Response(404, "unknown user code", [("Content-Type", "text/plain")])
            with STATE.lock:
                STATE.approvals[code] = (USER, fields.get("action") == "approve")
            return Response(200, "done", [("Content-Type", "text/plain")])
        if path == "/api/me" and method == "GET":
            if not raw["headers"].get("Authorization"):
                # RFC 6750 §3.1: no credentials, no error code.
                return Response(401, {"error": "unauthorized"}, [("WWW-Authenticate", f'Bearer realm="{REALM}"')])
            try:
                token = PROTECTOR.validate_request(["read"], Request(raw))
            except OAuth2Error as error:
                status, body, headers = error()
                return Response(status, body, headers)
            entry["bearer"] = token.value
            return Response(200, {"sub": token.user or token.client_id, "client_id": token.client_id,
                                  "scope": token.scope}, [("Content-Type", "application/json")])
        return Response(404, "not found", [("Content-Type", "text/plain")])


HTTPD = HTTPServer(("127.0.0.1", 0), Handler)
BASE = f"http://127.0.0.1:{HTTPD.server_port}"


def log_mark():
    with STATE.lock:
        return len(STATE.log)


def log_since(mark, path=None):
    with STATE.lock:
        return [e for e in STATE.log[mark:] if path is None or e["path"] == path]


def grants_since(mark, grant_type):
    return [e for e in log_since(mark, "/token") if e.get("grant_type") == grant_type]


def http_session():
    session = requests.Session()
    session.trust_env = False  # no proxy between this script and 127.0.0.1
    return session


BROWSER = http_session()


def play_browser(url, action="approve"):
    """The user's browser: opens the consent page and presses `action`. Returns the Location."""
    page = BROWSER.get(url, allow_redirects=False)
    if not check(page.status_code == 200 and 'action="/authorize"' in page.text,
                 f"GET {url}: expected the consent page", f"{page.status_code} {page.text[:300]!r}"):
        return None
    fields = re.findall(r'<input type="hidden" name="([^"]*)" value="([^"]*)">', page.text)
    fields = [(k.replace("&quot;", '"').replace("&lt;", "<").replace("&amp;", "&"),
               v.replace("&quot;", '"').replace("&lt;", "<").replace("&amp;", "&")) for k, v in fields]
    answer = BROWSER.post(BASE + "/authorize", data=fields + [("action", action)], allow_redirects=False)
    if not check(answer.status_code == 302 and answer.headers.get("Location"),
                 f"the consent form ({action}) answers a 302", f"{answer.status_code} {answer.text[:300]!r}"):
        return None
    return answer.headers["Location"]


def query_of(url):
    return dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(url).query))


# ---------------------------------------------------------------------------------------------
# 1. The server is sane: Authlib's own client, and requests.
# ---------------------------------------------------------------------------------------------

def self_check():
    label = "self-check"
    meta = http_session().get(BASE + "/.well-known/oauth-authorization-server").json()
    try:
        rfc8414.AuthorizationServerMetadata(meta).validate(metadata_classes=[rfc9207.AuthorizationServerMetadata])
        valid = None
    except Exception as error:  # noqa: BLE001
        valid = repr(error)
    check(valid is None and meta["issuer"] == BASE, f"{label}: RFC 8414 metadata valid per Authlib", valid)
    redirect = "http://127.0.0.1:49152/callback"

    def client(scope="read write"):
        session = OAuth2Session(PUBLIC_ID, redirect_uri=redirect, scope=scope, code_challenge_method="S256",
                                token_endpoint_auth_method="none")
        session.trust_env = False
        return session

    # Code + PKCE, a Bearer call, rotation, introspection, revocation.
    app = client()
    verifier = generate_token(48)
    url, state = app.create_authorization_url(meta["authorization_endpoint"], code_verifier=verifier)
    location = play_browser(url)
    if location:
        back = query_of(location)
        check(location.startswith(redirect + "?") and back.get("state") == state and back.get("iss") == BASE
              and back.get("code"), f"{label}: the 302 goes to the loopback URI with code, state and iss", location)
        token = app.fetch_token(meta["token_endpoint"], authorization_response=location, code_verifier=verifier)
        check(token.get("token_type") == "Bearer" and token.get("expires_in") == 3600
              and token.get("scope") == "read write" and token.get("refresh_token", "").startswith("rt."),
              f"{label}: Authlib's client gets Bearer tokens for 'read write', 3600 s, a refresh token", token)
        me = app.get(BASE + "/api/me")
        check(me.status_code == 200 and me.json() == {"sub": USER, "client_id": PUBLIC_ID, "scope": "read write"},
              f"{label}: GET /api/me with Authlib's Bearer", f"{me.status_code} {me.text}")
        again = http_session().post(meta["token_endpoint"], data={
            "grant_type": "authorization_code", "code": back.get("code"), "redirect_uri": redirect,
            "client_id": PUBLIC_ID, "code_verifier": verifier})
        check(again.status_code == 400 and again.json().get("error") == "invalid_grant",
              f"{label}: a redeemed code is refused (invalid_grant)", f"{again.status_code} {again.text}")
        seen = app.introspect_token(meta["introspection_endpoint"], token=token["access_token"]).json()
        check(seen.get("active") is True and seen.get("client_id") == PUBLIC_ID and seen.get("scope") == "read write"
              and seen.get("sub") == USER, f"{label}: RFC 7662 introspection of the access token", seen)
        renewed = app.refresh_token(meta["token_endpoint"], refresh_token=token["refresh_token"])
        check(renewed.get("refresh_token", "").startswith("rt.") and renewed["refresh_token"] != token["refresh_token"],
              f"{label}: the refresh token rotates", renewed)
        reused = http_session().post(meta["token_endpoint"], data={
            "grant_type": "refresh_token", "refresh_token": token["refresh_token"], "client_id": PUBLIC_ID})
        check(reused.status_code == 400 and reused.json().get("error") == "invalid_grant",
              f"{label}: the rotated refresh token is refused (invalid_grant)", f"{reused.status_code} {reused.text}")
        revoked = app.revoke_token(meta["revocation_endpoint"], token=renewed["refresh_token"],
                                   token_type_hint="refresh_token")
        check(revoked.status_code == 200, f"{label}: RFC 7009 revocation answers 200", revoked.status_code)
        seen = app.introspect_token(meta["introspection_endpoint"], token=renewed["access_token"]).json()
        check(seen == {"active": False}, f"{label}: revoking the refresh token revoked its access token", seen)
        me = http_session().get(BASE + "/api/me", headers={"Authorization": "Bearer " + renewed["access_token"]})
        check(me.status_code == 401 and 'error="invalid_token"' in me.headers.get("WWW-Authenticate", "")
              and me.headers["WWW-Authenticate"].startswith(f'Bearer realm="{REALM}"'),
              f"{label}: a revoked access token gets an RFC 6750 invalid_token challenge",
              f"{me.status_code} {me.headers.get('WWW-Authenticate')}")

    # PKCE is required and S256 only; a wrong verifier fails; the loopback path must match.
    challenge = create_s256_code_challenge("v" * 43)
    base_query = {"response_type": "code", "client_id": PUBLIC_ID, "redirect_uri": redirect, "state": "s1"}
    for extra, why in (({}, "without code_challenge"),
                       ({"code_challenge": "v" * 43, "code_challenge_method": "plain"}, "with method plain"),
                       ({"code_challenge": challenge}, "without code_challenge_method")):
        answer = BROWSER.get(meta["authorization_endpoint"], params={**base_query, **extra}, allow_redirects=False)
        back = query_of(answer.headers.get("Location", ""))
        check(answer.status_code == 302 and back.get("error") == "invalid_request" and back.get("state") == "s1"
              and back.get("iss") == BASE, f"{label}: an authorization request {why} is refused (invalid_request)",
              f"{answer.status_code} {answer.headers.get('Location')} {answer.text[:200]!r}")
    answer = BROWSER.get(meta["authorization_endpoint"], allow_redirects=False, params={
        **base_query, "redirect_uri": "http://127.0.0.1:49152/elsewhere", "code_challenge": challenge,
        "code_challenge_method": "S256"})
    check(answer.status_code == 400 and "Location" not in answer.headers,
          f"{label}: an unregistered loopback path is refused without a redirect", answer.status_code)
    location = play_browser(meta["authorization_endpoint"] + "?" + urllib.parse.urlencode(
        {**base_query, "scope": "read", "code_challenge": challenge, "code_challenge_method": "S256",
         "redirect_uri": "http://127.0.0.1:1234/callback"}))
    if location:
        wrong = http_session().post(meta["token_endpoint"], data={
            "grant_type": "authorization_code", "code": query_of(location).get("code"), "client_id": PUBLIC_ID,
            "redirect_uri": "http://127.0.0.1:1234/callback", "code_verifier": "w" * 43})
        check(wrong.status_code == 400 and wrong.json().get("error") == "invalid_grant",
              f"{label}: a wrong code_verifier is refused (invalid_grant)", f"{wrong.status_code} {wrong.text}")
    location = play_browser(meta["authorization_endpoint"] + "?" + urllib.parse.urlencode(
        {**base_query, "code_challenge": challenge, "code_challenge_method": "S256"}), action="deny")
    back = query_of(location or "")
    check(back.get("error") == "access_denied" and back.get("state") == "s1" and back.get("iss") == BASE,
          f"{label}: a refusal redirects with access_denied, state and iss", location)

    # The device grant: slow_down once, then pending, then the tokens after approval.
    device = http_session().post(meta["device_authorization_endpoint"], data={"client_id": PUBLIC_ID}).json()
    check(device.get("interval") == DEVICE_INTERVAL and re.fullmatch(r"[B-Z]{4}-[B-Z]{4}", device.get("user_code", ""))
          and device.get("verification_uri") == BASE + "/device"
          and device.get("verification_uri_complete") == f"{BASE}/device?user_code={device.get('user_code')}",
          f"{label}: RFC 8628 §3.2 device authorization response", device)
    poll = {"grant_type": DeviceCodeGrant.GRANT_TYPE, "device_code": device.get("device_code"), "client_id": PUBLIC_ID}
    answers = [http_session().post(meta["token_endpoint"], data=poll).json().get("error") for _ in range(2)]
    check(answers == ["slow_down", "authorization_pending"], f"{label}: device polls: slow_down, then pending", answers)
    approved = http_session().post(BASE + "/device", data={"user_code": device.get("user_code"), "action": "approve"})
    token = http_session().post(meta["token_endpoint"], data=poll).json()
    check(approved.status_code == 200 and token.get("scope") == "read"
          and token.get("access_token", "").startswith("at."),
          f"{label}: the approved device code gets tokens for the default scope", token)

    # client_credentials: Basic with §2.3.1 encoding; Authlib's client with client_secret_post.
    good = http_session().post(meta["token_endpoint"], data={"grant_type": "client_credentials", "scope": "read"},
                               headers={"Authorization": SERVICE_BASIC})
    check(good.status_code == 200 and good.json().get("scope") == "read" and "refresh_token" not in good.json(),
          f"{label}: client_credentials with the §2.3.1-encoded Basic field", f"{good.status_code} {good.text}")
    raw = "Basic " + base64.b64encode(f"{SERVICE_ID}:{SERVICE_SECRET}".encode()).decode()
    bad = http_session().post(meta["token_endpoint"], data={"grant_type": "client_credentials"},
                              headers={"Authorization": raw})
    check(bad.status_code == 401 and bad.json().get("error") == "invalid_client",
          f"{label}: the same secret in Basic without the §2.3.1 encoding is refused (401 invalid_client)",
          f"{bad.status_code} {bad.text}")
    service = OAuth2Session(SERVICE_ID, SERVICE_SECRET, token_endpoint_auth_method="client_secret_post", scope="read")
    service.trust_env = False
    token = service.fetch_token(meta["token_endpoint"], grant_type="client_credentials")
    me = http_session().get(BASE + "/api/me", headers={"Authorization": "Bearer " + token["access_token"]})
    check(me.status_code == 200 and me.json() == {"sub": SERVICE_ID, "client_id": SERVICE_ID, "scope": "read"},
          f"{label}: Authlib's client_credentials token (client_secret_post) on /api/me", f"{me.status_code} {me.text}")
    none = http_session().get(BASE + "/api/me")
    check(none.status_code == 401 and none.headers.get("WWW-Authenticate") == f'Bearer realm="{REALM}"',
          f"{label}: /api/me without credentials: 401 and a bare Bearer challenge (RFC 6750 §3.1)",
          f"{none.status_code} {none.headers.get('WWW-Authenticate')}")
    with STATE.lock:
        STATE.log.clear()


# ---------------------------------------------------------------------------------------------
# 2. remote-auth against it.
# ---------------------------------------------------------------------------------------------

# Every remote-auth command line, in one place.
CLI = {
    "authorize": lambda profile, timeout=TIMEOUT: [
        "authorize", "oauth2", "--profile", profile, "--issuer", BASE, "--client-id", PUBLIC_ID,
        "--scope", "read write", "--no-browser", "--timeout", str(timeout)],
    "device": lambda profile: [
        "authorize", "oauth2", "--device", "--profile", profile, "--issuer", BASE, "--client-id", PUBLIC_ID],
    "client-credentials": lambda profile: [
        "authorize", "oauth2", "--client-credentials", "--profile", profile, "--issuer", BASE,
        "--client-id", SERVICE_ID, "--client-secret", "-", "--scope", "read"],
    "request": lambda profile, url: ["request", "--profile", profile, url],
    "token": lambda profile: ["token", "--profile", profile],
    "revoke": lambda profile: ["revoke", "--profile", profile],
}


def Command(args, stdin=subprocess.DEVNULL):
    """`remote-auth ARGS` in the background (harness.Command), with this script's binary and environment."""
    return harness.Command(BINARY, args, ENV, stdin=stdin, timeout=TIMEOUT)


def run(args, stdin_text=None):
    command = Command(args, stdin=subprocess.PIPE if stdin_text is not None else subprocess.DEVNULL)
    if stdin_text is not None:
        command.process.stdin.write(stdin_text.encode())
        command.process.stdin.close()
    command.wait()
    return command


def tokens_file():
    return os.path.join(HOME, "tokens.json")


def entries():
    try:
        with open(tokens_file()) as f:
            return json.load(f)
    except FileNotFoundError:
        return []


def entry_of(profile):
    return next((e for e in entries() if e["key"]["service"] == profile), None)


def oauth2_of(profile):
    entry = entry_of(profile)
    return entry["session"].get("oauth2") if entry else None


def check_saved(profile, label, access, refresh, client_id, auth, secret, scope, ttl, issued_at, grant):
    """tokens.json holds exactly the session the server's tokens make, and is 0600."""
    entry = entry_of(profile)
    if not check(entry is not None, f"{label}: profile '{profile}' in tokens.json", [e["key"] for e in entries()]):
        return
    mode = stat.S_IMODE(os.stat(tokens_file()).st_mode)
    check(mode == 0o600, f"{label}: tokens.json is mode 0600", oct(mode))
    check(entry["key"] == {"service": profile, "account": client_id} and entry["session"].get("kind") == "oauth2",
          f"{label}: the key is {{service: {profile}, account: {client_id}}} and the kind oauth2",
          {"key": entry["key"], "kind": entry["session"].get("kind")})
    saved = entry["session"].get("oauth2") or {}
    tokens = dict(saved.get("tokens") or {})
    expires_at = tokens.pop("expiresAt", None)
    expected = {"accessToken": access, "tokenType": "Bearer", "scope": scope.split()}
    if refresh is not None:
        expected["refreshToken"] = refresh
    check(tokens == expected, f"{label}: the saved tokens are the issued ones, exactly",
          {k: (v[:12] + "…" if isinstance(v, str) and k.endswith("Token") else v) for k, v in tokens.items()})
    check(isinstance(expires_at, int) and issued_at + ttl - 1 <= expires_at <= issued_at + ttl + 1,
          f"{label}: expiresAt is the response time + expires_in ({ttl} s)",
          f"expiresAt {expires_at}, issued at {issued_at:.0f}")
    rest = {k: v for k, v in saved.items() if k != "tokens"}
    # The server as discovered: every endpoint, and the metadata document exactly as served.
    server = {"issuer": BASE, "authorizationEndpoint": BASE + "/authorize", "tokenEndpoint": BASE + "/token",
              "deviceAuthorizationEndpoint": BASE + "/device_authorization", "revocationEndpoint": BASE + "/revoke",
              "introspectionEndpoint": BASE + "/introspect", "requiresIssuerParameter": True,
              "requiresPushedAuthorizationRequests": False, "metadata": metadata()}
    registration = {"clientID": client_id, "authenticationMethod": auth}
    if secret is not None:
        registration["clientSecret"] = secret
    wanted = {"server": server, "registration": registration, "scope": scope.split(), "resourceOrigins": [BASE],
              "grant": grant}
    shown = dict(rest)
    if "clientSecret" in (shown.get("registration") or {}):
        shown["registration"] = dict(shown["registration"], clientSecret="<secret>")
    check(rest == wanted, f"{label}: the saved session's server, client registration and origins", shown)


def issued_since(mark, grant_type):
    """The access and refresh tokens of the successful token responses of `grant_type` since `mark`."""
    out = []
    for e in grants_since(mark, grant_type):
        if e["status"] == 200:
            body = json.loads(e["body"])
            out.append((body.get("access_token"), body.get("refresh_token"), body.get("expires_in"), e["wall"]))
    return out


def sign_in(profile):
    """The code grant through the loopback listener; returns (access, refresh) or None. The
    access token it gets lives SHORT_TTL seconds."""
    label = f"authorize oauth2 --no-browser ({profile})"
    mark = log_mark()
    with STATE.lock:
        STATE.ttl = SHORT_TTL
    try:
        return sign_in_with(profile, label, mark)
    finally:
        with STATE.lock:
            STATE.ttl = 3600


def sign_in_with(profile, label, mark):
    command = Command(CLI["authorize"](profile))
    match = command.line_matching(r"^(http://127\.0\.0\.1:\d+/authorize\?\S+)$")
    if not check(match is not None, f"{label}: a line holding only the authorization URL", command.describe()):
        command.kill()
        return None
    url = match.group(1)
    q = query_of(url)
    redirect = urllib.parse.urlsplit(q.get("redirect_uri", ""))
    check(url.startswith(BASE + "/authorize?") and q.get("response_type") == "code" and q.get("client_id") == PUBLIC_ID
          and q.get("scope") == "read write" and q.get("code_challenge_method") == "S256"
          and re.fullmatch(r"[A-Za-z0-9_-]{43}", q.get("code_challenge", ""))
          and len(q.get("state", "")) >= 22 and redirect.scheme == "http" and redirect.hostname == "127.0.0.1"
          and redirect.port and redirect.path == "/callback",
          f"{label}: the URL asks for a code with PKCE S256, a state of >= 128 bits and a loopback redirect", url)
    location = play_browser(url)
    if not location:
        command.kill()
        return None
    back = query_of(location)
    check(location.startswith(q.get("redirect_uri", "?") + "?") and back.get("state") == q.get("state")
          and back.get("iss") == BASE and back.get("code"),
          f"{label}: the server redirects to the command's listener with code, state and iss", location)
    try:
        answer = http_session().get(location, timeout=TIMEOUT)
        check(answer.status_code == 200, f"{label}: the listener answers the browser 200",
              f"{answer.status_code} {answer.text[:200]!r}")
    except requests.RequestException as error:
        check(False, f"{label}: GET {location} (the command's listener)", repr(error))
    code = command.wait()
    issued = issued_since(mark, "authorization_code")
    if not check(code == 0 and len(issued) == 1, f"{label}: exit 0 after exactly one code redeemed",
                 f"{command.describe()}; token responses: "
                 f"{[(e['status'], e.get('error')) for e in grants_since(mark, 'authorization_code')]}"):
        return None
    redeemed = grants_since(mark, "authorization_code")[0]
    form = dict(redeemed["form"])
    check(form.get("client_id") == PUBLIC_ID and form.get("redirect_uri") == q.get("redirect_uri")
          and create_s256_code_challenge(form.get("code_verifier", "")) == q.get("code_challenge")
          and len(form.get("code_verifier", "")) >= 43 and "client_secret" not in form
          and redeemed["authorization"] is None,
          f"{label}: the token request: client_id, the same redirect_uri, the verifier of the challenge, no secret",
          {k: v for k, v in form.items() if k != "code"})
    access, refresh, ttl, at = issued[0]
    check_saved(profile, label, access, refresh, PUBLIC_ID, "none", None, "read write", ttl, at, "authorization_code")
    return access, refresh


def request_me(profile, label):
    mark = log_mark()
    command = run(CLI["request"](profile, BASE + "/api/me"))
    try:
        body = json.loads("\n".join(command.stdout))
    except ValueError:
        body = None
    ok = check(command.process.returncode == 0 and body == {"sub": USER, "client_id": PUBLIC_ID, "scope": "read write"},
               f"{label}: `request --profile {profile} {BASE}/api/me` prints the resource's JSON", command.describe())
    return ok, mark


def refresh_step(profile, label, old_refresh, expected_calls):
    """`request` that must refresh exactly once with `old_refresh`; returns (access, refresh) or None."""
    ok, mark = request_me(profile, label)
    renewed = issued_since(mark, "refresh_token")
    refreshes = grants_since(mark, "refresh_token")
    me = log_since(mark, "/api/me")
    if not check(len(refreshes) == 1 and len(renewed) == 1
                 and dict(refreshes[0]["form"]).get("refresh_token") == old_refresh,
                 f"{label}: exactly one refresh_token grant, with the current refresh token",
                 [(e["status"], e.get("error")) for e in refreshes]):
        return None
    access, refresh, _, _ = renewed[0]
    calls = [(e["status"], e.get("bearer")) for e in me]
    check(calls == [(status, access if bearer == "new" else None) for status, bearer in expected_calls],
          f"{label}: the calls /api/me saw: {expected_calls}", calls)
    form = dict(refreshes[0]["form"])
    check(form.get("client_id") == PUBLIC_ID and "client_secret" not in form and refreshes[0]["authorization"] is None,
          f"{label}: the refresh names client_id (a public client) and nothing secret", sorted(form))
    reused = http_session().post(BASE + "/token", data={"grant_type": "refresh_token", "refresh_token": old_refresh,
                                                         "client_id": PUBLIC_ID})
    check(reused.status_code == 400 and reused.json().get("error") == "invalid_grant",
          f"{label}: the rotated-out refresh token is now refused (invalid_grant)",
          f"{reused.status_code} {reused.text}")
    saved = (oauth2_of(profile) or {}).get("tokens", {})
    check(saved.get("accessToken") == access and saved.get("refreshToken") == refresh,
          f"{label}: the rotated tokens were saved to tokens.json")
    return access, refresh


def refresh_sequence(profile, access, refresh):
    # The sign-in's access token lived SHORT_TTL s: used after it expired, it is refreshed first
    # (whatever the client's skew), and the expired token is never sent.
    time.sleep(SHORT_TTL + 1)
    renewed = refresh_step(profile, "request after expiry", refresh, [(200, "new")])
    if not renewed:
        return
    access, refresh = renewed

    # Bearer and `token` with tokens that are valid for an hour: no refresh.
    ok, mark = request_me(profile, "request with a valid token")
    me = log_since(mark, "/api/me")
    check([e.get("bearer") for e in me] == [access] and not grants_since(mark, "refresh_token"),
          "request with a valid token: one call with the current access token, no refresh",
          [(e["status"], e.get("bearer")) for e in me])
    mark = log_mark()
    command = run(CLI["token"](profile))
    check(command.process.returncode == 0 and command.stdout == [access] and not grants_since(mark, "refresh_token"),
          f"token --profile {profile}: only the current access token on stdout, no refresh", command.describe())

    # A 401 invalid_token: the server revoked the access token behind the client's back. One
    # refresh, one retry.
    with STATE.lock:
        STATE.access[access].revoked, STATE.access[access].why = True, "killed"
    mark = log_mark()
    renewed = refresh_step(profile, "request after a 401 invalid_token", refresh, [(401, None), (200, "new")])
    me = log_since(mark, "/api/me")
    check(bool(me) and 'error="invalid_token"' in dict(me[0]["headers"]).get("WWW-Authenticate", ""),
          "request after a 401: the refusal carried an RFC 6750 invalid_token challenge")
    if not renewed:
        return
    access, refresh = renewed
    mark = log_mark()
    command = run(CLI["token"](profile))
    check(command.process.returncode == 0 and command.stdout == [access] and not grants_since(mark, "refresh_token"),
          "token after the refreshes: the renewed access token, no further refresh", command.describe())


def revoke_profile(profile):
    """`revoke`: the server sees the current tokens revoked, and the profile is gone."""
    saved = (oauth2_of(profile) or {}).get("tokens", {})
    access3, refresh3 = saved.get("accessToken"), saved.get("refreshToken")
    if not check(access3 in STATE.access and refresh3 in STATE.refresh,
                 f"revoke: profile '{profile}' holds tokens the server issued", sorted(saved)):
        return
    mark = log_mark()
    command = run(CLI["revoke"](profile))
    revocations = log_since(mark, "/revoke")
    revoked = [dict(e["form"]).get("token") for e in revocations if e["status"] == 200]
    check(command.process.returncode == 0 and refresh3 in revoked and set(revoked) <= {access3, refresh3},
          f"revoke --profile {profile}: the server revoked the refresh token (200)",
          f"{command.describe()}; revocations: {[(e['status'], e['form']) for e in revocations]}")
    check(revocations and all(dict(e["form"]).get("client_id") == PUBLIC_ID for e in revocations),
          "revoke: each revocation request names client_id", [e["form"] for e in revocations])
    with STATE.lock:
        dead = STATE.refresh[refresh3].revoked and STATE.access[access3].revoked
    check(dead, "revoke: the refresh token and its access token are dead at the server")
    check(entry_of(profile) is None, "revoke: the profile is gone from tokens.json", [e["key"] for e in entries()])
    mark = log_mark()
    command = run(CLI["token"](profile))
    check(command.process.returncode != 0 and command.stdout == [] and not log_since(mark),
          f"token --profile {profile} after revoke: fails, prints nothing, asks the server nothing", command.describe())


def refused_sign_in(profile, label, reason, tamper=None, action="approve", iss=None):
    """A code-grant sign-in whose callback must be refused: exit non-zero naming `reason` on
    stderr, nothing saved, no code redeemed."""
    mark = log_mark()
    command = Command(CLI["authorize"](profile, timeout=10))
    match = command.line_matching(r"^(http://127\.0\.0\.1:\d+/authorize\?\S+)$")
    if not check(match is not None, f"{label}: a line holding only the authorization URL", command.describe()):
        command.kill()
        return
    with STATE.lock:
        STATE.issuer_override = iss
    try:
        location = play_browser(match.group(1), action=action)
    finally:
        with STATE.lock:
            STATE.issuer_override = None
    if location is None:
        command.kill()
        return
    if tamper:
        location = tamper(location)
    try:
        http_session().get(location, timeout=15)
    except requests.RequestException:
        pass  # a listener may close without answering a refused callback
    code = command.wait(seconds=30)
    check(code not in (0, None) and reason in command.stderr.decode("utf-8", "replace")
          and entry_of(profile) is None and not grants_since(mark, "authorization_code"),
          f"{label}: the command fails naming {reason!r}, saves nothing and redeems no code",
          f"{command.describe()}; code grants: {len(grants_since(mark, 'authorization_code'))}")


def device_sign_in(profile):
    label = "authorize oauth2 --device"
    mark = log_mark()
    command = Command(CLI["device"](profile))
    match = command.line_matching(r"\b([B-Z]{4}-[B-Z]{4})\b", seconds=20)
    with STATE.lock:
        issued = {d["user_code"]: d for d in STATE.devices.values()}
    if not check(match is not None and match.group(1) in issued,
                 f"{label}: prints the user code the server issued", command.describe()):
        command.kill()
        return
    user_code = match.group(1)
    credential = issued[user_code]
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and len(credential["polls"]) < 2 and command.process.poll() is None:
        time.sleep(0.05)
    check(BASE + "/device" in "\n".join(command.stdout),
          f"{label}: prints the verification URI", command.stdout)
    answers = [answer for _, answer in credential["polls"]]
    check(answers == ["slow_down", "authorization_pending"], f"{label}: polled through slow_down, then pending",
          answers)
    page = http_session().get(credential["verification_uri_complete"])
    approve = http_session().post(BASE + "/device", data={"user_code": user_code, "action": "approve"})
    check(page.status_code == 200 and approve.status_code == 200, f"{label}: approved on /device",
          f"{page.status_code} {approve.status_code}")
    code = command.wait()
    issued_tokens = issued_since(mark, DeviceCodeGrant.GRANT_TYPE)
    times = [credential["issued"]] + [t for t, _ in credential["polls"]]
    gaps = [round(b - a, 2) for a, b in zip(times, times[1:])]
    answers = [answer for _, answer in credential["polls"]]
    if not check(code == 0 and answers == ["slow_down", "authorization_pending", "approved"]
                 and len(issued_tokens) == 1,
                 f"{label}: exit 0 after slow_down, pending, then the tokens",
                 f"{command.describe()}; polls {answers}"):
        return
    check(gaps[0] >= DEVICE_INTERVAL - 0.05, f"{label}: waited the {DEVICE_INTERVAL} s interval before the first poll",
          gaps)
    check(len(gaps) == 3 and all(g >= DEVICE_INTERVAL + SLOW_DOWN - 0.05 for g in gaps[1:]),
          f"{label}: after slow_down every poll waited {DEVICE_INTERVAL} + {SLOW_DOWN} s (RFC 8628 §3.5)", gaps)
    polls = grants_since(mark, DeviceCodeGrant.GRANT_TYPE)
    check(polls and all(dict(e["form"]).get("client_id") == PUBLIC_ID
                        and dict(e["form"]).get("device_code") == credential["device_code"] for e in polls),
          f"{label}: every poll names client_id and the device code", len(polls))
    access, refresh, ttl, at = issued_tokens[0]
    check_saved(profile, label, access, refresh, PUBLIC_ID, "none", None, "read", ttl, at,
                "urn:ietf:params:oauth:grant-type:device_code")
    mark = log_mark()
    command = run(CLI["request"](profile, BASE + "/api/me"))
    me = log_since(mark, "/api/me")
    check(command.process.returncode == 0 and [e.get("bearer") for e in me] == [access]
          and json.loads("\n".join(command.stdout) or "null") == {"sub": USER, "client_id": PUBLIC_ID, "scope": "read"},
          f"request --profile {profile}: the device grant's token on /api/me", command.describe())


def client_credentials(profile):
    label = "authorize oauth2 --client-credentials"
    mark = log_mark()
    command = run(CLI["client-credentials"](profile), stdin_text=SERVICE_SECRET + "\n")
    calls = grants_since(mark, "client_credentials")
    issued = issued_since(mark, "client_credentials")
    check(len(calls) >= 1 and calls[0]["authorization"] == SERVICE_BASIC,
          f"{label}: the Basic field is exactly {SERVICE_BASIC} (RFC 6749 §2.3.1 form-encoding)",
          [e["authorization"] for e in calls])
    check(calls and all("client_secret" not in dict(e["form"]) for e in calls),
          f"{label}: the secret is not in the body as well", [list(dict(e["form"])) for e in calls])
    if not check(command.process.returncode == 0 and len(issued) == 1,
                 f"{label}: exit 0 after one client_credentials grant",
                 f"{command.describe()}; {[(e['status'], e.get('error')) for e in calls]}"):
        return
    check(SERVICE_SECRET not in "\n".join(command.stdout) + command.stderr.decode("utf-8", "replace"),
          f"{label}: the secret is never printed")
    access, refresh, ttl, at = issued[0]
    check(refresh is None, f"{label}: no refresh token issued (RFC 6749 §4.4.3)")
    check_saved(profile, label, access, None, SERVICE_ID, "client_secret_basic", SERVICE_SECRET, "read", ttl, at,
                "client_credentials")
    mark = log_mark()
    command = run(CLI["request"](profile, BASE + "/api/me"))
    me = log_since(mark, "/api/me")
    check(command.process.returncode == 0 and [e.get("bearer") for e in me] == [access]
          and json.loads("\n".join(command.stdout) or "null") == {"sub": SERVICE_ID, "client_id": SERVICE_ID,
                                                                  "scope": "read"},
          f"request --profile {profile}: the client's token on /api/me", command.describe())


# ---------------------------------------------------------------------------------------------

threading.Thread(target=HTTPD.serve_forever, daemon=True).start()
HOME = tempfile.mkdtemp(prefix="remote-auth-authlib-")
ENV = {k: v for k, v in os.environ.items() if not k.startswith("REMOTE_AUTH_")}
ENV["REMOTE_AUTH_HOME"] = HOME
try:
    self_check()
    if check(os.access(BINARY, os.X_OK), f"{BINARY} is an executable"):
        signed_in = sign_in("code")
        if signed_in:
            refresh_sequence("code", *signed_in)
            revoke_profile("code")
        else:
            check(False, "no refresh, token or revoke checks: the sign-in failed")
        refused_sign_in("wrong-iss", "a callback whose iss is not the issuer (RFC 9207)", "iss",
                        iss="http://127.0.0.1:9")
        refused_sign_in("wrong-state", "a callback whose state was changed", "state",
                        tamper=lambda loc: re.sub(r"([?&]state=)[^&]*", r"\1" + "A" * 43, loc))
        refused_sign_in("denied", "a refusal (access_denied)", "access_denied", action="deny")
        device_sign_in("device")
        client_credentials("service")
    with STATE.lock:
        problems = [e for e in STATE.log if e.get("problem")]
    for entry in problems:
        check(False, f"the server failed on {entry['method']} {entry['path']}", entry["problem"])
except Exception:  # a bug in this script, or a command that could not start: still end with the count
    check(False, "the script stopped", traceback.format_exc())
finally:
    HTTPD.shutdown()
    shutil.rmtree(HOME, ignore_errors=True)

CHECKS.finish()
