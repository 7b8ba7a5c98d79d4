#!/usr/bin/env python3
"""Interop: OpenID Connect and private_key_jwt between RemoteAuth and Authlib, both ways.

Part 1. An OpenID provider built here on Authlib's server side (authlib.oauth2.rfc6749's
AuthorizationServer with the AuthorizationCodeGrant, RFC 7636's CodeChallenge, authlib.oidc.core's
OpenIDCode extension signing RS256 ID tokens, and RFC 7523's JWTBearerClientAssertion checking
`private_key_jwt`), served by http.server on 127.0.0.1. Nobody here wrote it. `remote-auth
authorize oauth2 --oidc --client-auth private-key-jwt --client-key PEM` signs in to it:

  - Authlib verifies every client assertion (signature with the registered P-256 key, iss = sub =
    the client id, aud = the token endpoint, exp, a jti never seen before);
  - remote-auth validates the ID token Authlib signed (discovery, JWKS, nonce, at_hash, iss,
    aud, exp) and prints its claims, never the token;
  - `remote-auth token --profile` refreshes with a new assertion (the key read again from the
    path kept with the profile);
  - an ID token with another nonce, and one signed by a key that is not in the JWKS, make the
    sign-in fail and save nothing.

Part 2. Authlib's client side drives the sandbox's OpenID provider (`remote-auth sandbox
--auto-approve`): discovery, the code flow with PKCE and a nonce (OAuth2Session), the ID token
verified with the sandbox's JWKS by joserfc and its claims by authlib.oidc.core.CodeIDToken
(iss, aud, exp, iat, nonce, at_hash), for an RS256 and an ES256 client; then UserInfo; then
Authlib's own PrivateKeyJWT client authentication accepted by the sandbox, and replayed refused.

Usage: authlib_oidc.py REMOTE_AUTH_BINARY
Ends with 'authlib-oidc: N passed, M failed'; exits 1 on any failure.
"""
import base64
import http.server
import json
import os
import secrets
import subprocess
import sys
import tempfile
import threading
import time
import traceback
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
os.environ["AUTHLIB_INSECURE_TRANSPORT"] = "1"

import requests  # noqa: E402
from authlib.common.security import generate_token  # noqa: E402
from authlib.integrations.requests_client import OAuth2Session  # noqa: E402
from authlib.oauth2.rfc6749 import AuthorizationServer, ClientMixin, grants  # noqa: E402
from authlib.oauth2.rfc6749 import OAuth2Request  # noqa: E402
from authlib.oauth2.rfc6749.requests import OAuth2Payload  # noqa: E402
from authlib.oauth2.rfc6750 import BearerTokenGenerator  # noqa: E402
from authlib.oauth2.rfc7523 import JWTBearerClientAssertion, PrivateKeyJWT  # noqa: E402
from authlib.oauth2.rfc7636 import CodeChallenge  # noqa: E402
from authlib.oidc.core import CodeIDToken  # noqa: E402
from authlib.oidc.core.grants import OpenIDCode  # noqa: E402
from cryptography.hazmat.primitives import serialization  # noqa: E402
from cryptography.hazmat.primitives.asymmetric import ec  # noqa: E402
from joserfc import jwt as jose_jwt  # noqa: E402
from joserfc.jwk import ECKey, KeySet, RSAKey  # noqa: E402

import harness  # noqa: E402
from harness import Checks  # noqa: E402

BINARY = sys.argv[1]
CHECKS = Checks("authlib-oidc")
check = CHECKS.check
USER = "alice"
CLIENT_ID = "oidc-cli"

