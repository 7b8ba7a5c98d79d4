"""DPoP (RFC 9449) against joserfc, a JOSE library nobody here wrote.

    python3 dpop_joserfc.py REMOTE_AUTH_BINARY SANDBOX_URL

The sandbox must run with --dpop-nonce.

1. joserfc verifies the proofs remote-auth makes: `authorize oauth2 --dpop` signs in at the
   sandbox for a resource server played here (http.server); `request --profile` calls it, and
   this server first asks for a nonce (401 use_dpop_nonce), then checks with joserfc the proof
   of the retry: signature with the header's jwk, typ, htm, htu, iat, jti, ath, nonce, and the
   jwk's thumbprint against the one `profiles show` prints.
2. The sandbox (RemoteAuth's ProofVerifier) checks proofs joserfc makes, for ES256, RS256, PS256
   and EdDSA: token request (with the authorization server's nonce retry), the status API (with
   the resource server's nonce retry), introspection's cnf.jkt, and the refusals (a replayed
   proof, the token as Bearer, a proof of another key, alg none).
3. dpop_jkt (RFC 9449 §10), against a second sandbox started here with --auto-approve:
   a. joserfc as the client: the authorization request carries joserfc's RFC 7638 thumbprint of
      its key as dpop_jkt; the sandbox redeems the code only with a joserfc proof of that key
      (invalid_grant with another key's proof, or none), and cnf.jkt is that thumbprint;
   b. remote-auth as the client: `authorize oauth2 --dpop` (code flow) sends dpop_jkt, and
      joserfc's thumbprint of the public part of the key kept with the profile is that value.
"""
import base64
import hashlib
import http.server
import json
import os
import re
import subprocess
import sys
import tempfile
import threading
import time
import uuid
import warnings

import requests
from joserfc import jws
from joserfc.jwk import ECKey, OKPKey, RSAKey

sys.path.insert(0, os.path.dirname(__file__))
from harness import Checks, Command, free_port  # noqa: E402

binary, sandbox = sys.argv[1], sys.argv[2].rstrip("/")
checks = Checks("dpop-joserfc")
# RFC 9864 deprecates the fully specified "EdDSA" for "Ed25519"; RFC 9449 proofs still use EdDSA.
warnings.filterwarnings("ignore", message="EdDSA is deprecated")
ALGORITHMS = ["ES256", "RS256", "PS256", "EdDSA"]


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def ath(token):
    return b64url(hashlib.sha256(token.encode()).digest())


# 1. joserfc verifies remote-auth's proofs ------------------------------------------------------

class ResourceServer(http.server.BaseHTTPRequestHandler):
    seen = []

    def do_GET(self):
        ResourceServer.seen.append((self.path, dict(self.headers)))
        if len(ResourceServer.seen) == 1:
            self.send_response(401)
            self.send_header("WWW-Authenticate", 'DPoP algs="ES256", error="use_dpop_nonce"')
            self.send_header("DPoP-Nonce", "py-nonce.1")
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        body = b'{"ok":true}'
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


port = free_port()
server = http.server.HTTPServer(("127.0.0.1", port), ResourceServer)
threading.Thread(target=server.serve_forever, daemon=True).start()
resource = f"http://127.0.0.1:{port}"
home = tempfile.mkdtemp(prefix="remote-auth-dpop-")
env = dict(os.environ, REMOTE_AUTH_HOME=home)


def run(*args, stdin=None):
    return subprocess.run([binary, *args], input=stdin, capture_output=True, text=True, env=env, timeout=60)


signed = run("authorize", "oauth2", "--client-credentials", "--dpop", "--profile", "py", "--issuer", sandbox,
             "--client-id", "demo-service", "--client-secret", "-", "--scope", "statuses:read",
             "--resource", resource + "/", stdin="demo-service-secret\n")
checks.check(signed.returncode == 0, "authorize oauth2 --dpop signs in", signed.stderr)
checks.check("DPoP: the tokens are bound to key " in signed.stderr, "the tokens are DPoP-bound", signed.stderr)
shown = run("profiles", "show", "py").stdout
jkt = next((line.split("jkt ")[1] for line in shown.splitlines() if line.startswith("dpop key: jkt ")), None)
checks.check(jkt is not None, "profiles show prints the key's thumbprint", shown)
token = run("token", "--profile", "py").stdout.strip()

