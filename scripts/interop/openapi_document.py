"""Interop: the sandbox's OpenAPI document, judged by validators nobody here wrote.

    openapi_document.py SANDBOX_URL COMMITTED_COPY

- GET /openapi.json answers the document, byte for byte the copy the Swift client was generated
  from (Tests/RemoteAuthOpenAPITests/Generated/openapi.json);
- openapi-spec-validator (PyPI, pinned in scripts/requirements.txt) finds it a valid OpenAPI 3.1
  document, and refuses copies of it broken on purpose (so the validation is not a no-op);
- the sandbox's live answers to every operation, with and without credentials (Basic and Digest
  from requests, OAuth 1.0a from requests-oauthlib, Bearer tokens from the sandbox's token
  endpoint), are checked against the document with openapi-schema-validator: the status is one
  the operation declares, the media type one that status declares, the body valid against its
  schema, and the headers it requires present. Each operation's 200 is seen at least once.

Ends with 'openapi-document: N passed, M failed'; a validator that is not installed is a failure.
"""
import copy
import json
import sys
import urllib.parse

from harness import Checks

checks = Checks("openapi-document")
try:
    import requests
    from openapi_schema_validator import OAS31Validator
    from openapi_spec_validator import OpenAPIV31SpecValidator, validate
    from requests.auth import HTTPBasicAuth, HTTPDigestAuth
    from requests_oauthlib import OAuth1
except ImportError as error:
    checks.check(False, "the validators and clients are installed (pip install -r scripts/requirements.txt)", error)
    checks.finish()

if len(sys.argv) != 3:
    print("usage: openapi_document.py SANDBOX_URL COMMITTED_COPY", file=sys.stderr)
    sys.exit(2)
base = sys.argv[1].rstrip("/")
committed = open(sys.argv[2], "rb").read()

served = requests.get(base + "/openapi.json", timeout=10)
checks.check(served.status_code == 200, "GET /openapi.json answers 200", served.status_code)
checks.check(served.headers.get("Content-Type") == "application/json", "GET /openapi.json is application/json",
             served.headers.get("Content-Type"))
checks.check(served.content == committed, "GET /openapi.json is the committed copy, byte for byte",
             f"{len(served.content)} bytes served, {len(committed)} committed")
document = json.loads(served.content)

# The document, as the spec validator sees it.
try:
    validate(document, cls=OpenAPIV31SpecValidator)
    checks.check(True, "openapi-spec-validator: a valid OpenAPI 3.1 document")
except Exception as error:  # the validator's own error, whatever its class
    checks.check(False, "openapi-spec-validator: a valid OpenAPI 3.1 document", error)


def broken(change):
    spoiled = copy.deepcopy(document)
    change(spoiled)
    try:
        validate(spoiled, cls=OpenAPIV31SpecValidator)
        return False
    except Exception:
        return True


checks.check(broken(lambda d: d["paths"]["/1.1/statuses/home_timeline.json"]["get"]["parameters"][0]
                    .update({"in": "body"})),
             "openapi-spec-validator refuses a parameter in the body (OpenAPI 2's, not 3.1's)")
checks.check(broken(lambda d: d["info"].pop("title")), "openapi-spec-validator refuses an info without a title")
checks.check(broken(lambda d: d["paths"]["/digest/{algorithm}/{qop}/"].pop("parameters")),
             "openapi-spec-validator refuses a path template whose parameters are not declared")
checks.check(broken(lambda d: d["components"]["securitySchemes"]["oauth2"].pop("flows")),
             "openapi-spec-validator refuses an oauth2 security scheme without flows")

# Live answers against the response schemas.
seen = set()


def resolve(node):
    while "$ref" in node:
        pointer = node["$ref"]
        assert pointer.startswith("#/"), pointer
        node = document
        for part in pointer[2:].split("/"):
            node = node[part.replace("~1", "/").replace("~0", "~")]
    return node