# The client's P-256 key: the PEM for remote-auth, the public JWK (kid = its RFC 7638
# thumbprint, which is the kid remote-auth puts in its assertions) registered with the provider.
_private = ec.generate_private_key(ec.SECP256R1())
CLIENT_PEM = _private.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                    serialization.NoEncryption()).decode()
CLIENT_KEY = ECKey.import_key(CLIENT_PEM)
CLIENT_JWK = CLIENT_KEY.as_dict(private=False)
CLIENT_JWK["kid"] = CLIENT_KEY.thumbprint()
OP_KEY = RSAKey.generate_key(2048, parameters={"kid": "op-rsa-1", "use": "sig", "alg": "RS256"})
STRAY_KEY = RSAKey.generate_key(2048, parameters={"kid": "op-rsa-1", "use": "sig", "alg": "RS256"})


class State:
    def __init__(self):
        self.lock = threading.Lock()
        self.codes, self.access, self.refresh, self.jtis, self.log = {}, {}, {}, set(), []
        self.tamper = None  # "nonce" or "key": the next ID tokens are wrong that way


STATE = State()
BASE = ""


class Client(ClientMixin):
    client_id = CLIENT_ID

    def get_client_id(self):
        return CLIENT_ID

    def get_default_redirect_uri(self):
        return None

    def get_allowed_scope(self, scope):
        return " ".join(s for s in (scope or "").split() if s in ("openid", "profile", "email"))

    def check_redirect_uri(self, redirect_uri):
        parts = urllib.parse.urlsplit(redirect_uri or "")
        return parts.scheme == "http" and parts.hostname == "127.0.0.1" and parts.path == "/callback"

    def check_client_secret(self, client_secret):
        return False

    def check_endpoint_auth_method(self, method, endpoint):
        return method == "private_key_jwt"

    def check_response_type(self, response_type):
        return response_type == "code"

    def check_grant_type(self, grant_type):
        return grant_type in ("authorization_code", "refresh_token")


class Code:
    def __init__(self, code, redirect_uri, scope, nonce, challenge):
        self.code, self.redirect_uri, self.scope, self.nonce = code, redirect_uri, scope, nonce
        self.code_challenge, self.code_challenge_method = challenge, "S256"
        self.auth_time = int(time.time())

    def get_redirect_uri(self):
        return self.redirect_uri

    def get_scope(self):
        return self.scope

    def get_nonce(self):
        return self.nonce

    def get_auth_time(self):
        return self.auth_time

    def get_acr(self):
        return None

    def get_amr(self):
        return None


class Token:
    def __init__(self, scope, user):
        self.scope, self.user, self.revoked = scope, user, False

    def check_client(self, client):
        return True

    def get_scope(self):
        return self.scope

    def is_expired(self):
        return False

    def is_revoked(self):
        return self.revoked

    def get_user(self):
        return self.user


class Payload(OAuth2Payload):
    def __init__(self, pairs):
        self._data = dict(pairs)
        self._datalist = {}
        for name, value in pairs:
            self._datalist.setdefault(name, []).append(value)

    @property
    def data(self):
        return self._data

    @property
    def datalist(self):
        return self._datalist


class Request(OAuth2Request):
    def __init__(self, raw):
        super().__init__(raw["method"], raw["uri"], headers=raw["headers"])
        self._args, self._form = dict(raw["query"]), dict(raw["form"])
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
        self.body = json.dumps(body) if isinstance(body, (dict, list)) else (body or "")


class Server(AuthorizationServer):
    def query_client(self, client_id):
        return Client() if client_id == CLIENT_ID else None

    def save_token(self, token, request):
        user = request.user if request.user else request.refresh_token.user
        with STATE.lock:
            STATE.access[token["access_token"]] = Token(token.get("scope"), user)
            if "refresh_token" in token:
                STATE.refresh[token["refresh_token"]] = Token(token.get("scope"), user)

    def send_signal(self, name, *args, **kwargs):
        pass

    def create_oauth2_request(self, request):
        return request if isinstance(request, OAuth2Request) else Request(request)

    def create_json_request(self, request):
        raise NotImplementedError

    def handle_response(self, status, body, headers):
        return Response(status, body, headers)


