#!/usr/bin/env python3
"""Interop: `remote-auth` signs in to, and calls, an OAuth 1.0a provider built on oauthlib.

The provider is written here with oauthlib's own server-side endpoints (RequestTokenEndpoint,
AuthorizationEndpoint, AccessTokenEndpoint, ResourceEndpoint) and a RequestValidator over
in-memory state, served by http.server on 127.0.0.1 (a free port). Its consumer secret and every
token secret it issues hold a space, `+`, `%`, `&`, `=` and non-ASCII text, where implementations
disagree. Over real sockets:

  1. `remote-auth authorize oauth1 --no-browser` (REMOTE_AUTH_HOME in a temporary directory):
     the script plays the user, GETs the printed authorize URL (the provider approves at once
     and answers a 302 to the loopback callback with oauth_token and oauth_verifier), follows the
     redirect to the command's listener, and the command exchanges the verifier and saves the
     profile. Then the PIN flow (`--pin`, callback `oob`): the provider shows the verifier on a
     page and the script types it on the command's standard input. tokens.json must hold the
     secrets exactly as issued, and each request token must be spent.
  2. `remote-auth request --profile P [--placement header|query|body]` with GET, POST and PUT
     against /resource, which the provider checks with
     ResourceEndpoint.validate_protected_resource_request (the URI, method, headers and body as
     received) and answers with a JSON echo of the parameters oauthlib decoded: a query and a form
     body of `+` (encoded, and as a space), `%`, `&`, `=`, sub-delimiters, lowercase escapes,
     non-ASCII text (é, 漢, an emoji), empty values and repeated names. The echo must show exactly
     the parameters sent, and the protocol parameters where --placement put them.
  3. Refusals, each exit status 1 from `remote-auth` (or a 401 for a request resent by hand) and
     the reason the provider logged: a profile whose token secret (or consumer secret) was
     altered in tokens.json (signature_invalid); a request captured at the provider and sent again
     verbatim (nonce_used); a captured, never-verified request with its body changed
     (signature_invalid), beside its unchanged twin, which passes; an unsigned request.

When oauthlib refuses a request it should accept, the failure shows oauthlib's signature base
string beside the one `remote-auth sign oauth1 --print base-string` makes for the same request,
nonce and timestamp.

Usage: oauthlib_provider.py REMOTE_AUTH_BINARY
Prints one line per failed check and ends with 'oauthlib-provider: N passed, M failed'; exits 1 on
any failure.
"""
import hmac
import http.client
import http.server
import json
import os
import re
import secrets
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import traceback
import urllib.parse

import harness
from harness import Checks
from oauthlib.common import urldecode
from oauthlib.oauth1 import (
    AccessTokenEndpoint, AuthorizationEndpoint, RequestTokenEndpoint, RequestValidator, ResourceEndpoint,
)
from oauthlib.oauth1.rfc5849 import errors, signature

if len(sys.argv) != 2:
    sys.exit("usage: oauthlib_provider.py REMOTE_AUTH_BINARY")
BINARY = sys.argv[1]
NAME = "oauthlib-provider"
TIMEOUT = 60  # seconds for one remote-auth command

# 23 letters: within oauthlib's default client key length (20 to 30) and character set.
CONSUMER_KEY = "remoteAuthInteropClient"
CONSUMER_SECRET = "consumer secret + 100%25 & ü=ß"
SCREEN_NAME = "zoë+1"
USER_ID = "5849"


def hard_secret(kind):
    """A fresh token secret with a space, '+', '%' (and a literal '%25'), '&', '=' and 'ü'."""
    return f"{kind} secret+{secrets.token_hex(3)} 100%25 & ü=%"


# ---------------------------------------------------------------------------------------------
# The provider: oauthlib's endpoints over an in-memory store.
# ---------------------------------------------------------------------------------------------

