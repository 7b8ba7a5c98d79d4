#!/usr/bin/env python3
"""Interop: Python's oauthlib (a client nobody here wrote) runs OAuth 1.0a against the sandbox.

For every signature method (HMAC-SHA1, HMAC-SHA256, PLAINTEXT, RSA-SHA1) and every placement of
the protocol parameters (Authorization header, query, form body) the script runs the whole
three-legged flow over HTTP with `requests`, following nothing by itself:

  1. POST /oauth/request_token, signed by `oauthlib.oauth1.Client` (RFC 5849 §2.1);
  2. GET /oauth/authorize, parse the consent form, POST it back as alice and read the 302's
     Location: the callback with `oauth_token` and `oauth_verifier` (§2.2); one run uses `oob`
     and reads the PIN from the page instead;
  3. POST /oauth/access_token with the verifier (§2.3);
  4. GET /1.1/account/verify_credentials.json with a query of hard parameters (`+`, `&`, `%`,
     empty, repeated, non-ASCII); POST /1.1/statuses/update.json with a status holding `+`, `%`,
     `&`, `=`, non-ASCII text and an emoji (beside repeated, empty and non-ASCII form parameters),
     and read it back from GET /1.1/statuses/home_timeline.json (§3).

GET requests carry no body, so in the form-body runs they are signed with the query placement.
RSA-SHA1 uses the consumer `rsa-consumer` (or $RSA_CONSUMER_KEY), which the sandbox must be
started with (`--config`), registered with the public key of the vector
`rfc5849_1.2_photos_rsa_sha1` in VECTORS_DIR/oauth1_signing.json; oauthlib signs with its private
key (through pyjwt and cryptography).

Then the negatives, each of which must be refused with 401, the sandbox's
`WWW-Authenticate: OAuth realm="RemoteAuth Sandbox", oauth_problem="…"` and the same
`oauth_problem=…` in the body: a wrong consumer secret or token secret and a tampered body
(signature_invalid), a replayed nonce and timestamp (nonce_used), a timestamp an hour old
(timestamp_refused), an unknown consumer key (consumer_key_unknown), an unknown token
(token_rejected), a wrong verifier (verifier_invalid), an unsigned API call; and on the consent
page a wrong password (the page again, with an `id="error"` element) and a denial (`denied=`).

Usage: sandbox_oauthlib.py SANDBOX_URL VECTORS_DIR [--auto-approve] [--config FILE]
Prints one line per failed check and ends with 'sandbox-oauthlib: N passed, M failed'; exits 1 on
any failure. With --auto-approve (for a sandbox started with it) only two flows run, whose
GET /oauth/authorize must redirect at once (or show the PIN page for `oob`); the closing line
then starts with 'auto-approve:'. With --config FILE (the file the sandbox was started with), every
consumer with a `secret` and every user it adds also runs the flow (a user consents to
demo-consumer and must come back as its own screen_name).
"""
import html.parser
import json
import os
import re
import sys
import time
import urllib.parse
import uuid

import requests
from harness import Checks
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa as rsa_keys
from oauthlib import oauth1

USAGE = "usage: sandbox_oauthlib.py SANDBOX_URL VECTORS_DIR [--auto-approve] [--config FILE]"
if len(sys.argv) < 3:
    sys.exit(USAGE)
BASE = sys.argv[1].rstrip("/")
VECTORS_DIR = sys.argv[2]
AUTO_APPROVE = False
CONFIG = {}
options = sys.argv[3:]
while options:
    option = options.pop(0)
    if option == "--auto-approve":
        AUTO_APPROVE = True
    elif option == "--config" and options:
        with open(options.pop(0)) as f:
            CONFIG = json.load(f)
    else:
        sys.exit(USAGE)
TIMEOUT = 10

CONSUMER = ("demo-consumer", "demo-consumer-secret")
DEVICE = ("demo-device", "demo-device-secret")
DEVICE_TOKEN = ("alice-device-token", "alice-device-token-secret")
RSA_CONSUMER_KEY = os.environ.get("RSA_CONSUMER_KEY", "rsa-consumer")
USER = ("alice", "wonderland")
FORM = "application/x-www-form-urlencoded"
REALM = "RemoteAuth Sandbox"