class PrivateKeyJWTAuth(JWTBearerClientAssertion):
    """RFC 7523 §2.2 as Authlib implements it, the audience being the token endpoint."""
    CLIENT_AUTH_METHOD = "private_key_jwt"

    def get_audiences(self):
        return [BASE + "/token"]

    def validate_jti(self, claims, jti):
        with STATE.lock:
            if jti in STATE.jtis:
                return False
            STATE.jtis.add(jti)
            return True

    def resolve_client_public_key(self, client):
        return KeySet.import_key_set({"keys": [CLIENT_JWK]})


class S256(CodeChallenge):
    SUPPORTED_CODE_CHALLENGE_METHOD = ["S256"]


class CodeGrant(grants.AuthorizationCodeGrant):
    TOKEN_ENDPOINT_AUTH_METHODS = ["private_key_jwt"]

    def save_authorization_code(self, code, request):
        data = request.payload.data
        with STATE.lock:
            STATE.codes[code] = Code(code, data.get("redirect_uri"), request.scope, data.get("nonce"),
                                     data.get("code_challenge"))

    def query_authorization_code(self, code, client):
        with STATE.lock:
            return STATE.codes.get(code)

    def delete_authorization_code(self, authorization_code):
        with STATE.lock:
            STATE.codes.pop(authorization_code.code, None)

    def authenticate_user(self, authorization_code):
        return USER


class RefreshGrant(grants.RefreshTokenGrant):
    TOKEN_ENDPOINT_AUTH_METHODS = ["private_key_jwt"]
    INCLUDE_NEW_REFRESH_TOKEN = True

    def authenticate_refresh_token(self, refresh_token):
        with STATE.lock:
            token = STATE.refresh.get(refresh_token)
        return token if token and not token.revoked else None

    def authenticate_user(self, refresh_token):
        return refresh_token.user

    def revoke_old_credential(self, refresh_token):
        refresh_token.revoked = True


class OpenID(OpenIDCode):
    def exists_nonce(self, nonce, request):
        return False

    def resolve_client_private_key(self, client):
        return STRAY_KEY if STATE.tamper == "key" else OP_KEY

    def get_client_claims(self, client):
        return {"iss": BASE, "aud": [CLIENT_ID]}

    def get_encode_header(self, client):
        return {"alg": "RS256", "kid": "op-rsa-1"}

    def get_authorization_code_claims(self, authorization_code):
        claims = super().get_authorization_code_claims(authorization_code)
        if STATE.tamper == "nonce":
            claims["nonce"] = "another-nonce-" + generate_token(20)
        return claims

    def generate_user_info(self, user, scope):
        return {"sub": user, "name": "Alice", "email": "alice@example.org"}


SERVER = Server(scopes_supported=["openid", "profile", "email"])
SERVER.register_client_auth_method(PrivateKeyJWTAuth.CLIENT_AUTH_METHOD, PrivateKeyJWTAuth())
SERVER.register_token_generator("default", BearerTokenGenerator(
    access_token_generator=lambda **_: "at." + generate_token(40),
    refresh_token_generator=lambda **_: "rt." + generate_token(48),
    expires_generator=lambda client, grant_type: 30))
SERVER.register_grant(CodeGrant, [S256(required=True), OpenID(require_nonce=True)])
SERVER.register_grant(RefreshGrant)


def metadata():
    return {
        "issuer": BASE, "authorization_endpoint": BASE + "/authorize", "token_endpoint": BASE + "/token",
        "jwks_uri": BASE + "/jwks", "userinfo_endpoint": BASE + "/userinfo",
        "response_types_supported": ["code"], "subject_types_supported": ["public"],
        "id_token_signing_alg_values_supported": ["RS256"], "scopes_supported": ["openid", "profile", "email"],
        "token_endpoint_auth_methods_supported": ["private_key_jwt"],
        "token_endpoint_auth_signing_alg_values_supported": ["ES256", "RS256"],
        "code_challenge_methods_supported": ["S256"],
    }