class Validator(RequestValidator):
    """oauthlib's RequestValidator over dicts. Everything is checked for real (client, tokens,
    verifier, callback, nonce); only the format checks below are widened, each saying why."""

    def __init__(self):
        super().__init__()
        self.lock = threading.Lock()
        self.request_tokens = {}  # token -> {"secret", "client", "callback", "verifier", "spent"}
        self.access_tokens = {}  # token -> {"secret", "client"}
        self.nonces = set()  # (client key, timestamp, nonce, token)

    # http://127.0.0.1 in a test: oauthlib would refuse anything but https.
    enforce_ssl = False
    # remote-auth signs with HMAC-SHA1 by default; nothing else is offered.
    allowed_signature_methods = ("HMAC-SHA1", "HMAC-SHA256")
    # remote-auth's nonce is 128 random bits as 32 hex digits; oauthlib's default allows 20 to 30
    # characters. Still only letters and digits, and at least 20 of them.
    nonce_length = (20, 64)
    # No realms are used: the client sends none, so oauthlib's default realms ([]) apply, and
    # check_realms (kept) refuses any realm a client would send.

    dummy_client = "dummyClientKeyForTimingOnly"
    dummy_request_token = "dummyRequestTokenForTimingOnly"
    dummy_access_token = "dummyAccessTokenForTimingOnly"

    # Secrets (a dummy key gets a dummy secret, as oauthlib asks, so timing does not differ).
    def get_client_secret(self, client_key, request):
        return CONSUMER_SECRET if client_key == CONSUMER_KEY else "dummy secret"

    def get_request_token_secret(self, client_key, token, request):
        entry = self.request_tokens.get(token)
        return entry["secret"] if entry and entry["client"] == client_key else "dummy secret"

    def get_access_token_secret(self, client_key, token, request):
        entry = self.access_tokens.get(token)
        return entry["secret"] if entry and entry["client"] == client_key else "dummy secret"

    def get_rsa_key(self, client_key, request):
        raise errors.InvalidSignatureMethodError(description="RSA is not offered")

    # Realms: none (see above).
    def get_default_realms(self, client_key, request):
        return []

    def get_realms(self, token, request):
        return []

    def validate_requested_realms(self, client_key, realms, request):
        return realms == []

    def validate_realms(self, client_key, token, request, uri=None, realms=None):
        return realms == []  # /resource is in no realm, and no token is limited to one

    def verify_realms(self, token, realms, request):
        return realms == []

    # Clients, tokens, callbacks, verifiers.
    def validate_client_key(self, client_key, request):
        return client_key == CONSUMER_KEY

    def validate_redirect_uri(self, client_key, redirect_uri, request):
        # `oob` (the PIN flow) or a loopback listener on any port (RFC 8252 §7.3).
        return redirect_uri == "oob" or re.fullmatch(r"http://127\.0\.0\.1:[0-9]+/[^?#]*(\?[^#]*)?",
                                                     redirect_uri or "") is not None

    def validate_request_token(self, client_key, token, request):
        entry = self.request_tokens.get(token)
        return bool(entry and entry["client"] == client_key and not entry["spent"])

    def validate_access_token(self, client_key, token, request):
        entry = self.access_tokens.get(token)
        return bool(entry and entry["client"] == client_key)

    def validate_verifier(self, client_key, token, verifier, request):
        entry = self.request_tokens.get(token)
        return bool(entry and entry["client"] == client_key and entry["verifier"]
                    and hmac.compare_digest(entry["verifier"], verifier))

    def verify_request_token(self, token, request):
        entry = self.request_tokens.get(token)
        return bool(entry and not entry["spent"])

    def get_redirect_uri(self, token, request):
        return self.request_tokens[token]["callback"]

    def validate_timestamp_and_nonce(self, client_key, timestamp, nonce, request, request_token=None,
                                     access_token=None):
        # RFC 5849 §3.3: a nonce is unique for its timestamp, client and token; a second use is a
        # replay. (oauthlib itself refuses timestamps more than 600 s away from now.)
        key = (client_key, timestamp, nonce, request_token or access_token)
        with self.lock:
            if key in self.nonces:
                request.nonce_reused = True
                return False
            self.nonces.add(key)
            return True

    # Saving.
    def save_request_token(self, token, request):
        with self.lock:
            self.request_tokens[token["oauth_token"]] = {
                "secret": token["oauth_token_secret"], "client": request.client_key,
                "callback": request.redirect_uri, "verifier": None, "spent": False}

    def save_verifier(self, token, verifier, request):
        with self.lock:
            self.request_tokens[token]["verifier"] = verifier["oauth_verifier"]

    def save_access_token(self, token, request):
        with self.lock:
            self.access_tokens[token["oauth_token"]] = {"secret": token["oauth_token_secret"],
                                                        "client": request.client_key}

    def invalidate_request_token(self, client_key, request_token, request):
        with self.lock:
            self.request_tokens[request_token]["spent"] = True