with open(os.path.join(VECTORS_DIR, "oauth1_signing.json")) as f:
    RSA_VECTOR = next(v for v in json.load(f) if v["name"] == "rfc5849_1.2_photos_rsa_sha1")
RSA_PRIVATE_KEY = RSA_VECTOR["rsa_private_key_pem"]

METHODS = [oauth1.SIGNATURE_HMAC_SHA1, oauth1.SIGNATURE_HMAC_SHA256, oauth1.SIGNATURE_PLAINTEXT,
           oauth1.SIGNATURE_RSA]
PLACEMENTS = [oauth1.SIGNATURE_TYPE_AUTH_HEADER, oauth1.SIGNATURE_TYPE_QUERY, oauth1.SIGNATURE_TYPE_BODY]

CHECKS = Checks("sandbox-oauthlib")


def check(ok, label, response=None):
    """Counts one check; a failure prints one line (with the response that failed it)."""
    return CHECKS.check(ok, label, describe(response) if response is not None and not ok else None)


def describe(response):
    r = response
    challenge = r.headers.get("WWW-Authenticate")
    location = r.headers.get("Location")
    text = r.text if len(r.text) <= 300 else r.text[:300] + "…"
    # A PLAINTEXT signature is the secrets themselves: keep it out of the output.
    url = re.sub(r"(oauth_signature=)[^&]*", r"\1…", r.request.url)
    return (f"{r.request.method} {url} -> {r.status_code}"
            + (f", WWW-Authenticate: {challenge}" if challenge else "")
            + (f", Location: {location}" if location else "")
            + f", body: {text!r}")


def client(consumer_key, consumer_secret=None, *, method=oauth1.SIGNATURE_HMAC_SHA1,
           placement=oauth1.SIGNATURE_TYPE_AUTH_HEADER, rsa_key=None, **kwargs):
    if method == oauth1.SIGNATURE_RSA:
        rsa_key = rsa_key or RSA_PRIVATE_KEY
    return oauth1.Client(consumer_key, client_secret=consumer_secret, signature_method=method,
                         signature_type=placement, rsa_key=rsa_key, **kwargs)


def send(c, http_method, path, form=None):
    """Signs with oauthlib and sends; a POST always carries a form body (maybe empty)."""
    url = BASE + path
    headers, body = {}, None
    if http_method == "POST":
        headers["Content-Type"] = FORM
        body = urllib.parse.urlencode(form or [])  # '+' for spaces, as browsers and requests send
    elif c.signature_type == oauth1.SIGNATURE_TYPE_BODY:
        # A GET has no body to carry the parameters: sign it in the query instead.
        c = oauth1.Client(c.client_key, client_secret=c.client_secret,
                          resource_owner_key=c.resource_owner_key,
                          resource_owner_secret=c.resource_owner_secret,
                          signature_method=c.signature_method, signature_type=oauth1.SIGNATURE_TYPE_QUERY,
                          rsa_key=c.rsa_key, nonce=c.nonce, timestamp=c.timestamp)
    uri, headers, body = c.sign(url, http_method, body=body, headers=headers)
    return requests.request(http_method, uri, headers=headers,
                            data=body.encode("ascii") if body is not None else None,
                            allow_redirects=False, timeout=TIMEOUT)


def is_form(response):
    return response.headers.get("Content-Type", "").split(";")[0].strip() == FORM


def form_decode(text):
    return dict(urllib.parse.parse_qsl(text, keep_blank_values=True))


def refused(response, problem, label, status=401):
    """`status` (401 unless said) with the sandbox's OAuth challenge naming `problem` and the same
    problem in the body."""
    challenge = response.headers.get("WWW-Authenticate", "")
    params = dict(re.findall(r'(\w+)="([^"]*)"', challenge))
    ok = (response.status_code == status and challenge.startswith("OAuth ")
          and params.get("realm") == REALM and params.get("oauth_problem") == problem
          and form_decode(response.text.strip()).get("oauth_problem") == problem)
    return check(ok, f"{label}: expected {status} with oauth_problem={problem}", response)