class Handler(http.server.BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def do_GET(self):
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        parts = urllib.parse.urlsplit(self.path)
        form = urllib.parse.parse_qsl(body.decode(), keep_blank_values=True) if body else []
        raw = {"method": self.command, "uri": BASE + self.path, "headers": self.headers,
               "query": urllib.parse.parse_qsl(parts.query, keep_blank_values=True), "form": form}
        try:
            response = self.route(parts.path, raw)
        except Exception:
            traceback.print_exc()
            response = Response(500, "server error", [("Content-Type", "text/plain")])
        with STATE.lock:
            STATE.log.append({"path": parts.path, "form": dict(form), "status": response.status,
                              "body": response.body})
        data = response.body.encode()
        self.send_response(response.status)
        for name, value in response.headers:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    do_POST = do_GET

    def route(self, path, raw):
        if path == "/.well-known/openid-configuration":
            return Response(200, metadata(), [("Content-Type", "application/json")])
        if path == "/jwks":
            return Response(200, {"keys": [OP_KEY.as_dict(private=False)]}, [("Content-Type", "application/json")])
        if path == "/authorize":  # the user approves at once
            grant = SERVER.get_consent_grant(raw, end_user=USER)
            return SERVER.create_authorization_response(grant.request, grant_user=USER, grant=grant)
        if path == "/token":
            return SERVER.create_token_response(raw)
        if path == "/userinfo":
            token = (raw["headers"].get("Authorization") or "").removeprefix("Bearer ")
            with STATE.lock:
                known = STATE.access.get(token)
            if not known:
                return Response(401, "", [("WWW-Authenticate", 'Bearer error="invalid_token"')])
            return Response(200, {"sub": known.user, "email": "alice@example.org"}, [("Content-Type", "application/json")])
        return Response(404, "not found", [("Content-Type", "text/plain")])


def sign_in(home, profile):
    """`authorize oauth2 --oidc --client-auth private-key-jwt`; the browser's part played here."""
    env = dict(os.environ, REMOTE_AUTH_HOME=home)
    key_path = os.path.join(home, "..", "client.pem")
    command = harness.Command(BINARY, ["authorize", "oauth2", "--profile", profile, "--issuer", BASE,
                                       "--client-id", CLIENT_ID, "--oidc", "--scope", "profile email",
                                       "--client-auth", "private-key-jwt", "--client-key", key_path,
                                       "--no-browser", "--timeout", "30"], env)
    match = command.line_matching(r"^(http://127\.0\.0\.1:\d+/authorize\?.*)$")
    if not check(match is not None, "remote-auth prints the authorization URL", command.describe()):
        command.kill()
        return command, None
    url = match.group(1)
    query = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(url).query))
    answer = requests.get(url, allow_redirects=False)
    location = answer.headers.get("Location", "")
    if location.startswith("http://127.0.0.1:"):
        requests.get(location)
    command.wait()
    return command, query