VALIDATOR = Validator()
REQUEST_TOKEN = RequestTokenEndpoint(VALIDATOR)
AUTHORIZATION = AuthorizationEndpoint(VALIDATOR)
ACCESS_TOKEN = AccessTokenEndpoint(VALIDATOR)
RESOURCE = ResourceEndpoint(VALIDATOR)


class Provider(http.server.ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self):
        super().__init__(("127.0.0.1", 0), Handler)
        self.lock = threading.Lock()
        self.log = []  # one dict per request: what arrived, the answer, why
        self.hold = 0  # while > 0, /resource records requests unverified (202) instead


def parameters(encoded):
    """oauthlib's own decoding of a query or form body, without the protocol parameters."""
    return [[name, value] for name, value in urldecode(encoded) if not name.startswith("oauth_")]


class Handler(http.server.BaseHTTPRequestHandler):
    server_version = "oauthlib-provider"

    def log_message(self, *args):
        pass

    def do_GET(self):
        self.handle_one()

    do_POST = do_PUT = do_DELETE = do_GET

    def read_body(self):
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            body = b""
            while True:
                size = int(self.rfile.readline().split(b";")[0], 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass
                    return body
                body += self.rfile.read(size)
                self.rfile.readline()
        return self.rfile.read(int(self.headers.get("Content-Length") or 0))

    def handle_one(self):
        raw = self.read_body()
        entry = {"method": self.command, "path": self.path, "headers": list(self.headers.items()), "body": raw}
        try:
            status, headers, body = self.route(entry)
        except Exception:  # a bug here: answer 500 and let the script show it
            entry["problem"] = "exception: " + traceback.format_exc()
            status, headers, body = 500, {"Content-Type": "text/plain"}, "provider error"
        entry["status"] = status
        with self.server.lock:
            self.server.log.append(entry)
        data = body.encode("utf-8") if isinstance(body, str) else (body or b"")
        self.send_response(status)
        for name, value in headers.items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def route(self, entry):
        # The URI exactly as received: the Host the client sent and the request-target verbatim.
        uri = f"http://{self.headers.get('Host') or '127.0.0.1:%d' % self.server.server_port}{self.path}"
        body = entry["body"].decode("utf-8", "replace")  # a form body is ASCII; oauthlib reads only forms
        headers = dict(self.headers.items())
        path = urllib.parse.urlsplit(self.path).path
        # oauthlib's endpoints answer (headers, body, status); `credentials` adds to (and here
        # replaces the secret of) the token it generates.
        if path == "/request_token" and self.command == "POST":
            headers, body, status = REQUEST_TOKEN.create_request_token_response(
                uri, self.command, body, headers, credentials={"oauth_token_secret": hard_secret("request token")})
            return status, headers, body
        if path == "/access_token" and self.command == "POST":
            headers, body, status = ACCESS_TOKEN.create_access_token_response(
                uri, self.command, body, headers,
                credentials={"oauth_token_secret": hard_secret("access token"), "screen_name": SCREEN_NAME,
                             "user_id": USER_ID})
            return status, headers, body
        if path == "/authorize" and self.command == "GET":
            return self.authorize(uri, entry)
        if path == "/resource":
            return self.resource(uri, body, headers, entry)
        return 404, {"Content-Type": "text/plain"}, "not found"

    def authorize(self, uri, entry):
        # The user is signed in and approves at once: a 302 to the callback, or the PIN page (oob).
        try:
            headers, body, status = AUTHORIZATION.create_authorization_response(uri, "GET", credentials={})
        except errors.OAuth1Error as error:
            entry["problem"] = error.description
            return error.status_code, {"Content-Type": "text/plain"}, error.urlencoded
        if status == 200:  # oob: show the verifier
            verifier = dict(urldecode(body))["oauth_verifier"]
            page = ("<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>PIN</title></head><body>"
                    f"<p>Type this PIN in the application: <code id=\"pin\">{verifier}</code></p></body></html>")
            return 200, {"Content-Type": "text/html; charset=utf-8"}, page
        return status, headers, ""

    def resource(self, uri, body, headers, entry):
        with self.server.lock:
            if self.server.hold > 0:
                self.server.hold -= 1
                entry["held"] = True
                return 202, {"Content-Type": "text/plain"}, "held, not verified"
        valid, request = RESOURCE.validate_protected_resource_request(
            uri, http_method=self.command, body=body, headers=headers, realms=[])
        if request is not None:
            # oauthlib's base string, for the report when a signature does not verify.
            entry["base_string"] = signature.signature_base_string(
                request.http_method, signature.base_string_uri(request.uri),
                signature.normalize_parameters(request.params))
        if not valid:
            if request is None:
                problem = "parameter_absent"
            elif getattr(request, "nonce_reused", False):
                problem = "nonce_used"
            elif request.validator_log.get("signature") is False:
                problem = "signature_invalid"
            elif request.validator_log.get("resource_owner") is False:
                problem = "token_rejected"
            elif request.validator_log.get("client") is False:
                problem = "consumer_key_unknown"
            else:
                problem = "parameter_rejected"
            entry["problem"] = problem
            return (401, {"WWW-Authenticate": f'OAuth realm="oauthlib-provider", oauth_problem="{problem}"',
                          "Content-Type": "application/x-www-form-urlencoded"}, f"oauth_problem={problem}")
        # Where the protocol parameters were, and every other parameter as oauthlib decoded it.
        query = urllib.parse.urlsplit(request.uri).query
        found = []
        if "OAuth " in request.headers.get("Authorization", "")[:6]:
            found.append("header")
        if any(name.startswith("oauth_") for name, _ in urldecode(request.body or "")):
            found.append("body")
        if any(name.startswith("oauth_") for name, _ in urldecode(query)):
            found.append("query")
        echo = {"method": request.http_method, "placement": found, "query": parameters(query),
                "body": parameters(request.body or ""), "client_key": request.client_key,
                "token": request.resource_owner_key, "signature_method": request.signature_method}
        return 200, {"Content-Type": "application/json; charset=utf-8"}, json.dumps(echo, ensure_ascii=False)


# ---------------------------------------------------------------------------------------------
# The client side: remote-auth, and a user agent played by this script.
# ---------------------------------------------------------------------------------------------

CHECKS = Checks(NAME)
check = CHECKS.check


def fetch(url, method="GET", headers=(), body=None):
    """One request with http.client: no proxy, no redirect followed, headers sent as given
    (`headers` may include Host). Returns (status, {lowercased name: value}, text)."""
    parts = urllib.parse.urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=TIMEOUT)
    target = parts.path + ("?" + parts.query if parts.query else "")
    try:
        names = {name.lower() for name, _ in headers}
        connection.putrequest(method, target, skip_host="host" in names, skip_accept_encoding=True)
        for name, value in headers:
            if name.lower() not in ("content-length", "connection"):
                connection.putheader(name, value)
        if body is not None:
            connection.putheader("Content-Length", str(len(body)))
        connection.endheaders(body)
        response = connection.getresponse()
        return (response.status, {k.lower(): v for k, v in response.getheaders()},
                response.read().decode("utf-8", "replace"))
    finally:
        connection.close()