class ConsentPage(html.parser.HTMLParser):
    """The consent form's action and inputs, the PIN and whether an `id="error"` element is there."""

    def __init__(self, text):
        super().__init__()
        self.form = None
        self.inputs = {}
        self.buttons = {}
        self.error = False
        self.pin = None
        self._in_form = self._in_pin = False
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if a.get("id") == "error":
            self.error = True
        if tag == "form" and a.get("id") == "consent":
            self.form = a
            self._in_form = True
        elif tag == "input" and self._in_form and a.get("name"):
            self.inputs[a["name"]] = a.get("value") or ""
        elif tag == "button" and self._in_form and a.get("id"):
            self.buttons[a["id"]] = (a.get("name"), a.get("value"))
        elif tag == "code" and a.get("id") == "pin":
            self._in_pin = True
            self.pin = ""

    def handle_endtag(self, tag):
        if tag == "form":
            self._in_form = False
        elif tag == "code":
            self._in_pin = False

    def handle_data(self, data):
        if self._in_pin:
            self.pin += data


def request_token(c, label):
    r = send(c, "POST", "/oauth/request_token")
    fields = form_decode(r.text)
    if not check(r.status_code == 200 and is_form(r) and fields.get("oauth_token") and "oauth_token_secret" in fields
                 and fields.get("oauth_callback_confirmed") == "true",
                 f"{label}: request_token: expected 200, form-encoded, with oauth_token, oauth_token_secret and "
                 "oauth_callback_confirmed=true", r):
        return None
    return fields["oauth_token"], fields["oauth_token_secret"]


def consent(token, label, *, action="authorize", password=None, user=USER):
    """GET the consent page, POST its form back; returns (page, response of the POST)."""
    browser = requests.Session()
    r = browser.get(BASE + "/oauth/authorize", params={"oauth_token": token}, allow_redirects=False,
                    timeout=TIMEOUT)
    page = ConsentPage(r.text)
    if not check(r.status_code == 200 and page.form is not None
                 and (page.form.get("method") or "").lower() == "post"
                 and page.form.get("action") == "/oauth/authorize"
                 and page.inputs.get("oauth_token") == token and page.inputs.get("authenticity_token")
                 and "username" in page.inputs and "password" in page.inputs
                 and page.buttons.get("allow") == ("action", "authorize")
                 and page.buttons.get("deny") == ("action", "deny"),
                 f"{label}: authorize page: expected 200 with form#consent (post /oauth/authorize), "
                 "hidden oauth_token and authenticity_token, username, password, #allow and #deny", r):
        return page, None
    data = {"oauth_token": page.inputs["oauth_token"], "authenticity_token": page.inputs["authenticity_token"],
            "username": user[0], "password": user[1] if password is None else password, "action": action}
    r = browser.post(urllib.parse.urljoin(r.url, page.form["action"]), data=data, allow_redirects=False,
                     timeout=TIMEOUT)
    return page, r