def part_one(home):
    with open(os.path.join(home, "..", "client.pem"), "w") as f:
        f.write(CLIENT_PEM)
    command, query = sign_in(home, "op")
    if query is None:
        return
    check("nonce" in query and len(query["nonce"]) >= 22, "the authorization request carries a nonce", query)
    check(query.get("scope") == "openid profile email", "--oidc adds openid to the scope", query.get("scope"))
    ok = command.process.returncode == 0
    check(ok, "remote-auth signs in with private_key_jwt and validates Authlib's ID token", command.describe())
    out = "\n".join(command.stdout)
    check('  sub: "alice"' in command.stdout, "the ID token's sub is printed", out)
    check(f'  iss: "{BASE}"' in command.stdout, "the ID token's iss is printed", out)
    check("UserInfo:" in command.stdout and '  email: "alice@example.org"' in command.stdout, "UserInfo is printed", out)
    check("eyJhbGciOi" not in out, "the ID token itself is not printed")
    with STATE.lock:
        tokens = [e for e in STATE.log if e["path"] == "/token"]
    check(len(tokens) == 1 and tokens[0]["status"] == 200, "Authlib accepted the client assertion", tokens)
    if tokens:
        form = tokens[0]["form"]
        check(form.get("client_assertion_type") == "urn:ietf:params:oauth:client-assertion-type:jwt-bearer",
              "client_assertion_type is RFC 7523's")
        claims = jose_jwt.decode(form.get("client_assertion", ""), CLIENT_KEY).claims
        check(claims.get("iss") == CLIENT_ID and claims.get("sub") == CLIENT_ID, "assertion iss = sub = client id", claims)
        check(claims.get("aud") == BASE + "/token", "assertion aud = the token endpoint", claims)
        check(0 < claims.get("exp", 0) - claims.get("iat", 0) <= 60, "assertion exp is short", claims)

    # A refresh authenticates with a fresh assertion (the 30 s token expires within a minute).
    env = dict(os.environ, REMOTE_AUTH_HOME=home)
    token = subprocess.run([BINARY, "token", "--profile", "op"], env=env, capture_output=True, timeout=60)
    check(token.returncode == 0, "`token --profile` refreshes with private_key_jwt", token.stderr.decode()[-400:])
    with STATE.lock:
        refreshes = [e for e in STATE.log if e["path"] == "/token" and e["form"].get("grant_type") == "refresh_token"]
    check(len(refreshes) == 1 and refreshes[0]["status"] == 200, "Authlib accepted the refresh's assertion", refreshes)
    check(len(STATE.jtis) == 2, "two assertions, two jtis", STATE.jtis)

    for tamper, label in (("nonce", "an ID token with another nonce"), ("key", "an ID token signed with a key not in the JWKS")):
        STATE.tamper = tamper
        command, _ = sign_in(home, "bad-" + tamper)
        STATE.tamper = None
        check(command.process.returncode != 0, f"{label} fails the sign-in", command.describe())
        check(not any(line.startswith("Signed in") for line in command.stdout), f"{label}: nothing saved")