def judge(label, method, template, response, want_status):
    """One live answer against the operation's declared responses."""
    operation = document["paths"][template][method]
    ok = checks.check(response.status_code == want_status, f"{label}: status {want_status}",
                      f"{response.status_code}: {response.text[:200]}")
    declared = operation["responses"].get(str(response.status_code))
    if not checks.check(declared is not None, f"{label}: {operation['operationId']} declares {response.status_code}"):
        return
    declared = resolve(declared)
    for name, header in declared.get("headers", {}).items():
        if resolve(header).get("required"):
            checks.check(name in response.headers, f"{label}: the required header {name} is there")
    media_type = response.headers.get("Content-Type", "").split(";")[0].strip()
    content = declared.get("content", {})
    if not checks.check(media_type in content, f"{label}: {media_type!r} is declared for {response.status_code}",
                        sorted(content)):
        return
    if media_type == "application/json":
        instance = response.json()
    else:
        instance = dict(urllib.parse.parse_qsl(response.text, keep_blank_values=True, strict_parsing=True))
    schema = content[media_type]["schema"]
    # The schema inside the whole document, so that its $refs resolve there (unknown keywords
    # such as "openapi" and "paths" are ignored by JSON Schema).
    root = dict(document, **schema)
    errors = sorted(OAS31Validator(root).iter_errors(instance), key=str)
    checks.check(not errors, f"{label}: the body is valid against the {response.status_code} schema",
                 "; ".join(e.message for e in errors[:3]))
    if ok:
        seen.add((operation["operationId"], response.status_code))
    return instance


# The schema validator is no no-op either: a status without its user, a number for its text and
# a date in another format are three errors.
spoiled = {"id": 1, "id_str": "1", "text": 5, "created_at": "2026-11-28T12:00:00Z"}
errors = list(OAS31Validator(dict(document, **{"$ref": "#/components/schemas/Status"})).iter_errors(spoiled))
checks.check(len(errors) == 3, "openapi-schema-validator refuses a status without a user, a number for a text, "
             "another date format", [e.message for e in errors])

alice = HTTPBasicAuth("alice", "wonderland")
get = lambda path, **kw: requests.get(base + path, timeout=10, **kw)
post = lambda path, **kw: requests.post(base + path, timeout=10, **kw)

# HTTP Basic and Digest.
judge("basic, no credentials", "get", "/basic/", get("/basic/"), 401)
judge("basic, wrong password", "get", "/basic/", get("/basic/", auth=HTTPBasicAuth("alice", "x")), 401)
body = judge("basic, alice", "get", "/basic/", get("/basic/", auth=alice), 200)
checks.check(body == {"authenticated": True, "user": "alice"}, "basic: the body names alice", body)
for algorithm in ["MD5", "SHA-256"]:
    response = get(f"/digest/{algorithm}/auth/", auth=HTTPDigestAuth("alice", "wonderland"))
    template = "/digest/{algorithm}/{qop}/"
    if checks.check(len(response.history) == 1, f"digest {algorithm}: requests answered one challenge"):
        judge(f"digest {algorithm}, the challenge", "get", template, response.history[0], 401)
    body = judge(f"digest {algorithm}, alice", "get", template, response, 200)
    checks.check(body == {"authenticated": True, "user": "alice"}, f"digest {algorithm}: the body names alice", body)
    checks.check("rspauth=" in response.headers.get("Authentication-Info", ""),
                 f"digest {algorithm}: Authentication-Info carries rspauth")
response = post("/digest/SHA-256/auth/", data=b"a body", auth=HTTPDigestAuth("alice", "wonderland"),
                headers={"Content-Type": "application/octet-stream"})
judge("digest POST, alice", "post", "/digest/{algorithm}/{qop}/", response, 200)
judge("digest, an algorithm not served", "get", "/digest/{algorithm}/{qop}/", get("/digest/SHA-1/auth/"), 404)