def three_legged(method, placement, callback, auto_approve=False, consumer=None, user=USER):
    """The whole flow for one method and placement; returns the access token or None.
    With `auto_approve` the sandbox answers GET /oauth/authorize at once, with no consent page."""
    label = f"{method}/{placement}" + (" (auto-approve)" if auto_approve else "")
    if consumer is not None or user != USER:
        label += f" ({consumer[0] if consumer else CONSUMER[0]} for {user[0]})"
    consumer = consumer or ((RSA_CONSUMER_KEY, None) if method == oauth1.SIGNATURE_RSA else CONSUMER)
    rt = request_token(client(*consumer, method=method, placement=placement, callback_uri=callback), label)
    if rt is None:
        return None
    if auto_approve:
        r = requests.get(BASE + "/oauth/authorize", params={"oauth_token": rt[0]}, allow_redirects=False,
                         timeout=TIMEOUT)
    else:
        _, r = consent(rt[0], label, user=user)
    if r is None:
        return None
    if callback == "oob":
        pin = ConsentPage(r.text).pin
        if not check(r.status_code == 200 and pin is not None and re.fullmatch(r"[0-9]{7}", pin.strip()),
                     f"{label}: consent (oob): expected 200 with <code id=\"pin\"> and 7 digits", r):
            return None
        verifier = pin.strip()
    else:
        location = r.headers.get("Location", "")
        parts = urllib.parse.urlsplit(location)
        query = urllib.parse.parse_qs(parts.query, keep_blank_values=True)
        expected = urllib.parse.urlsplit(callback)
        if not check(r.status_code == 302 and (parts.scheme, parts.netloc, parts.path)
                     == (expected.scheme, expected.netloc, expected.path)
                     and all(query.get(k) == v for k, v in urllib.parse.parse_qs(expected.query).items())
                     and query.get("oauth_token") == [rt[0]] and len(query.get("oauth_verifier", [])) == 1
                     and query["oauth_verifier"][0],
                     f"{label}: consent: expected 302 to {callback} (its query kept) with oauth_token and "
                     "oauth_verifier", r):
            return None
        verifier = query["oauth_verifier"][0]
    r = send(client(*consumer, method=method, placement=placement, resource_owner_key=rt[0],
                    resource_owner_secret=rt[1], verifier=verifier), "POST", "/oauth/access_token")
    fields = form_decode(r.text)
    if not check(r.status_code == 200 and is_form(r) and fields.get("oauth_token") and "oauth_token_secret" in fields
                 and fields.get("user_id") and fields.get("screen_name") == user[0],
                 f"{label}: access_token: expected 200, form-encoded, with oauth_token, oauth_token_secret, user_id, "
                 f"screen_name={user[0]}", r):
        return None
    access = (fields["oauth_token"], fields["oauth_token_secret"])
    # The request token is spent: a second exchange must not work.
    r = send(client(*consumer, method=method, placement=placement, resource_owner_key=rt[0],
                    resource_owner_secret=rt[1], verifier=verifier), "POST", "/oauth/access_token")
    check(r.status_code == 401, f"{label}: access_token twice with one request token: expected 401", r)
    api(consumer, access, method, placement, label, user[0])
    return access


def api(consumer, access, method, placement, label, screen_name="alice"):
    def signed():
        return client(*consumer, method=method, placement=placement, resource_owner_key=access[0],
                      resource_owner_secret=access[1])

    r = send(signed(), "GET", "/1.1/account/verify_credentials.json")
    check(r.status_code == 200 and json_field(r, "screen_name") == screen_name,
          f"{label}: verify_credentials: expected 200 with \"screen_name\": \"{screen_name}\"", r)
    # The base string's hard cases in the query (RFC 5849 §3.4.1.3): '+' for a space, encoded '+',
    # '&', '=' and '%', an empty value, a repeated name out of order, non-ASCII names and values.
    query = urllib.parse.urlencode([("q", "a+b c&d=e%f"), ("empty", ""), ("dup", "2"), ("dup", "1"),
                                    ("ü", "漢字😀"), ("include_entities", "true")])
    r = send(signed(), "GET", "/1.1/account/verify_credentials.json?" + query)
    check(r.status_code == 200 and json_field(r, "screen_name") == screen_name,
          f"{label}: verify_credentials with a query of '+', '&', '%', empty, repeated and non-ASCII "
          "parameters: expected 200", r)
    status = f"{label} {uuid.uuid4().hex[:8]}: 1+1=2 & 100% sûr, Grüße, 漢字 😀 a+b%20c"
    r = send(signed(), "POST", "/1.1/statuses/update.json",
             form=[("dup", "b"), ("status", status), ("empty", ""), ("dup", "a"), ("é", "ü+&=%")])
    check(r.status_code == 200 and json_field(r, "text") == status,
          f"{label}: statuses/update: expected 200 with \"text\" equal to {status!r}", r)
    r = send(signed(), "GET", "/1.1/statuses/home_timeline.json?count=5")
    try:
        timeline = r.json() if r.headers.get("Content-Type", "").startswith("application/json") else None
    except ValueError:
        timeline = None
    check(r.status_code == 200 and isinstance(timeline, list) and timeline
          and isinstance(timeline[0], dict) and timeline[0].get("text") == status,
          f"{label}: home_timeline: expected a JSON array whose first (newest) \"text\" is {status!r}", r)