def Command(args, stdin=subprocess.DEVNULL):
    """`remote-auth ARGS` in the background (harness.Command), with this script's binary and environment."""
    return harness.Command(BINARY, args, ENV, stdin=stdin, timeout=TIMEOUT)


def run(args):
    command = Command(args)
    command.wait()
    return command


def tokens():
    """The entries of REMOTE_AUTH_HOME/tokens.json (none before a sign-in saved one)."""
    try:
        with open(os.path.join(HOME, "tokens.json")) as f:
            return json.load(f)
    except FileNotFoundError:
        return []


def oauth1(stored):
    # tokens.json holds {"kind": "oauth1", "oauth1": {...}} since sessions became protocol-neutral;
    # a file written before that holds the OAuth 1.0a session itself.
    return stored.get("oauth1", stored)


def session(profile):
    return next((oauth1(entry["session"]) for entry in tokens() if entry["key"]["service"] == profile), None)


def log_since(mark):
    with SERVER.lock:
        return SERVER.log[mark:]


def log_mark():
    with SERVER.lock:
        return len(SERVER.log)


# ---------------------------------------------------------------------------------------------
# 1. Sign-in: loopback callback, then PIN.
# ---------------------------------------------------------------------------------------------

def authorize_args(profile):
    return ["authorize", "oauth1", "--profile", profile, "--consumer-key", CONSUMER_KEY,
            f"--consumer-secret={CONSUMER_SECRET}", "--request-token-url", f"{BASE}/request_token",
            "--authorize-url", f"{BASE}/authorize", "--access-token-url", f"{BASE}/access_token"]