started = int(time.time())
called = run("request", "--profile", "py", resource + "/api/items?page=2#top")
checks.check(called.returncode == 0 and '"ok":true' in called.stdout, "request --profile reaches the resource",
             called.stderr)
checks.check(len(ResourceServer.seen) == 2, "exactly one retry after use_dpop_nonce", str(len(ResourceServer.seen)))
for index, (path, headers) in enumerate(ResourceServer.seen):
    proof = headers.get("DPoP") or headers.get("Dpop")
    checks.check(headers.get("Authorization") == "DPoP " + token, f"request {index}: Authorization: DPoP <token>")
    if not checks.check(proof is not None, f"request {index}: a DPoP proof"):
        continue
    header = json.loads(base64.urlsafe_b64decode(proof.split(".")[0] + "=="))
    key = ECKey.import_key(header["jwk"])
    checks.check("d" not in header["jwk"], f"request {index}: the jwk is public")
    try:
        verified = jws.deserialize_compact(proof, key, algorithms=["ES256"])
    except Exception as error:  # noqa: BLE001
        checks.check(False, f"request {index}: joserfc verifies the ES256 signature", repr(error))
        continue
    checks.check(True, f"request {index}: joserfc verifies the ES256 signature")
    claims = json.loads(verified.payload)
    checks.check(verified.protected.get("typ") == "dpop+jwt", f"request {index}: typ dpop+jwt")
    checks.check(claims.get("htm") == "GET", f"request {index}: htm GET", claims.get("htm"))
    checks.check(claims.get("htu") == resource + "/api/items", f"request {index}: htu without query and fragment",
                 claims.get("htu"))
    checks.check(abs(claims.get("iat", 0) - started) < 60, f"request {index}: iat is now")
    checks.check(len(claims.get("jti", "")) >= 16, f"request {index}: a jti of 96 bits or more")
    checks.check(claims.get("ath") == ath(token), f"request {index}: ath is the token's hash")
    checks.check(key.thumbprint() == jkt, f"request {index}: the jwk's thumbprint is the profile's key")
    checks.check(claims.get("nonce") == (None if index == 0 else "py-nonce.1"), f"request {index}: the nonce",
                 claims.get("nonce"))
jtis = {json.loads(base64.urlsafe_b64decode(h.get("DPoP", "..").split(".")[1] + "==") or "{}").get("jti")
        for _, h in ResourceServer.seen if h.get("DPoP")}
checks.check(len(jtis) == 2, "every proof has its own jti")
server.shutdown()


# 2. RemoteAuth's verifier (the sandbox) checks joserfc's proofs ----------------------------------

def new_key(alg):
    if alg == "ES256":
        return ECKey.generate_key("P-256")
    if alg == "EdDSA":
        return OKPKey.generate_key("Ed25519")
    return RSAKey.generate_key(2048)


def proof(key, alg, method, url, token=None, nonce=None, typ="dpop+jwt"):
    claims = {"jti": str(uuid.uuid4()), "htm": method, "htu": url, "iat": int(time.time())}
    if token:
        claims["ath"] = ath(token)
    if nonce:
        claims["nonce"] = nonce
    header = {"typ": typ, "alg": alg, "jwk": key.as_dict(private=False)}
    return jws.serialize_compact(header, json.dumps(claims), key, algorithms=[alg])