def json_field(response, name):
    if response.headers.get("Content-Type", "").split(";")[0].strip() != "application/json":
        return None
    try:
        value = response.json()
    except ValueError:
        return None
    return value.get(name) if isinstance(value, dict) else None


def negatives():
    device = dict(resource_owner_key=DEVICE_TOKEN[0], resource_owner_secret=DEVICE_TOKEN[1])
    verify = "/1.1/account/verify_credentials.json"

    # The device consumer's pre-issued access token works (two-legged use), in every placement.
    for placement in PLACEMENTS:
        r = send(client(*DEVICE, placement=placement, **device), "GET", verify)
        check(r.status_code == 200 and json_field(r, "screen_name") == "alice",
              f"device token/{placement}: verify_credentials: expected 200 with screen_name alice", r)

    # Wrong secrets: every method's signature must be checked.
    for method in METHODS:
        for placement in PLACEMENTS:
            label = f"wrong consumer secret {method}/{placement}"
            if method == oauth1.SIGNATURE_RSA:
                other = rsa_keys.generate_private_key(public_exponent=65537, key_size=1024).private_bytes(
                    serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                    serialization.NoEncryption()).decode()
                c = client(RSA_CONSUMER_KEY, method=method, placement=placement, rsa_key=other,
                           callback_uri="oob")
                label = f"RSA-SHA1 signed with another key/{placement}"
            else:
                c = client(CONSUMER[0], CONSUMER[1] + "x", method=method, placement=placement,
                           callback_uri="oob")
            refused(send(c, "POST", "/oauth/request_token"), "signature_invalid", f"request_token, {label}")
    for method in (oauth1.SIGNATURE_HMAC_SHA1, oauth1.SIGNATURE_PLAINTEXT):
        c = client(*DEVICE, method=method, resource_owner_key=DEVICE_TOKEN[0],
                   resource_owner_secret=DEVICE_TOKEN[1] + "x")
        refused(send(c, "GET", verify), "signature_invalid", f"verify_credentials, wrong token secret ({method})")

    # A tampered body: signed for one status, sent with another.
    c = client(*DEVICE, **device)
    uri, headers, body = c.sign(BASE + "/1.1/statuses/update.json", "POST", body="status=signed",
                                headers={"Content-Type": FORM})
    r = requests.post(uri, headers=headers, data=b"status=tampered", allow_redirects=False, timeout=TIMEOUT)
    refused(r, "signature_invalid", "statuses/update with a tampered body")

    # A replay: the same request, nonce and timestamp twice.
    c = client(*DEVICE, nonce=uuid.uuid4().hex, timestamp=str(int(time.time())), **device)
    first = send(c, "GET", verify)
    check(first.status_code == 200, "replay: the first request: expected 200", first)
    refused(send(c, "GET", verify), "nonce_used", "replay: the same nonce and timestamp again")

    # A timestamp an hour old, otherwise valid.
    c = client(*DEVICE, timestamp=str(int(time.time()) - 3600), **device)
    refused(send(c, "GET", verify), "timestamp_refused", "verify_credentials, timestamp 1 hour old")

    # Unknown consumer, unknown token.
    c = client("no-such-consumer", "whatever", callback_uri="oob")
    refused(send(c, "POST", "/oauth/request_token"), "consumer_key_unknown", "request_token, unknown consumer")
    c = client(*DEVICE, resource_owner_key="no-such-token", resource_owner_secret="x")
    refused(send(c, "GET", verify), "token_rejected", "verify_credentials, unknown token")

    # No oauth_callback on request_token: a well-signed but incomplete request, so 400 (RFC 5849 §3.2).
    refused(send(client(*CONSUMER), "POST", "/oauth/request_token"), "parameter_absent",
            "request_token without oauth_callback", status=400)

    # Unsigned API calls.
    for path in (verify, "/1.1/statuses/home_timeline.json"):
        r = requests.get(BASE + path, allow_redirects=False, timeout=TIMEOUT)
        check(r.status_code == 401 and r.headers.get("WWW-Authenticate", "").startswith("OAuth "),
              f"unsigned GET {path}: expected 401 with an OAuth challenge", r)
    r = requests.post(BASE + "/1.1/statuses/update.json", data={"status": "unsigned"}, allow_redirects=False,
                      timeout=TIMEOUT)
    check(r.status_code == 401, "unsigned POST statuses/update: expected 401", r)

    # A wrong verifier (on a request token of its own, authorized properly).
    callback = "http://client.example/cb"
    rt = request_token(client(*CONSUMER, callback_uri=callback), "wrong verifier")
    if rt is not None:
        _, r = consent(rt[0], "wrong verifier")
        if r is not None and check(r.status_code == 302, "wrong verifier: consent: expected 302", r):
            c = client(*CONSUMER, resource_owner_key=rt[0], resource_owner_secret=rt[1], verifier="0000000-wrong")
            refused(send(c, "POST", "/oauth/access_token"), "verifier_invalid", "access_token, wrong verifier")

    # The consent page: a wrong password shows the page again with an error; deny redirects with denied=.
    rt = request_token(client(*CONSUMER, callback_uri=callback), "consent negatives")
    if rt is not None:
        _, r = consent(rt[0], "wrong password", password="not-wonderland")
        if r is not None:
            page = ConsentPage(r.text)
            check(r.status_code == 200 and page.error and page.form is not None,
                  "consent with a wrong password: expected 200, the form again and an id=\"error\" element", r)
        _, r = consent(rt[0], "deny", action="deny")
        if r is not None:
            query = urllib.parse.parse_qs(urllib.parse.urlsplit(r.headers.get("Location", "")).query)
            check(r.status_code == 302 and r.headers["Location"].startswith(callback)
                  and query.get("denied") == [rt[0]] and "oauth_verifier" not in query,
                  f"consent, deny: expected 302 to {callback}?denied={rt[0]}", r)
            c = client(*CONSUMER, resource_owner_key=rt[0], resource_owner_secret=rt[1], verifier="x")
            r = send(c, "POST", "/oauth/access_token")
            check(r.status_code == 401, "access_token with a denied request token: expected 401", r)