# The status API without credentials, and with OAuth 1.0a.
api = "/1.1/statuses/home_timeline.json"
judge("timeline, no credentials", "get", api, get(api), 401)
checks.check(len(get(api).raw.headers.getlist("WWW-Authenticate")) == 3,
             "timeline, no credentials: three challenges (OAuth, Bearer, DPoP), one per field line")
device = OAuth1("demo-device", "demo-device-secret", "alice-device-token", "alice-device-token-secret")
wrong = OAuth1("demo-device", "wrong-secret", "alice-device-token", "alice-device-token-secret")
judge("timeline, OAuth 1.0a with a wrong secret", "get", api, get(api, auth=wrong), 401)
update = "/1.1/statuses/update.json"
status = judge("update, OAuth 1.0a", "post", update, post(update, data={"status": "über & +1"}, auth=device), 200)
checks.check(status and status["text"] == "über & +1" and status["user"]["screen_name"] == "alice",
             "update, OAuth 1.0a: the status is the text sent, by alice", status)
user = judge("verify_credentials, OAuth 1.0a", "get", "/1.1/account/verify_credentials.json",
             get("/1.1/account/verify_credentials.json", auth=device), 200)
checks.check(user == {"id": 1001, "id_str": "1001", "screen_name": "alice", "name": "alice"},
             "verify_credentials, OAuth 1.0a: alice, 1001", user)
timeline = judge("timeline, OAuth 1.0a, count=1", "get", api, get(api, params={"count": 1}, auth=device), 200)
checks.check(timeline and [s["text"] for s in timeline] == ["über & +1"], "timeline: the status just posted",
             timeline)
judge("resource, OAuth 1.0a", "get", "/1.1", get("/1.1", auth=device), 200)


# Bearer: client credentials tokens from the sandbox's own token endpoint.
def token(scope):
    answer = post("/oauth2/token", data={"grant_type": "client_credentials", "scope": scope},
                  auth=HTTPBasicAuth("demo-service", "demo-service-secret"))
    checks.check(answer.status_code == 200, f"a client credentials token for {scope!r}", answer.text[:200])
    return {"Authorization": "Bearer " + answer.json().get("access_token", "")}


writer, reader = token("statuses:read statuses:write"), token("statuses:read")
status = judge("update, Bearer", "post", update, post(update, data={"status": "from a token"}, headers=writer), 200)
checks.check(status and status["user"] == {"id": 0, "id_str": "0", "screen_name": "demo-service",
                                           "name": "demo-service"}, "update, Bearer: by the client itself", status)
judge("update, Bearer, no status", "post", update, post(update, data={"other": "x"}, headers=writer), 400)
judge("update, Bearer, 281 characters", "post", update, post(update, data={"status": "x" * 281}, headers=writer), 403)
judge("update, Bearer without statuses:write", "post", update, post(update, data={"status": "x"}, headers=reader), 403)
judge("timeline, Bearer", "get", api, get(api, headers=reader), 200)
judge("timeline, an unknown Bearer token", "get", api, get(api, headers={"Authorization": "Bearer unknown"}), 401)
judge("timeline, Bearer credentials that are not a b64token", "get", api,
      get(api, headers={"Authorization": "Bearer a,b"}), 400)
judge("verify_credentials, Bearer", "get", "/1.1/account/verify_credentials.json",
      get("/1.1/account/verify_credentials.json", headers=reader), 200)
resource = judge("resource, Bearer", "get", "/1.1", get("/1.1", headers=reader), 200)
checks.check(resource == {"resource": base + "/1.1", "user": "demo-service"}, "resource, Bearer: BASE/1.1",
             resource)

for template, item in document["paths"].items():
    for method, operation in item.items():
        if method == "parameters":
            continue
        checks.check((operation["operationId"], 200) in seen, f"{operation['operationId']}: a 200 was checked")
checks.finish()