token_url = sandbox + "/oauth2/token"
timeline = sandbox + "/1.1/statuses/home_timeline.json"
basic = ("demo-service", "demo-service-secret")
for alg in ALGORITHMS:
    key = new_key(alg)
    form = {"grant_type": "client_credentials", "scope": "statuses:read"}
    first = requests.post(token_url, data=form, auth=basic, headers={"DPoP": proof(key, alg, "POST", token_url)})
    as_nonce = first.headers.get("DPoP-Nonce")
    checks.check(first.status_code == 400 and first.json().get("error") == "use_dpop_nonce" and as_nonce,
                 f"{alg}: the token endpoint asks for its nonce", first.text)
    issued = requests.post(token_url, data=form, auth=basic,
                           headers={"DPoP": proof(key, alg, "POST", token_url, nonce=as_nonce)})
    body = issued.json() if issued.headers.get("Content-Type", "").startswith("application/json") else {}
    if not checks.check(issued.status_code == 200 and body.get("token_type") == "DPoP",
                        f"{alg}: a DPoP-bound token for a joserfc proof", issued.text):
        continue
    access = body["access_token"]
    challenge = requests.get(timeline, headers={"Authorization": "DPoP " + access,
                                                "DPoP": proof(key, alg, "GET", timeline, token=access)})
    rs_nonce = challenge.headers.get("DPoP-Nonce")
    checks.check(challenge.status_code == 401 and 'error="use_dpop_nonce"' in challenge.headers.get(
        "WWW-Authenticate", "") and rs_nonce, f"{alg}: the status API asks for its nonce", challenge.text)
    good = proof(key, alg, "GET", timeline, token=access, nonce=rs_nonce)
    answered = requests.get(timeline, headers={"Authorization": "DPoP " + access, "DPoP": good})
    checks.check(answered.status_code == 200, f"{alg}: the status API accepts the DPoP token", answered.text)
    replayed = requests.get(timeline, headers={"Authorization": "DPoP " + access, "DPoP": good})
    checks.check(replayed.status_code == 401, f"{alg}: a replayed proof is refused", replayed.text)
    as_bearer = requests.get(timeline, headers={"Authorization": "Bearer " + access})
    checks.check(as_bearer.status_code == 401 and as_bearer.headers.get("WWW-Authenticate", "").startswith("DPoP "),
                 f"{alg}: the bound token as Bearer is refused", as_bearer.text)
    other = ECKey.generate_key("P-256")
    stolen = requests.get(timeline, headers={
        "Authorization": "DPoP " + access,
        "DPoP": proof(other, "ES256", "GET", timeline, token=access, nonce=rs_nonce)})
    checks.check(stolen.status_code == 401, f"{alg}: a proof of another key is refused", stolen.text)
    introspected = requests.post(sandbox + "/oauth2/introspect", data={"token": access}, auth=basic).json()
    checks.check(introspected.get("cnf", {}).get("jkt") == key.thumbprint(),
                 f"{alg}: introspection's cnf.jkt is joserfc's RFC 7638 thumbprint", json.dumps(introspected))

# alg none and a typ that is not dpop+jwt are refused.
key = ECKey.generate_key("P-256")
claims = {"jti": str(uuid.uuid4()), "htm": "POST", "htu": token_url, "iat": int(time.time())}
unsigned = (b64url(json.dumps({"typ": "dpop+jwt", "alg": "none", "jwk": key.as_dict(private=False)}).encode())
            + "." + b64url(json.dumps(claims).encode()) + ".")
refused = requests.post(token_url, data={"grant_type": "client_credentials"}, auth=basic, headers={"DPoP": unsigned})
checks.check(refused.status_code == 400 and refused.json().get("error") == "invalid_dpop_proof",
             "alg none is refused", refused.text)
wrong_typ = requests.post(token_url, data={"grant_type": "client_credentials"}, auth=basic,
                          headers={"DPoP": proof(key, "ES256", "POST", token_url, typ="JWT")})
checks.check(wrong_typ.status_code == 400 and wrong_typ.json().get("error") == "invalid_dpop_proof",
             "typ JWT is refused", wrong_typ.text)


# 3. dpop_jkt: the authorization code bound to a key (RFC 9449 §10) --------------------------------