if AUTO_APPROVE:
    # A sandbox started with --auto-approve: GET /oauth/authorize redirects (or shows the PIN) at once.
    try:
        three_legged(oauth1.SIGNATURE_HMAC_SHA1, oauth1.SIGNATURE_TYPE_AUTH_HEADER, "http://client.example/cb?app=auto",
                     auto_approve=True)
        three_legged(oauth1.SIGNATURE_HMAC_SHA256, oauth1.SIGNATURE_TYPE_QUERY, "oob", auto_approve=True)
    except requests.RequestException as error:
        check(False, f"the sandbox at {BASE} did not answer: {error}")
    CHECKS.finish("auto-approve")

try:
    for method in METHODS:
        for placement in PLACEMENTS:
            # Callbacks with a query of their own (the verifier is appended to it); one run uses oob.
            oob = method == oauth1.SIGNATURE_PLAINTEXT and placement == oauth1.SIGNATURE_TYPE_AUTH_HEADER
            three_legged(method, placement, "oob" if oob else f"http://client.example/cb?app=interop&run={method}")
    # What --config added: each consumer with a shared secret, each user (consenting to demo-consumer).
    for extra in CONFIG.get("consumers", []):
        if extra.get("secret") is not None:
            three_legged(oauth1.SIGNATURE_HMAC_SHA1, oauth1.SIGNATURE_TYPE_AUTH_HEADER, "http://client.example/cb",
                         consumer=(extra["key"], extra["secret"]))
    for extra in CONFIG.get("users", []):
        three_legged(oauth1.SIGNATURE_HMAC_SHA1, oauth1.SIGNATURE_TYPE_AUTH_HEADER, "http://client.example/cb",
                     user=(extra["name"], extra["password"]))
    negatives()
except requests.RequestException as error:
    check(False, f"the sandbox at {BASE} did not answer: {error}")

CHECKS.finish()
