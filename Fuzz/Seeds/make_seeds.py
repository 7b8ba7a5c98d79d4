#!/usr/bin/env python3
"""Writes the seed corpora of the fuzz targets (Fuzz/Corpus/<target>/seed-*) from the
repository's vectors (Tests/Vectors, copies of ../shared/vectors with their sources) and from
realistic examples written here. Run from anywhere; rewrites only seed-* files, so inputs found
by fuzzing (crash-*, regression-*) stay. Each seed is one input as its target reads it: see the
doc comment of Fuzz/Sources/<target>/<target>.swift for the layout."""
import json
import pathlib
import re

root = pathlib.Path(__file__).resolve().parents[2]
vectors = root / "Tests" / "Vectors"
corpus = root / "Fuzz" / "Corpus"


def load(name):
    return json.loads((vectors / f"{name}.json").read_text())


seeds = {}


def add(target, data):
    if isinstance(data, str):
        data = data.encode()
    if data not in seeds.setdefault(target, []):
        seeds[target].append(data)


oauth2 = load("oauth2_responses")
basic = load("http_basic")
digest = load("http_digest")
signing = load("oauth1_signing")
base_strings = load("oauth1_base_string")
percent = load("oauth1_percent_encoding")

# challenges: WWW-Authenticate values.
for v in oauth2:
    if v["www_authenticate"]:
        add("challenges", v["www_authenticate"])
for v in digest:
    add("challenges", v["challenge"])
add("challenges", 'Basic realm="simple", charset="UTF-8"')
add("challenges", 'Newauth realm="apps", type=1, title="Login to \\"apps\\"", Basic realm="simple"')
add("challenges", 'OAuth realm="http://sp.example.com/", oauth_problem="token_expired"')
add("challenges", "Negotiate YIIB5gYGKwYBBQUCoIIB2jCCAdagMDAuBgkqhkiC9xIBAgIGCSqGSIb3EgECAgYKKwYBBAGCNwICHgYKKwYBBAGCNwICCg==")
add("challenges", 'Bearer realm="example", error="insufficient_scope", scope="statuses:write", max_age=0')
add("challenges", ", ,Basic realm=x ,, Digest realm=\"y\", nonce=\"n\", qop=\"auth,auth-int\", algorithm=SHA-256-sess, stale=TRUE, userhash=true, domain=\"/a /b\"")

# credentials: Authorization (and Authentication-Info) values.
for v in basic:
    add("credentials", v["expected_header"])
for v in digest:
    add("credentials", v["expected_header"])
for v in signing:
    if v.get("expected_authorization_header"):
        add("credentials", v["expected_authorization_header"])
add("credentials", 'nextnonce="47364c23432d2e131a5fb210812c", qop=auth, rspauth="6629fae49393a05397450978507c4ef1", cnonce="0a4f113b", nc=00000001')
add("credentials", "Bearer mF_9.B5f-4.1JqM")
add("credentials", "Basic dGVzdDoxMjPCow==")
add("credentials", "basic   QWxhZGRpbjpvcGVuIHNlc2FtZQ==")

# form_body: form bodies and queries.
for v in oauth2:
    if v["kind"] == "form_request":
        add("form_body", v["body"])
    if v["location"] and "?" in v["location"]:
        add("form_body", v["location"].split("?", 1)[1].split("#", 1)[0])
for v in signing:
    if v.get("form_body"):
        add("form_body", v["form_body"])
for v in percent:
    for key in ("input", "expected"):
        if isinstance(v.get(key), str):
            add("form_body", "a=" + v[key])
add("form_body", "oauth_token=hh5s93j4hdidpola&oauth_token_secret=hdhd0244k9j7ao03&oauth_callback_confirmed=true")
add("form_body", "q=%E2%82%AC+1&q=%e2%82%ac&empty=&=v&flag&a%20b=c%2Bd")

# oauth1_answer: status and step, WWW-Authenticate, body.
add("oauth1_answer", "200 temporary\n\noauth_token=hh5s93j4hdidpola&oauth_token_secret=hdhd0244k9j7ao03&oauth_callback_confirmed=true")
add("oauth1_answer", "200 token\n\noauth_token=nnch734d00sl2jdk&oauth_token_secret=pfkkdhi9sl3r4s00&user_id=6253282&screen_name=twitterapi")
add("oauth1_answer", "401 token\nOAuth realm=\"Photos\", oauth_problem=\"token_rejected\"\n")
add("oauth1_answer", "400 temporary\n\noauth_problem=parameter_absent&oauth_parameters_absent=oauth_nonce%26oauth_timestamp")
add("oauth1_answer", "200 temporary\n\noauth_token=a&oauth_token_secret=&oauth_callback_confirmed=false")