approving = subprocess.Popen([binary, "sandbox", "--port", "0", "--auto-approve", "--quiet"],
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
try:
    first = approving.stdout.readline()
    base = next(iter(re.findall(r"http://127\.0\.0\.1:\d+", first)), "")
    checks.check(base.startswith("http://127.0.0.1:"), "a second sandbox with --auto-approve", base)
    redirect_uri = "http://127.0.0.1:53123/callback"

    def code_for(jkt):
        """A code for demo-app, asked with PKCE and dpop_jkt=jkt; (code, verifier)."""
        verifier = b64url(os.urandom(32))
        query = {"response_type": "code", "client_id": "demo-app", "redirect_uri": redirect_uri,
                 "state": b64url(os.urandom(16)), "code_challenge": b64url(hashlib.sha256(verifier.encode()).digest()),
                 "code_challenge_method": "S256", "dpop_jkt": jkt}
        answer = requests.get(base + "/oauth2/authorize", params=query, allow_redirects=False)
        location = answer.headers.get("Location", "")
        code = dict(p.split("=", 1) for p in location.split("?", 1)[-1].split("&") if "=" in p).get("code")
        return code, verifier

    def exchange(code, verifier, key=None):
        form = {"grant_type": "authorization_code", "code": code, "code_verifier": verifier,
                "redirect_uri": redirect_uri, "client_id": "demo-app"}
        headers = {"DPoP": proof(key, "ES256", "POST", base + "/oauth2/token")} if key else {}
        return requests.post(base + "/oauth2/token", data=form, headers=headers)

    key = ECKey.generate_key("P-256")
    jkt = key.thumbprint()
    for label, presented in [("another key's proof", ECKey.generate_key("P-256")), ("no proof", None)]:
        code, verifier = code_for(jkt)
        refused = exchange(code, verifier, presented)
        checks.check(refused.status_code == 400 and refused.json().get("error") == "invalid_grant",
                     f"dpop_jkt: the code exchanged with {label} is refused (invalid_grant)", refused.text)
    code, verifier = code_for(jkt)
    issued = exchange(code, verifier, key)
    body = issued.json() if issued.status_code == 200 else {}
    checks.check(body.get("token_type") == "DPoP", "dpop_jkt: a joserfc proof of the named key redeems the code",
                 issued.text)
    if body:
        introspected = requests.post(base + "/oauth2/introspect", data={"token": body["access_token"]},
                                     auth=basic).json()
        checks.check(introspected.get("cnf", {}).get("jkt") == jkt,
                     "dpop_jkt: cnf.jkt is joserfc's thumbprint of the key", json.dumps(introspected))
    malformed = requests.get(base + "/oauth2/authorize", allow_redirects=False, params={
        "response_type": "code", "client_id": "demo-app", "redirect_uri": redirect_uri, "state": "s" * 22,
        "code_challenge": b64url(hashlib.sha256(b"v").digest()), "code_challenge_method": "S256",
        "dpop_jkt": jkt + "A"})
    checks.check("error=invalid_request" in malformed.headers.get("Location", ""),
                 "dpop_jkt: a value that is not a SHA-256 thumbprint is refused", malformed.headers.get("Location"))

    # b. remote-auth's code flow with --dpop.
    signing = Command(binary, ["authorize", "oauth2", "--dpop", "--profile", "jkt", "--issuer", base,
                               "--client-id", "demo-app", "--no-browser", "--timeout", "30"], env)
    found = signing.line_matching(r"^(http://\S+/oauth2/authorize\?\S+)$")
    if checks.check(found is not None, "authorize oauth2 --dpop prints the authorization URL", signing.describe()):
        url = found.group(1)
        sent = dict(p.split("=", 1) for p in url.split("?", 1)[1].split("&"))
        callback = requests.get(url, allow_redirects=False).headers.get("Location", "")
        requests.get(callback)
        status = signing.wait()
        checks.check(status == 0, "authorize oauth2 --dpop signs in with the code flow", signing.describe())
        stored = json.load(open(os.path.join(home, "tokens.json")))

        entries = stored if isinstance(stored, list) else []
        jwk = next((entry.get("session", {}).get("oauth2", {}).get("binding", {}).get("dpopKey") for entry in entries
                    if entry.get("key", {}).get("service") == "jkt"), None) or {}
        public = {name: jwk[name] for name in ("kty", "crv", "x", "y") if name in jwk}
        checks.check(len(sent.get("dpop_jkt", "")) == 43, "remote-auth sends dpop_jkt", url)
        checks.check(public and ECKey.import_key(public).thumbprint() == sent.get("dpop_jkt"),
                     "remote-auth's dpop_jkt is joserfc's thumbprint of the profile's key", json.dumps(public))
    else:
        signing.kill()
finally:
    approving.terminate()
    approving.wait()

checks.finish()
