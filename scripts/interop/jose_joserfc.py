#!/usr/bin/env python3
"""Interop: Python's joserfc and RemoteAuth's JOSE module (through `remote-auth jwt`) read
each other's tokens, for every algorithm the library implements.

For ES256, RS256, PS256, EdDSA, Ed25519 (RFC 9864) and HS256, with keys joserfc generates:
- `remote-auth jwt sign` (with the key as a private JWK and, for the asymmetric ones, as PEM)
  makes a token joserfc verifies, with the same header and claims;
- joserfc signs a token `remote-auth jwt verify` accepts with the public JWK, a JWK Set (by
  kid) and the PEM public key, and prints the same header and claims;
- a token with one flipped signature character, another algorithm than allowed, `alg: none`,
  a `crit` header, or an unknown kid is refused (exit 1);
- `remote-auth jwt thumbprint` prints joserfc's RFC 7638 thumbprint.

Usage: jose_joserfc.py REMOTE_AUTH_BINARY
Prints one line per failure and ends with 'jose-joserfc: N passed, M failed'.
"""
import base64
import json
import os
import subprocess
import sys
import tempfile
import warnings

from harness import Checks
from joserfc import jwt
from joserfc.jwk import ECKey, OctKey, OKPKey, RSAKey
from joserfc.jws import JWSRegistry
from joserfc.registry import HeaderParameter

# joserfc warns that RFC 9864 deprecates "EdDSA" in favour of "Ed25519"; "EdDSA" is still what
# RFC 8037 and most issuers use, and what this checks.
warnings.filterwarnings("ignore", message="EdDSA is deprecated")

binary = sys.argv[1]
checks = Checks("jose-joserfc")
work = tempfile.mkdtemp(prefix="jose-joserfc-")


def run(*args, stdin=None):
    result = subprocess.run([binary, "jwt", *args], capture_output=True, text=True, input=stdin, timeout=60)
    return result.returncode, result.stdout.strip(), result.stderr.strip()


def write(name, content):
    path = os.path.join(work, name)
    with open(path, "w" if isinstance(content, str) else "wb") as f:
        f.write(content)
    os.chmod(path, 0o600)
    return path


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


KEYS = {
    "ES256": lambda: ECKey.generate_key("P-256"),
    "RS256": lambda: RSAKey.generate_key(2048),
    "PS256": lambda: RSAKey.generate_key(2048),
    "EdDSA": lambda: OKPKey.generate_key("Ed25519"),
    "Ed25519": lambda: OKPKey.generate_key("Ed25519"),
    "HS256": lambda: OctKey.generate_key(256),
}
claims = {"iss": "https://issuer.example", "sub": "alice", "aud": "client", "n": 7, "ok": True,
          "name": "Zoë Ådams", "roles": ["a", "b"]}

for alg, make in KEYS.items():
    key = make()
    kid = f"kid-{alg.lower()}"
    private = key.as_dict(private=True)
    private["kid"] = kid
    private_jwk = write(f"{alg}.private.json", json.dumps(private))
    asymmetric = alg != "HS256"
    public = key.as_dict(private=False) if asymmetric else dict(private)
    public["kid"] = kid
    public_jwk = write(f"{alg}.public.json", json.dumps(public))

    # 1. We sign, joserfc verifies.
    signers = [("jwk", private_jwk)]
    if asymmetric:
        signers.append(("pem", write(f"{alg}.pem", key.as_pem(private=True))))
    for form, path in signers:
        status, token, err = run("sign", "--key", path, "--alg", alg, "--kid", kid, "--typ", "JWT",
                                 json.dumps(claims))
        if not checks.check(status == 0, f"{alg}: remote-auth signs with the {form} key", err):
            continue
        try:
            decoded = jwt.decode(token, key, algorithms=[alg])
            checks.check(decoded.claims == claims, f"{alg} ({form}): joserfc reads our claims", decoded.claims)
            checks.check(decoded.header == {"alg": alg, "kid": kid, "typ": "JWT"},
                         f"{alg} ({form}): joserfc reads our header", decoded.header)
        except Exception as error:  # noqa: BLE001 - any refusal is a failed check
            checks.check(False, f"{alg} ({form}): joserfc verifies our token", repr(error))

    # 2. joserfc signs, we verify: with the public JWK, a JWK Set, and the PEM public key.
    theirs = jwt.encode({"alg": alg, "kid": kid}, claims, key, algorithms=[alg])
    other = KEYS[alg]().as_dict(private=not asymmetric)
    other["kid"] = "other"
    keyset = write(f"{alg}.jwks.json", json.dumps({"keys": [other, public]}))
    sources = [("jwk", public_jwk), ("jwks", keyset)]
    if asymmetric:
        sources.append(("pem", write(f"{alg}.pub.pem", key.as_pem(private=False))))
    for form, path in sources:
        status, out, err = run("verify", "--key", path, "--alg", alg, theirs)
        if checks.check(status == 0, f"{alg}: remote-auth verifies joserfc's token with the {form}", err):
            printed = json.loads(out)
            checks.check(printed["payload"] == claims, f"{alg} ({form}): the claims read back", printed)
            checks.check(printed["header"] == {"alg": alg, "kid": kid, "typ": "JWT"},
                         f"{alg} ({form}): the header reads back", printed)

    # 3. What must be refused.
    head, payload, signature = theirs.split(".")
    flipped = head + "." + payload + "." + ("A" if signature[0] != "A" else "B") + signature[1:]
    status, _, err = run("verify", "--key", public_jwk, "--alg", alg, flipped)
    checks.check(status == 1 and "invalidSignature" in err, f"{alg}: a flipped signature is refused", err)
    others = [a for a in KEYS if a != alg]
    status, _, err = run("verify", "--key", public_jwk, *sum((["--alg", a] for a in others), []), theirs)
    checks.check(status == 1 and "algorithmNotAllowed" in err, f"{alg}: an algorithm not allowed is refused", err)
    # A critical extension joserfc is told about (RFC 7515 §4.1.11); we know none.
    registry = JWSRegistry(header_registry={"urn:example:ext": HeaderParameter("example", "int")}, algorithms=[alg])
    crit = jwt.encode({"alg": alg, "kid": kid, "crit": ["urn:example:ext"], "urn:example:ext": 1}, claims, key,
                      algorithms=[alg], registry=registry)
    status, _, err = run("verify", "--key", public_jwk, "--alg", alg, crit)
    checks.check(status == 1 and "criticalHeader" in err, f"{alg}: a crit header is refused", err)
    unknown = jwt.encode({"alg": alg, "kid": "nobody"}, claims, key, algorithms=[alg])
    status, _, err = run("verify", "--key", keyset, "--alg", alg, unknown)
    checks.check(status == 1 and "unknownKey" in err, f"{alg}: an unknown kid is refused, no fallback", err)

    # 4. Thumbprints (RFC 7638), joserfc's against ours.
    status, out, err = run("thumbprint", public_jwk)
    checks.check(status == 0 and out == key.thumbprint(), f"{alg}: the thumbprint is joserfc's", f"{out} {err}")

# alg none, even when asked for (RFC 7515 Appendix A.5's token).
none = b64url(b'{"alg":"none"}') + "." + b64url(json.dumps(claims).encode()) + "."
status, _, err = run("verify", "--key", os.path.join(work, "ES256.public.json"), "--alg", "none", "--alg", "ES256",
                     none)
checks.check(status == 1 and "algorithmNotAllowed" in err, "alg none is refused even when named", err)

checks.finish()
