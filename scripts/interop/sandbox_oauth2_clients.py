"""Third-party OAuth 2 clients against the sandbox's authorization server (issue 12): Authlib and
requests-oauthlib, which nobody here wrote, drive every grant the sandbox offers, and the
answers are checked against RFC 6749, RFC 7636, RFC 9207, RFC 6750, RFC 7009, RFC 7662 and RFC 8628.

    python3 sandbox_oauth2_clients.py SANDBOX_URL

The browser's part (the consent form) is played with requests.
"""
import os
import re
import sys
import urllib.parse

import requests
from authlib.common.security import generate_token
from authlib.integrations.requests_client import OAuth2Session as AuthlibSession
from oauthlib.oauth2 import BackendApplicationClient
from requests_oauthlib import OAuth2Session as RequestsOAuthlibSession

from harness import Checks

# The sandbox listens on plain http on loopback; oauthlib refuses that without this switch.
os.environ["OAUTHLIB_INSECURE_TRANSPORT"] = "1"

base = sys.argv[1].rstrip("/")
checks = Checks("sandbox-oauth2")
check = checks.check
# A registered loopback redirect without a port accepts any port (RFC 8252 §7.3).
redirect = "http://127.0.0.1:41234/callback"


def consent(url, action="authorize"):
    """Signs in as alice on the consent page and presses `action`; returns the redirect."""
    browser = requests.Session()
    page = browser.get(url)
    if not check(page.status_code == 200, "the consent page opens", f"{page.status_code} {page.text[:200]}"):
        return None
    fields = {name: value for name, value in re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)"', page.text)}
    fields.update({"username": "alice", "password": "wonderland", "action": action})
    answer = browser.post(base + "/oauth2/authorize", data=fields, allow_redirects=False)
    check(answer.status_code == 302, f"the consent form ({action}) redirects", f"{answer.status_code} {answer.text[:200]}")
    return answer.headers.get("Location")


def query(location):
    return dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(location).query))


metadata = requests.get(base + "/.well-known/oauth-authorization-server").json()
check(metadata.get("issuer") == base, "RFC 8414: the issuer is the sandbox's URL", metadata.get("issuer"))
check(metadata.get("code_challenge_methods_supported") == ["S256"], "RFC 7636: S256 only")
check(metadata.get("authorization_response_iss_parameter_supported") is True, "RFC 9207 is announced")
openid = requests.get(base + "/.well-known/openid-configuration").json()
check(openid.get("issuer") == base, "OpenID discovery names the same issuer")

# Authlib, public client: code + PKCE, a Bearer call, refresh with rotation, revocation.
client = AuthlibSession("demo-app", redirect_uri=redirect, scope="statuses:read statuses:write",
                        code_challenge_method="S256", token_endpoint_auth_method="none")
verifier = generate_token(48)
url, state = client.create_authorization_url(metadata["authorization_endpoint"], code_verifier=verifier)
location = consent(url)
if location:
    answer = query(location)
    check(location.startswith(redirect + "?"), "the redirect goes to the registered loopback URI on its port", location)
    check(answer.get("state") == state, "RFC 6749 §4.1.2: state comes back unchanged")
    check(answer.get("iss") == base, "RFC 9207: iss is the issuer", answer.get("iss"))
    token = client.fetch_token(metadata["token_endpoint"], authorization_response=location, code_verifier=verifier)
    check(token.get("token_type") == "Bearer", "Authlib: token_type Bearer", token.get("token_type"))
    check(token.get("expires_in") == 3600, "Authlib: expires_in 3600", token.get("expires_in"))
    check(token.get("scope") == "statuses:read statuses:write", "Authlib: the granted scope", token.get("scope"))
    check(bool(token.get("refresh_token")), "Authlib: a refresh token")
    me = client.get(base + "/1.1/account/verify_credentials.json")
    check(me.status_code == 200 and me.json().get("screen_name") == "alice", "Authlib: a Bearer call as alice",
          f"{me.status_code} {me.text[:200]}")
    renewed = client.refresh_token(metadata["token_endpoint"], refresh_token=token["refresh_token"])
    check(renewed.get("refresh_token") not in (None, token["refresh_token"]), "RFC 6749 §6: the refresh token rotates")
    reused = requests.post(metadata["token_endpoint"], data={"grant_type": "refresh_token", "client_id": "demo-app",
                                                              "refresh_token": token["refresh_token"]})
    check(reused.status_code == 400 and reused.json().get("error") == "invalid_grant",
          "a rotated refresh token is refused with invalid_grant", f"{reused.status_code} {reused.text[:200]}")
    family = client.get(base + "/1.1/account/verify_credentials.json",
                        headers={"Authorization": "Bearer " + renewed["access_token"]})
    check(family.status_code == 401 and 'error="invalid_token"' in family.headers.get("WWW-Authenticate", ""),
          "reusing a rotated refresh token revokes its family (RFC 6750 §3.1 invalid_token)",
          f"{family.status_code} {family.headers.get('WWW-Authenticate')}")

    again = AuthlibSession("demo-app", redirect_uri=redirect, scope="statuses:read", code_challenge_method="S256",
                           token_endpoint_auth_method="none")
    verifier = generate_token(48)
    url, _ = again.create_authorization_url(metadata["authorization_endpoint"], code_verifier=verifier)
    location = consent(url)
    token = again.fetch_token(metadata["token_endpoint"], authorization_response=location, code_verifier=verifier)
    revoked = again.revoke_token(metadata["revocation_endpoint"], token=token["refresh_token"],
                                 token_type_hint="refresh_token")
    check(revoked.status_code == 200, "RFC 7009: revocation answers 200", revoked.status_code)
    after = requests.post(metadata["token_endpoint"], data={"grant_type": "refresh_token", "client_id": "demo-app",
                                                             "refresh_token": token["refresh_token"]})
    check(after.json().get("error") == "invalid_grant", "a revoked refresh token is refused", after.text[:200])