# oauth1_request: request target, Authorization, body.
for v in signing:
    url = v["url"]
    path = "/" + url.split("://", 1)[1].split("/", 1)[1] if "/" in url.split("://", 1)[1] else "/"
    add("oauth1_request", f"{path}\n{v.get('expected_authorization_header') or ''}\n{v.get('form_body') or ''}")
add("oauth1_request", "/request?oauth_consumer_key=dpf43f3p2l4k3l03&oauth_signature_method=PLAINTEXT&oauth_signature=kd94hf93k423kf44%26&oauth_version=1.0\n\n")
add("oauth1_request", "/photos?size=original\n\noauth_consumer_key=dpf43f3p2l4k3l03&oauth_token=nnch734d00sl2jdk&oauth_signature_method=HMAC-SHA1&oauth_timestamp=1191242096&oauth_nonce=kllo9940pd9333jh&oauth_version=1.0&oauth_signature=tR3%2BTy81lMeYAr%2FFid0kMTYa%2FWM%3D&file=vacation.jpg")

# callback_url: URLs a user agent is sent to.
for v in oauth2:
    if v["location"]:
        add("callback_url", v["location"])
add("callback_url", "http://127.0.0.1:8080/callback?code=SplxlOBeZQQYbYS6WxSbIA&state=af0ifjsldkj&iss=https%3A%2F%2Fserver.example.com")
add("callback_url", "http://127.0.0.1:8080/callback#access_token=2YotnFZFEjr1zCsicMWpAA&state=af0ifjsldkj&token_type=example&expires_in=3600&scope=a+b")
add("callback_url", "http://127.0.0.1:8080/callback?error=access_denied&error_description=the+user+said+no&state=af0ifjsldkj")
add("callback_url", "http://127.0.0.1:8080/callback?oauth_token=hh5s93j4hdidpola&oauth_verifier=hfdp7dh39dks9884")
add("callback_url", "http://127.0.0.1:8080/callback?denied=hh5s93j4hdidpola")
add("callback_url", "com.example.app:/oauth2redirect/example-provider?code=abc&state=af0ifjsldkj")
add("callback_url", "myapp://oauth-callback?oauth_token=hh5s93j4hdidpola&oauth_verifier=v")
add("callback_url", "HTTPS://Callback.Invalid:443/oauth#")

# JSON answers.
kinds = {
    "token_response": ["token_json"],
    "error_response": ["error_json", "token_json"],
    "introspection_response": ["introspection_json"],
    "metadata_response": ["metadata_json"],
    "device_authorization_response": ["device_json"],
    "par_response": ["token_json"],
}
for v in oauth2:
    for target in kinds.get(v["kind"], []):
        add(target, v["body"])
add("token_json", '{"access_token":"a","token_type":"DPoP","expires_in":"3600","scope":"openid  profile","id_token":"h.p.s","issued_token_type":"urn:ietf:params:oauth:token-type:access_token","refresh_token":null}')
add("token_json", '{"access_token":"a","token_type":"Bearer","expires_in":1e3,"nested":{"list":[1,2.5,-3,true,false,null,"x"]}}')
add("error_json", '{"error":"invalid_grant","error_description":"the refresh token s3cr3t-client-s3cret was used twice","error_uri":"https://server.example.com/errors/invalid_grant"}')
add("error_json", "<html><body>502 Bad Gateway</body></html>")
add("device_json", '{"device_code":"d","user_code":"WDJB-MJHT","verification_url":"https://example.com/device","expires_in":"1800"}')
add("introspection_json", '{"active":true,"aud":["a","b"],"exp":1419356238,"iat":1419350238,"nbf":1419350238,"jti":"j","ext":{"k":[]}}')
add("metadata_json", '{"issuer":"https://server.example.com","authorization_response_iss_parameter_supported":true,"code_challenge_methods_supported":["S256"],"dpop_signing_alg_values_supported":["ES256"],"x":1.5}')