def check_saved(profile, label):
    """tokens.json holds the access token and secret the provider issued, byte for byte."""
    saved = session(profile)
    if not check(saved is not None, f"{label}: no profile '{profile}' in tokens.json"):
        return
    token = saved["accessToken"]["credentials"]["token"]
    issued = VALIDATOR.access_tokens.get(token)
    check(issued is not None and saved["accessToken"]["credentials"]["secret"] == issued["secret"]
          and saved["client"] == {"key": CONSUMER_KEY, "secret": CONSUMER_SECRET},
          f"{label}: tokens.json does not hold the issued token, its secret and the client exactly: "
          f"{saved['accessToken']['credentials']!r} vs {issued!r}")
    fields = {field["name"]: field["value"] for field in saved["accessToken"]["fields"]}
    check(fields.get("screen_name") == SCREEN_NAME and fields.get("user_id") == USER_ID,
          f"{label}: the saved fields are not screen_name={SCREEN_NAME!r} user_id={USER_ID!r}: {fields!r}")


def sign_in_loopback():
    label = "authorize (loopback callback)"
    command = Command([*authorize_args("loopback"), "--no-browser", "--timeout", str(TIMEOUT)])
    # As for OAuth 2: "Open this URL in a browser:" on stderr, the URL alone on a stdout line.
    match = command.line_matching(r"^(https?://\S+/authorize\?\S+)$")
    if not check(match is not None, f"{label}: no authorization URL line on stdout; {command.describe()}"):
        command.wait()
        return
    url = match.group(1)
    query = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(url).query))
    token = query.get("oauth_token", "")
    check(url.startswith(f"{BASE}/authorize?oauth_token=") and token in VALIDATOR.request_tokens
          and VALIDATOR.request_tokens[token]["secret"].startswith("request token secret+"),
          f"{label}: the authorize URL {url!r} is not {BASE}/authorize with a request token the provider issued")
    # The user agent: the provider approves and redirects to the loopback callback.
    status, headers, text = fetch(url)
    location = headers.get("location", "")
    callback = urllib.parse.urlsplit(location)
    back = dict(urllib.parse.parse_qsl(callback.query))
    if not check(status == 302 and callback.scheme == "http" and callback.hostname == "127.0.0.1"
                 and back.get("oauth_token") == token and back.get("oauth_verifier"),
                 f"{label}: GET {url}: expected a 302 to http://127.0.0.1:PORT/... with oauth_token and "
                 f"oauth_verifier, got {status}, Location {location!r}, body {text!r}"):
        command.process.kill()
        command.wait()
        return
    check(VALIDATOR.request_tokens[token]["callback"] == f"http://127.0.0.1:{callback.port}/callback",
          f"{label}: the request token's oauth_callback was {VALIDATOR.request_tokens[token]['callback']!r}")
    status, _, text = fetch(location)
    check(status == 200, f"{label}: GET {location} (the command's listener): {status} {text!r}")
    code = command.wait()
    if check(code == 0 and f"Signed in as {SCREEN_NAME}; saved as profile 'loopback'." in command.stdout,
             f"{label}: expected exit 0 and \"Signed in as {SCREEN_NAME}; saved as profile 'loopback'.\"; "
             f"{command.describe()}"):
        check(VALIDATOR.request_tokens[token]["spent"], f"{label}: the request token was not spent")
        check_saved("loopback", label)