# The user refuses: access_denied, with state and iss (RFC 6749 §4.1.2.1).
client = AuthlibSession("demo-app", redirect_uri=redirect, scope="statuses:read", code_challenge_method="S256",
                        token_endpoint_auth_method="none")
url, state = client.create_authorization_url(metadata["authorization_endpoint"], code_verifier=generate_token(48))
location = consent(url, action="deny")
if location:
    answer = query(location)
    check(answer.get("error") == "access_denied" and answer.get("state") == state and answer.get("iss") == base,
          "a refusal redirects with error=access_denied, state and iss", location)

# Authlib, confidential client: client_credentials with both secret methods, then introspection.
for method in ("client_secret_basic", "client_secret_post"):
    service = AuthlibSession("demo-service", "demo-service-secret", token_endpoint_auth_method=method)
    token = service.fetch_token(metadata["token_endpoint"], grant_type="client_credentials", scope="statuses:read")
    check(token.get("scope") == "statuses:read" and "refresh_token" not in token,
          f"Authlib client_credentials ({method}): the scope, no refresh token (RFC 6749 §4.4.3)", token.get("scope"))
    seen = service.introspect_token(metadata["introspection_endpoint"], token=token["access_token"]).json()
    check(seen.get("active") is True and seen.get("client_id") == "demo-service" and seen.get("scope") == "statuses:read",
          f"RFC 7662 introspection ({method})", {k: seen.get(k) for k in ("active", "client_id", "scope")})
refused = requests.post(metadata["token_endpoint"], data={"grant_type": "client_credentials"},
                        auth=("demo-service", "not-the-secret"))
check(refused.status_code == 401 and refused.json().get("error") == "invalid_client"
      and refused.headers.get("WWW-Authenticate", "").startswith("Basic "),
      "a wrong client secret: 401 invalid_client with a Basic challenge (RFC 6749 §5.2)",
      f"{refused.status_code} {refused.text[:200]}")

# requests-oauthlib, public client: code + PKCE, Bearer reads, a write refused for its scope, refresh.
session = RequestsOAuthlibSession("demo-app", redirect_uri=redirect, scope=["statuses:read"], pkce="S256")
url, state = session.authorization_url(metadata["authorization_endpoint"])
location = consent(url)
if location:
    token = session.fetch_token(metadata["token_endpoint"], authorization_response=location, include_client_id=True)
    check(token.get("scope") == ["statuses:read"], "requests-oauthlib: the granted scope", token.get("scope"))
    timeline = session.get(base + "/1.1/statuses/home_timeline.json")
    check(timeline.status_code == 200, "requests-oauthlib: a Bearer read", timeline.status_code)
    write = session.post(base + "/1.1/statuses/update.json", data={"status": "not allowed"})
    check(write.status_code == 403 and write.headers.get("WWW-Authenticate") ==
          'Bearer realm="RemoteAuth Sandbox", error="insufficient_scope", scope="statuses:write", '
          f'resource_metadata="{base}/.well-known/oauth-protected-resource/1.1"',
          "RFC 6750 §3.1: a write with a read token is 403 insufficient_scope",
          f"{write.status_code} {write.headers.get('WWW-Authenticate')}")
    renewed = session.refresh_token(metadata["token_endpoint"], client_id="demo-app")
    check(renewed.get("refresh_token") != token.get("refresh_token"), "requests-oauthlib: refresh rotates")

backend = RequestsOAuthlibSession(client=BackendApplicationClient(client_id="demo-service"))
token = backend.fetch_token(metadata["token_endpoint"], client_id="demo-service", client_secret="demo-service-secret")
check(token.get("token_type") == "Bearer", "requests-oauthlib: client_credentials with Basic", token.get("token_type"))

# The device grant (RFC 8628) by hand: pending, then approved on /device, then the tokens.
device = requests.post(metadata["device_authorization_endpoint"], data={"client_id": "demo-app",
                                                                         "scope": "statuses:read"}).json()
check(re.fullmatch(r"[A-Z]{4}-[A-Z]{4}", device.get("user_code", "")) is not None, "RFC 8628 §3.2: a user code",
      device.get("user_code"))
check(device.get("verification_uri") == base + "/device", "the verification URI", device.get("verification_uri"))
poll = {"grant_type": "urn:ietf:params:oauth:grant-type:device_code", "device_code": device.get("device_code"),
        "client_id": "demo-app"}
pending = requests.post(metadata["token_endpoint"], data=poll)
check(pending.status_code == 400 and pending.json().get("error") == "authorization_pending",
      "RFC 8628 §3.5: authorization_pending before approval", pending.text[:200])
checks.finish()