# uri_reference: base, reference (RFC 3986 §5.4's examples, and redirect shapes).
rfc3986 = ["g:h", "g", "./g", "g/", "/g", "//g", "?y", "g?y", "#s", "g#s", "g?y#s", ";x", "g;x", "g;x?y#s", "", ".", "./",
           "..", "../", "../g", "../..", "../../", "../../g", "../../../g", "../../../../g", "/./g", "/../g", "g.", ".g",
           "g..", "..g", "./../g", "./g/.", "g/./h", "g/../h", "g;x=1/./y", "g;x=1/../y", "g?y/./x", "g?y/../x",
           "g#s/./x", "g#s/../x", "http:g"]
for ref in rfc3986:
    add("uri_reference", "http://a/b/c/d;p?q\n" + ref)
add("uri_reference", "https://server.example.com/authorize?x=1\nhttps://client.example.com/cb?code=abc#frag")
add("uri_reference", "http://127.0.0.1:8080\n/login/../callback/./x?y")

# JOSE: jws (allow-list, then a compact JWS, or a header and a payload to sign).
jose = load("jose")
dpop = load("dpop")
for v in jose:
    if v["kind"] == "jws" and v.get("jws"):
        add("jws", "\n" + v["jws"])
        add("jws", f"{v.get('verify_alg') or v['alg']}\n{v['jws']}")
add("jws", "ES256,RS256\n" + next(v["jws"] for v in jose if v["name"] == "alg_confusion_hs256_with_rsa_public_pem"))
add("jws", '\n{"alg":"HS256","typ":"JWT"}\n{"iss":"joe","exp":1300819380,"http://example.com/is_root":true}')
add("jws", 'ES256\n{"alg":"ES256"}\n{"sub":"1234567890","name":"John Doe","iat":1516239022}')
add("jws", 'EdDSA,ES256\n{"alg":"EdDSA","kid":"ed"}\nExample of Ed25519 signing')
add("jws", 'HS256\n{"alg":"HS256","kid":"ec","b64":false}\n')
add("jws", 'HS256,none\n{"alg":"HS256","crit":["exp"],"exp":1}\n{}')
add("jws", 'RS256\n{"alg":"ES256","kid":7}\nx')

# jwk_set: JWKs (public and private) and JWK Sets.
jwks = []
for v in jose:
    for key in ("jwk", "verify_jwk"):
        if v.get(key):
            jwks.append(v[key])
for v in dpop:
    if v.get("jwk"):
        jwks.append(v["jwk"])
    if isinstance(v.get("expected_header"), dict) and v["expected_header"].get("jwk"):
        jwks.append(v["expected_header"]["jwk"])
for jwk in jwks:
    add("jwk_set", json.dumps(jwk, separators=(",", ":")))
public = [ {k: x for k, x in jwk.items() if k not in ("d", "p", "q", "dp", "dq", "qi")} for jwk in jwks if jwk.get("kty") != "oct"]
add("jwk_set", json.dumps({"keys": public}, separators=(",", ":")))
add("jwk_set", json.dumps({"keys": [dict(j, kid=f"k{i}", use="sig") for i, j in enumerate(public[:3])] + [{"kty": "EC", "crv": "P-521", "x": "AA", "y": "AA"}, {"kty": "weird"}, 7]}))
add("jwk_set", '{"keys":[' + ",".join(['{"kty":"oct"}'] * 12) + "]}")
add("jwk_set", '{"keys":[{"kty":"RSA","n":"AQAB","e":"AQAB","alg":"RS256","key_ops":["verify"]},{"kty":"oct","k":"AyM1SysPpbyDfgZld3umj1qzKObwVMkoqQ-EstJQLr_T-1qS0gZH75aKtMN3Yj0iPS4hcgUuTwjAzZr1Z9CAow","kid":"h"}]}')
add("jwk_set", '{"kty":"EC","crv":"P-256","x":"f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU","y":"x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0","d":"jpsQnnGQmL-YBIffH1136cLHYR4Y-BqI7s2L5Ut_zzQ","kid":"jpsQnn"}')
add("jwk_set", '{"kty":"OKP","crv":"X25519","x":"hSDwCYkwp1R0i33ctD73Wg2_Og0mOBr066SpjqqbTmo","use":"enc"}')