def sign_in_pin():
    label = "authorize --pin"
    command = Command([*authorize_args("pin"), "--pin"], stdin=subprocess.PIPE)
    match = command.line_matching(r"^(https?://\S+/authorize\?\S+)$")
    if not check(match is not None, f"{label}: no authorization URL line on stdout; {command.describe()}"):
        command.process.kill()
        command.wait()
        return
    url = match.group(1)
    token = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(url).query)).get("oauth_token", "")
    check(VALIDATOR.request_tokens.get(token, {}).get("callback") == "oob",
          f"{label}: the request token of {url!r} was not asked for with oauth_callback=oob")
    status, _, page = fetch(url)
    pin = re.search(r'<code id="pin">([A-Za-z0-9]+)</code>', page)
    if not check(status == 200 and pin is not None,
                 f"{label}: GET {url}: expected the PIN page, got {status} {page!r}"):
        command.process.kill()
        command.wait()
        return
    command.process.stdin.write(pin.group(1).encode() + b"\n")
    command.process.stdin.close()
    code = command.wait()
    if check(code == 0 and f"Signed in as {SCREEN_NAME}; saved as profile 'pin'." in command.stdout,
             f"{label}: expected exit 0 and \"Signed in as {SCREEN_NAME}; saved as profile 'pin'.\"; "
             f"{command.describe()}"):
        check(VALIDATOR.request_tokens[token]["spent"], f"{label}: the request token was not spent")
        check_saved("pin", label)


# ---------------------------------------------------------------------------------------------
# 2. Signed requests, every placement.
# ---------------------------------------------------------------------------------------------

# The query as written in the URL, and what it must decode to: '+' as a space and '%2B' as '+',
# '&', '=' and '%' encoded, sub-delimiters left as they are, a lowercase escape, an empty value,
# a repeated name (out of order), non-ASCII names and values.
QUERY = ("q=a+b%2Bc%26d%3De%25f&empty=&tag=2&tag=1&%E6%BC%A2%E5%AD%97=%F0%9F%98%80%20%C3%A9"
         "&lower=%c3%a9&sub=*!'()%2C;:@$/?&plus=1%2B1%3D2")
QUERY_DECODED = [["q", "a b+c&d=e%f"], ["empty", ""], ["tag", "2"], ["tag", "1"], ["漢字", "😀 é"],
                 ["lower", "é"], ["sub", "*!'(),;:@$/?"], ["plus", "1+1=2"]]
# The form body, as curl users send it: -d with the name and value percent-encoded (-d sends its
# text as it is, like curl's), joined with '&' across -d options.
FORM = [["status", "1+1=2 & 100% sûr, Grüße, 漢字 😀 a+b%20c"], ["empty", ""], ["tag", "b"], ["tag", "a"],
        ["é", "ü+&=%"], ["amp&name", "v"], ["dup", "x"], ["dup", "x"], ["space name", " lead and trail "]]


def form_field(name, value):
    """NAME=VALUE for `-d`, each side percent-encoded (UTF-8, nothing left unencoded but the
    unreserved set), so that curl's verbatim -d sends exactly these pairs."""
    return urllib.parse.quote(name, safe="-._~") + "=" + urllib.parse.quote(value, safe="-._~")


def signed_request(profile, placement, method, query, form, label=None):
    """Runs `remote-auth request` and checks the provider's echo; returns the log entry."""
    url = f"{BASE}/resource" + (f"?{query}" if query else "")
    args = ["request", "--profile", profile, "-X", method]
    if placement is not None:
        args += ["--placement", placement]
    for name, value in form:
        args += ["-d", form_field(name, value)]
    args.append(url)
    label = label or f"request --placement {placement} -X {method}" + (" with a query" if query else "") + (
        " with a form body" if form else "")
    mark = log_mark()
    command = run(args)
    seen = log_since(mark)
    entry = seen[-1] if seen else {}
    try:
        echo = json.loads("\n".join(command.stdout))
    except ValueError:
        echo = None
    if not check(command.process.returncode == 0 and entry.get("status") == 200 and isinstance(echo, dict),
                 f"{label}: expected exit 0 and 200 with the echo; {command.describe()}; "
                 f"provider: {entry.get('status')} {entry.get('problem')}"
                 + diagnose(entry, profile, method, url, form)):
        return entry
    expected_query = QUERY_DECODED if query else []
    check(echo["query"] == expected_query, f"{label}: the query oauthlib decoded is {echo['query']!r}, "
                                           f"expected {expected_query!r}")
    check(echo["body"] == form, f"{label}: the body oauthlib decoded is {echo['body']!r}, expected {form!r}")
    check(echo["placement"] == [placement or "header"] and echo["method"] == method,
          f"{label}: expected {method} with the protocol parameters in the {placement or 'header'} only, "
          f"oauthlib found them in {echo['placement']!r} of a {echo['method']}")
    return entry