def part_two():
    """Authlib's client against the sandbox's OpenID provider."""
    key = ECKey.generate_key("P-256", parameters={"kid": "authlib-client"})
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump({"oauth2Clients": [
            {"id": "es-app", "redirectURIs": ["http://127.0.0.1/callback"], "idTokenSignedResponseAlg": "ES256"},
            {"id": "authlib-jwt", "tokenEndpointAuthMethod": "private_key_jwt",
             "jwks": {"keys": [key.as_dict(private=False)]}},
        ]}, f)
        config = f.name
    sandbox = subprocess.Popen([BINARY, "sandbox", "--port", "0", "--auto-approve", "--quiet", "--config", config],
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        first = sandbox.stdout.readline().strip()
        base = first.rsplit(" ", 1)[-1]
        if not check(first.startswith("RemoteAuth sandbox listening on http://127.0.0.1:"), "the sandbox starts", first):
            return
        discovery = requests.get(base + "/.well-known/openid-configuration").json()
        check(discovery.get("issuer") == base, "discovery: issuer is the sandbox's URL")
        check(discovery.get("jwks_uri") == base + "/oauth2/jwks", "discovery: jwks_uri")
        check(set(discovery.get("id_token_signing_alg_values_supported", [])) == {"RS256", "ES256"}, "discovery: algs")
        jwks = KeySet.import_key_set(requests.get(discovery["jwks_uri"]).json())
        for client_id, alg in (("demo-app", "RS256"), ("es-app", "ES256")):
            session = OAuth2Session(client_id, redirect_uri="http://127.0.0.1:41234/callback",
                                    scope="openid profile email", code_challenge_method="S256",
                                    token_endpoint_auth_method="none")
            verifier, nonce = generate_token(48), generate_token(32)
            url, _ = session.create_authorization_url(discovery["authorization_endpoint"], code_verifier=verifier,
                                                      nonce=nonce)
            location = requests.get(url, allow_redirects=False).headers.get("Location", "")
            token = session.fetch_token(discovery["token_endpoint"], authorization_response=location,
                                        code_verifier=verifier)
            id_token = token.get("id_token")
            if not check(id_token is not None, f"{client_id}: the token response has an id_token", token.keys()):
                continue
            decoded = jose_jwt.decode(id_token, jwks, algorithms=[alg])
            check(decoded.header.get("alg") == alg, f"{client_id}: joserfc verifies the {alg} ID token with the JWKS")
            claims = CodeIDToken(decoded.claims, decoded.header,
                                 options={"iss": {"values": [base]}, "aud": {"values": [client_id]}},
                                 params={"nonce": nonce, "client_id": client_id, "access_token": token["access_token"]})
            try:
                claims.validate(leeway=60)
                check(True, f"{client_id}: CodeIDToken validates iss, aud, exp, iat, nonce, at_hash")
            except Exception as error:
                check(False, f"{client_id}: CodeIDToken validates the ID token", repr(error))
            check("at_hash" in claims and "auth_time" in claims, f"{client_id}: at_hash and auth_time are present")
            info = session.get(discovery["userinfo_endpoint"]).json()
            check(info.get("sub") == claims.get("sub") and info.get("email"), f"{client_id}: UserInfo's sub is the ID token's", info)

        # Authlib's PrivateKeyJWT client authentication, accepted once, its replay refused.
        # Authlib's assertions live 3600 s by default; the sandbox takes at most 300 (RFC 7523 §3
        # asks for a short exp), so this one is given 120.
        auth = PrivateKeyJWT(discovery["token_endpoint"], claims={"exp": int(time.time()) + 120}, alg="ES256")
        service = OAuth2Session("authlib-jwt", key, token_endpoint_auth_method=auth, scope="statuses:read")
        token = service.fetch_token(discovery["token_endpoint"], grant_type="client_credentials")
        check(bool(token.get("access_token")), "the sandbox accepts Authlib's private_key_jwt assertion")
        form = {"grant_type": "client_credentials", "client_id": "authlib-jwt",
                "client_assertion_type": "urn:ietf:params:oauth:client-assertion-type:jwt-bearer",
                "client_assertion": jose_jwt.encode({"alg": "ES256", "kid": "authlib-client"},
                                                    {"iss": "authlib-jwt", "sub": "authlib-jwt",
                                                     "aud": discovery["token_endpoint"], "jti": secrets.token_hex(16),
                                                     "iat": int(time.time()), "exp": int(time.time()) + 60}, key)}
        first = requests.post(discovery["token_endpoint"], data=form)
        again = requests.post(discovery["token_endpoint"], data=form)
        check(first.status_code == 200, "a joserfc-signed assertion is accepted", first.text[:200])
        check(again.status_code == 401 and again.json().get("error") == "invalid_client",
              "the same assertion replayed is refused (jti)", again.text[:200])
    finally:
        sandbox.terminate()
        sandbox.wait(timeout=10)
        os.unlink(config)


def main():
    global BASE
    port = harness.free_port()
    BASE = f"http://127.0.0.1:{port}"
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", port), Handler)
    httpd.daemon_threads = True
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    with tempfile.TemporaryDirectory() as scratch:
        home = os.path.join(scratch, "home")
        os.makedirs(home)
        try:
            part_one(home)
        except Exception:
            check(False, "part 1 ran to the end", traceback.format_exc()[-800:])
    httpd.shutdown()
    try:
        part_two()
    except Exception:
        check(False, "part 2 ran to the end", traceback.format_exc()[-800:])
    CHECKS.finish()


if __name__ == "__main__":
    main()