# dpop_proof: method, URI, clock, access token, jkt, nonce, then the DPoP fields.
for v in dpop:
    if v["kind"] == "proof" and v.get("jwt"):
        jkt = v.get("expected_jkt") or ""
        add("dpop_proof", f"{v['request_method']}\n{v['request_uri']}\n{v['verification_time']}\n{v.get('access_token') or ''}\n\n{v.get('server_nonce') or ''}\n{v['jwt']}")
        add("dpop_proof", f"{v['request_method']}\n{v['request_uri']}\n{v['verification_time']}\n{v.get('access_token') or ''}\n{jkt}\n\n{v['jwt']}")
add("dpop_proof", 'POST\nhttps://server.example.com/token\n1562262616\n\n\n\n{"jti":"-BwC3ESc6acc2lTc","htm":"POST","htu":"https://server.example.com/token","iat":1562262616}')
add("dpop_proof", 'GET\nHTTPS://Server.Example.COM:443/./protectedresource?x=1#f\n1562262700\nKz~8mXK1EalYznwH-LC-1fBAo.4Ljp~zsPE_NeO.gxU\n\neyJ7S_zG.FmuMSb\n{"jti":"e1j3V_bKic8-LAEB","htm":"GET","htu":"https://server.example.com/protectedresource","iat":1562262618,"ath":"fUHyO2r2Z3DZ53EsNrWBb0xWXoaNy59IiKCAqksmQEo","nonce":"eyJ7S_zG.FmuMSb"}')
add("dpop_proof", 'POST\nhttps://server.example.com/token\n1562262616\n\n\n\n{"jti":"a","htm":"POST","htu":"https://server.example.com/token","iat":1.562262616e9}\n{"jti":"b"}')

# id_token: nonce, max_age, access token, code, clock, then a token or a header and claims.
core_claims = {"iss": "https://server.example.com", "sub": "24400320", "aud": "s6BhdRkqt3", "nonce": "n-0S6_WzA2Mj",
               "exp": 1311281970, "iat": 1311280970, "auth_time": 1311280969, "acr": "urn:mace:incommon:iap:silver"}
compact = lambda o: json.dumps(o, separators=(",", ":"))
add("id_token", "n-0S6_WzA2Mj\n\n\n\n1311281000\n" + '{"alg":"ES256","kid":"ec","typ":"JWT"}\n' + compact(core_claims))
add("id_token", "n-0S6_WzA2Mj\n600\njHkWEdUXMU1BwAsC4vtUsZwnNvTIxEl0z9K3vx5KF0Y\nQcb0Orv1zh30vL1MPRsbm-diHiMwcLyZvn1arpZv-Jxf_11jnpEX3Tgfvk\n1311281000\n" + '{"alg":"HS256"}\n' + compact(dict(core_claims, at_hash="77QmUPtjPfzWtF2AnpK9RQ", c_hash="LDktKdoQak3Pk0cnXxCltA")))
add("id_token", "\n\n\n\n\n" + '{"alg":"ES256","kid":"ec"}\n' + compact(dict(core_claims, aud=["s6BhdRkqt3", "other"], azp="s6BhdRkqt3", exp=1.3112819705e9)))
add("id_token", "\n\n\n\n\n" + '{"alg":"ES256"}\n' + compact(dict(core_claims, exp=9223372036854775807, auth_time=-9223372036854775808)))
for v in jose:
    if v["kind"] == "jws" and v.get("jws"):
        add("id_token", "\n\n\n\n\n" + v["jws"])
add("id_token", "\n\n\n\n\neyJhbGciOiJSU0EtT0FFUCIsImVuYyI6IkEyNTZHQ00ifQ.a.b.c.d")

# sigv4_chunked: bodies as sent and payloads to frame (the target uses each input both ways).
streaming = load("sigv4_streaming")[0]
zero = "0" * 64
add("sigv4_chunked", "")
add("sigv4_chunked", "hello")
add("sigv4_chunked", f"5;chunk-signature={zero}\r\nhello\r\n0;chunk-signature={zero}\r\n\r\n")
add("sigv4_chunked", f"0;chunk-signature={streaming['chunks'][2]['signature']}\r\n\r\n")
add("sigv4_chunked", f"400;chunk-signature={streaming['chunks'][1]['signature']}\r\n" + "a" * 1024 + "\r\n")
add("sigv4_chunked", "a" * 9000)

for target, items in seeds.items():
    directory = corpus / target
    directory.mkdir(parents=True, exist_ok=True)
    for old in directory.glob("seed-*"):
        old.unlink()
    for index, data in enumerate(items):
        (directory / f"seed-{index:03d}").write_bytes(data)
    print(f"{target}: {len(items)} seeds")