def diagnose(entry, profile, method, url, form):
    """For a refused signature: oauthlib's base string beside remote-auth's for the same nonce and timestamp."""
    if entry.get("problem") != "signature_invalid" or "base_string" not in entry:
        return ""
    oauth = {}
    for name, value in entry["headers"]:
        if name.lower() == "authorization":
            oauth.update((k, urllib.parse.unquote(v)) for k, v in re.findall(r'(\w+)="([^"]*)"', value))
    for source in (urllib.parse.urlsplit(entry["path"]).query, entry["body"].decode("ascii", "replace")):
        oauth.update((k, v) for k, v in urllib.parse.parse_qsl(source) if k.startswith("oauth_"))
    saved = session(profile)
    args = [BINARY, "sign", "oauth1", method, url, "--consumer-key", saved["client"]["key"],
            f"--consumer-secret={saved['client']['secret']}", "--token", saved["accessToken"]["credentials"]["token"],
            f"--token-secret={saved['accessToken']['credentials']['secret']}", "--nonce", oauth.get("oauth_nonce", ""),
            "--timestamp", oauth.get("oauth_timestamp", ""), "--print", "base-string"]
    for name, value in form:
        args += ["-d", f"{name}={value}"]
    ours = subprocess.run(args, capture_output=True, env=ENV, timeout=TIMEOUT)
    return (f"\n  oauthlib base string:    {entry['base_string']}"
            f"\n  remote-auth base string: {ours.stdout.decode('utf-8', 'replace').strip()}"
            f"\n  received: {entry['method']} {entry['path']} {entry['body']!r}")


def requests_matrix():
    captured = {}
    for placement in ("header", "query", "body"):
        if placement == "body":
            # GET has no body a server must read (oauthlib's Client refuses it too): refused before sending.
            mark = log_mark()
            command = run(["request", "--profile", "loopback", "--placement", "body", "-X", "GET", f"{BASE}/resource"])
            stderr = command.stderr.decode("utf-8", "replace")
            check(command.process.returncode == 2 and "body placement" in stderr and not log_since(mark),
                  f"request --placement body -X GET: expected exit 2 naming body placement and nothing sent; "
                  f"{command.describe()}")
        else:
            signed_request("loopback", placement, "GET", None, [])
            captured[placement, "GET"] = signed_request("loopback", placement, "GET", QUERY, [])
        signed_request("loopback", placement, "POST", None, FORM)
        captured[placement, "POST"] = signed_request("loopback", placement, "POST", QUERY, FORM)
    # PUT and DELETE; no --placement (the header by default); the PIN flow's profile.
    signed_request("loopback", "header", "PUT", QUERY, FORM)
    signed_request("loopback", "query", "DELETE", QUERY, [])
    signed_request("loopback", None, "POST", QUERY, FORM, label="request without --placement")
    signed_request("pin", "header", "POST", QUERY, FORM, label="request --profile pin")
    return captured


# ---------------------------------------------------------------------------------------------
# 3. Refusals.
# ---------------------------------------------------------------------------------------------

def refused_by_remote_auth(profile, label, problem):
    mark = log_mark()
    command = run(["request", "--profile", profile, "-X", "POST", "--data-urlencode", "status=x & y", f"{BASE}/resource?{QUERY}"])
    seen = log_since(mark)
    entry = seen[-1] if seen else {}
    stderr = command.stderr.decode("utf-8", "replace")
    check(command.process.returncode == 1 and "remote-auth: HTTP 401" in stderr and entry.get("status") == 401
          and entry.get("problem") == problem,
          f"{label}: expected exit 1, 'remote-auth: HTTP 401' and a 401 for {problem}; {command.describe()}; "
          f"provider: {entry.get('status')} {entry.get('problem')}")


def resend(entry, body=None):
    """Sends a logged request again, verbatim (or with another body); returns the new log entry."""
    mark = log_mark()
    status, _, text = fetch(f"{BASE}{entry['path']}", entry["method"], entry["headers"],
                            entry["body"] if body is None else body)
    seen = log_since(mark)
    return status, text, (seen[-1] if seen else {})


def refusals(captured):
    # A profile whose token secret was altered (a space made '+', which a signer that
    # form-encodes secrets would not tell apart), and one whose consumer secret was ('%25' made '%').
    entries = tokens()
    original = next(entry for entry in entries if entry["key"]["service"] == "loopback")
    for profile, where, alter in (
            ("wrong-token-secret", ("accessToken", "credentials"), lambda s: s.replace(" ", "+")),
            ("wrong-consumer-secret", ("client",), lambda s: s.replace("%25", "%"))):
        copy = json.loads(json.dumps(original))
        copy["key"]["service"] = profile
        target = oauth1(copy["session"])
        for key in where:
            target = target[key]
        target["secret"] = alter(target["secret"])
        entries.append(copy)
    with open(os.path.join(HOME, "tokens.json"), "w") as f:
        json.dump(entries, f, ensure_ascii=False, indent=2)
    refused_by_remote_auth("wrong-token-secret", "a profile with an altered token secret", "signature_invalid")
    refused_by_remote_auth("wrong-consumer-secret", "a profile with an altered consumer secret", "signature_invalid")

    # Replays: requests the provider accepted, sent again verbatim.
    for (placement, method), entry in captured.items():
        if placement in ("header", "body") and entry.get("status") == 200:
            status, text, seen = resend(entry)
            check(status == 401 and seen.get("problem") == "nonce_used",
                  f"replay of the accepted {method} with the {placement} placement: expected 401 for "
                  f"nonce_used, got {status} {seen.get('problem')} {text!r}")

    # A request held unverified: sent with its body changed it must fail its signature; its twin
    # (held the same way) sent verbatim passes, then fails as a replay.
    for label, change in (("a held request with its body changed", True), ("a held request sent verbatim", False)):
        with SERVER.lock:
            SERVER.hold = 1
        mark = log_mark()
        command = run(["request", "--profile", "loopback", "-X", "POST", "--data-urlencode", "status=signed + sealed",
                       f"{BASE}/resource"])
        seen = log_since(mark)
        if not check(command.process.returncode == 0 and seen and seen[-1].get("held"),
                     f"{label}: the provider did not hold the request; {command.describe()}"):
            continue
        held = seen[-1]
        if change:
            body = held["body"].replace(b"signed", b"forged")
            status, text, entry = resend(held, body)
            check(body != held["body"] and status == 401 and entry.get("problem") == "signature_invalid",
                  f"{label}: expected 401 for signature_invalid, got {status} {entry.get('problem')} {text!r}")
        else:
            status, text, entry = resend(held)
            check(status == 200 and json.loads(text)["body"] == [["status", "signed + sealed"]],
                  f"{label}: expected 200 with the echo, got {status} {entry.get('problem')} {text!r}")
            status, text, entry = resend(held)
            check(status == 401 and entry.get("problem") == "nonce_used",
                  f"{label}, twice: expected 401 for nonce_used, got {status} {entry.get('problem')} {text!r}")

    # Not signed at all.
    status, _, text = fetch(f"{BASE}/resource?{QUERY}")
    check(status == 401, f"an unsigned GET /resource: expected 401, got {status} {text!r}")


# ---------------------------------------------------------------------------------------------

SERVER = Provider()
BASE = f"http://127.0.0.1:{SERVER.server_port}"
threading.Thread(target=SERVER.serve_forever, daemon=True).start()
HOME = tempfile.mkdtemp(prefix="remote-auth-oauthlib-")
ENV = {k: v for k, v in os.environ.items() if not k.startswith("REMOTE_AUTH_")}
ENV["REMOTE_AUTH_HOME"] = HOME
try:
    sign_in_loopback()
    sign_in_pin()
    if session("loopback") is not None and session("pin") is not None:
        refusals(requests_matrix())
    else:
        check(False, "no requests: a sign-in failed, so there is no profile to sign with")
    for entry in SERVER.log:
        if entry.get("problem", "").startswith("exception"):
            check(False, f"the provider failed on {entry['method']} {entry['path']}: {entry['problem']}")
except Exception:  # a bug in this script, or a command that could not start: still end with the count
    check(False, "the script stopped: " + traceback.format_exc())
finally:
    SERVER.shutdown()
    shutil.rmtree(HOME, ignore_errors=True)

CHECKS.finish()
