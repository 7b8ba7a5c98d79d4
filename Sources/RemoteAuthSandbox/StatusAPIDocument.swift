/// The OpenAPI 3.1 document of the sandbox's status API, HTTP Basic and HTTP Digest: the paths,
/// parameters, form body and response schemas the routes really take and answer
/// (``StatusAPIRoutes``, ``HTTPAuthRoutes``), and a security scheme for each scheme they serve.
/// Served at `GET /openapi.json`.
///
/// A Swift string rather than a bundle resource: `remote-auth sandbox` serves it, and a resource
/// would make the tool depend on a bundle beside its binary (`Bundle.module` traps when one is
/// missing). It is the document's one source: `scripts/generate-openapi-client.sh` copies it to
/// `Tests/RemoteAuthOpenAPITests/Generated/openapi.json` and generates the test client from that copy, and
/// `scripts/interop/openapi_document.py` validates what the sandbox serves and checks the
/// sandbox's answers against its schemas. The script reads the literal as Swift does (the lines
/// between the `static let json = #"""` line and the `"""#` line, less the closing delimiter's
/// indentation): keep that first line as it is.
enum StatusAPIDocument {
    static let json = #"""
        {
          "openapi": "3.1.0",
          "info": {
            "title": "RemoteAuth Sandbox",
            "version": "1.0.0",
            "summary": "The sandbox's status API, HTTP Basic and HTTP Digest, each behind the schemes it takes.",
            "description": "A local provider for tests and demos (`remote-auth sandbox`, or `Sandbox.withSandbox` in Swift), on loopback only. Every operation answers 401 with its challenges until it gets credentials it accepts; the demo identities are printed by `remote-auth sandbox` (user `alice` / `wonderland`, consumer `demo-device` with alice's access token, OAuth 2 clients `demo-app` and `demo-service`).",
            "license": {"name": "MIT", "identifier": "MIT"}
          },
          "servers": [
            {
              "url": "{scheme}://127.0.0.1:{port}",
              "description": "A sandbox on loopback: `remote-auth sandbox --port 8080`, `--tls` for https.",
              "variables": {"scheme": {"enum": ["http", "https"], "default": "http"}, "port": {"default": "8080"}}
            }
          ],
          "tags": [
            {
              "name": "statuses",
              "description": "A small Twitter-like API under `/1.1`, the protected resource `BASE/1.1` (RFC 9728)."
            },
            {"name": "http-authentication", "description": "HTTP Basic (RFC 7617) and HTTP Digest (RFC 7616)."}
          ],
          "paths": {
            "/1.1": {
              "get": {
                "operationId": "getResource",
                "summary": "The protected resource's identifier itself, and who the credentials are.",
                "tags": ["statuses"],
                "security": [
                  {"oauth1": []},
                  {"oauth2": ["statuses:read"]},
                  {"dpop": []},
                  {"sigv4": []},
                  {"httpMessageSignatures": []}
                ],
                "responses": {
                  "200": {
                    "description": "The resource and the user the credentials stand for.",
                    "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Resource"}}}
                  },
                  "400": {"$ref": "#/components/responses/BadRequest"},
                  "401": {"$ref": "#/components/responses/Unauthorized"},
                  "403": {"$ref": "#/components/responses/Forbidden"}
                }
              }
            },
            "/1.1/statuses/home_timeline.json": {
              "get": {
                "operationId": "getHomeTimeline",
                "summary": "The latest statuses, newest first.",
                "tags": ["statuses"],
                "security": [
                  {"oauth1": []},
                  {"oauth2": ["statuses:read"]},
                  {"dpop": []},
                  {"sigv4": []},
                  {"httpMessageSignatures": []}
                ],
                "parameters": [
                  {
                    "name": "count",
                    "in": "query",
                    "description": "How many statuses, 1 to 200 (a number outside is taken as the nearest bound).",
                    "required": false,
                    "schema": {"type": "integer", "minimum": 1, "maximum": 200, "default": 20}
                  }
                ],
                "responses": {
                  "200": {
                    "description": "The statuses, newest first.",
                    "content": {
                      "application/json": {"schema": {"type": "array", "items": {"$ref": "#/components/schemas/Status"}}}
                    }
                  },
                  "400": {"$ref": "#/components/responses/BadRequest"},
                  "401": {"$ref": "#/components/responses/Unauthorized"},
                  "403": {"$ref": "#/components/responses/Forbidden"}
                }
              }
            },
            "/1.1/statuses/update.json": {
              "post": {
                "operationId": "updateStatus",
                "summary": "Posts a status for the credentials' user.",
                "description": "OAuth 1.0a signs the form parameter `status` with the others (RFC 5849 §3.4.1.3.1); an OAuth 2 token needs `statuses:write`.",
                "tags": ["statuses"],
                "security": [
                  {"oauth1": []},
                  {"oauth2": ["statuses:write"]},
                  {"dpop": []},
                  {"sigv4": []},
                  {"httpMessageSignatures": []}
                ],
                "requestBody": {
                  "required": true,
                  "content": {"application/x-www-form-urlencoded": {"schema": {"$ref": "#/components/schemas/StatusUpdate"}}}
                },
                "responses": {
                  "200": {
                    "description": "The status as saved.",
                    "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Status"}}}
                  },
                  "400": {"$ref": "#/components/responses/BadRequest"},
                  "401": {"$ref": "#/components/responses/Unauthorized"},
                  "403": {"$ref": "#/components/responses/Forbidden"}
                }
              }
            },
            "/1.1/account/verify_credentials.json": {
              "get": {
                "operationId": "verifyCredentials",
                "summary": "The user the credentials act for.",
                "tags": ["statuses"],
                "security": [
                  {"oauth1": []},
                  {"oauth2": ["statuses:read"]},
                  {"dpop": []},
                  {"sigv4": []},
                  {"httpMessageSignatures": []}
                ],
                "responses": {
                  "200": {
                    "description": "The user.",
                    "content": {"application/json": {"schema": {"$ref": "#/components/schemas/User"}}}
                  },
                  "400": {"$ref": "#/components/responses/BadRequest"},
                  "401": {"$ref": "#/components/responses/Unauthorized"},
                  "403": {"$ref": "#/components/responses/Forbidden"}
                }
              }
            },
            "/basic/": {
              "get": {
                "operationId": "getBasic",
                "summary": "HTTP Basic (RFC 7617): a configured user and password.",
                "tags": ["http-authentication"],
                "security": [{"basic": []}],
                "responses": {
                  "200": {"$ref": "#/components/responses/Authenticated"},
                  "401": {"$ref": "#/components/responses/NotAuthenticated"}
                }
              }
            },
            "/digest/{algorithm}/{qop}/": {
              "parameters": [
                {"$ref": "#/components/parameters/DigestAlgorithm"},
                {"$ref": "#/components/parameters/DigestQOP"}
              ],
              "get": {
                "operationId": "getDigest",
                "summary": "HTTP Digest (RFC 7616) with this algorithm and qop.",
                "tags": ["http-authentication"],
                "security": [{"digest": []}],
                "responses": {
                  "200": {"$ref": "#/components/responses/Authenticated"},
                  "401": {"$ref": "#/components/responses/NotAuthenticated"},
                  "404": {"$ref": "#/components/responses/NotFound"}
                }
              },
              "post": {
                "operationId": "postDigest",
                "summary": "HTTP Digest with a body, which `auth-int` covers (RFC 7616 §3.4.3).",
                "tags": ["http-authentication"],
                "security": [{"digest": []}],
                "requestBody": {
                  "required": true,
                  "content": {
                    "application/octet-stream": {
                      "schema": {"type": "string", "contentMediaType": "application/octet-stream"}
                    }
                  }
                },
                "responses": {
                  "200": {"$ref": "#/components/responses/Authenticated"},
                  "401": {"$ref": "#/components/responses/NotAuthenticated"},
                  "404": {"$ref": "#/components/responses/NotFound"}
                }
              }
            }
          },
          "components": {
            "schemas": {
              "User": {
                "type": "object",
                "description": "A user as the status API shows one.",
                "properties": {
                  "id": {
                    "type": "integer",
                    "format": "int64",
                    "description": "The user's numeric id (0 for a client acting for itself)."
                  },
                  "id_str": {"type": "string", "pattern": "^[0-9]+$", "description": "`id` as a string."},
                  "screen_name": {
                    "type": "string",
                    "description": "The user's name, or the client's id for a client credentials token."
                  },
                  "name": {"type": "string"}
                },
                "required": ["id", "id_str", "screen_name", "name"],
                "additionalProperties": false
              },
              "Status": {
                "type": "object",
                "description": "A posted status.",
                "properties": {
                  "id": {"type": "integer", "format": "int64", "minimum": 1},
                  "id_str": {"type": "string", "pattern": "^[1-9][0-9]*$", "description": "`id` as a string."},
                  "text": {"type": "string", "minLength": 1, "maxLength": 280},
                  "created_at": {
                    "type": "string",
                    "description": "When it was posted, as Twitter wrote it: `Sat Nov 28 12:00:00 +0000 2026` (UTC).",
                    "pattern": "^(Mon|Tue|Wed|Thu|Fri|Sat|Sun) (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) [0-3][0-9] [0-2][0-9]:[0-5][0-9]:[0-6][0-9] \\+0000 [0-9]{4}$"
                  },
                  "user": {"$ref": "#/components/schemas/User"}
                },
                "required": ["id", "id_str", "text", "created_at", "user"],
                "additionalProperties": false
              },
              "StatusUpdate": {
                "type": "object",
                "description": "The form of `POST /1.1/statuses/update.json`.",
                "properties": {
                  "status": {
                    "type": "string",
                    "minLength": 1,
                    "maxLength": 280,
                    "description": "The text, at most 280 characters."
                  }
                },
                "required": ["status"]
              },
              "Resource": {
                "type": "object",
                "properties": {
                  "resource": {"type": "string", "format": "uri", "description": "The resource identifier, `BASE/1.1`."},
                  "user": {"type": "string"}
                },
                "required": ["resource", "user"],
                "additionalProperties": false
              },
              "Authenticated": {
                "type": "object",
                "description": "The answer of `/basic/` and `/digest/…`: `{\"authenticated\": true, \"user\": \"alice\"}`, or `{\"authenticated\": false}` with a 401.",
                "properties": {"authenticated": {"type": "boolean"}, "user": {"type": "string"}},
                "required": ["authenticated"],
                "additionalProperties": false
              },
              "Error": {
                "type": "object",
                "description": "A refusal in JSON: the sandbox's own `{\"error\": \"…\"}`, or an OAuth 2 error (RFC 6749 §5.2, RFC 6750 §3.1, RFC 9449 §7.1).",
                "properties": {
                  "error": {"type": "string"},
                  "error_description": {"type": "string"},
                  "error_uri": {"type": "string"}
                },
                "required": ["error"]
              },
              "OAuthProblem": {
                "type": "object",
                "description": "An OAuth 1.0a refusal in OAuth Problem Reporting's words, form-encoded (RFC 5849 §3.2).",
                "properties": {
                  "oauth_problem": {"type": "string"},
                  "oauth_problem_advice": {"type": "string"},
                  "oauth_parameters_absent": {"type": "string"},
                  "oauth_acceptable_versions": {"type": "string"}
                },
                "required": ["oauth_problem"]
              }
            },
            "parameters": {
              "DigestAlgorithm": {
                "name": "algorithm",
                "in": "path",
                "required": true,
                "description": "The Digest algorithm the challenge names (RFC 7616 §3.3).",
                "schema": {
                  "type": "string",
                  "enum": ["MD5", "MD5-sess", "SHA-256", "SHA-256-sess", "SHA-512-256", "SHA-512-256-sess"]
                }
              },
              "DigestQOP": {
                "name": "qop",
                "in": "path",
                "required": true,
                "description": "The quality of protection the challenge offers: `auth`, or `auth-int`, which covers the body.",
                "schema": {"type": "string", "enum": ["auth", "auth-int"]}
              }
            },
            "responses": {
              "Authenticated": {
                "description": "The credentials of a configured user.",
                "headers": {
                  "Authentication-Info": {
                    "description": "Digest only: `rspauth` over the response, and `nextnonce` when the nonce is past half its life (RFC 7616 §3.5).",
                    "schema": {"type": "string"}
                  }
                },
                "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Authenticated"}}}
              },
              "NotAuthenticated": {
                "description": "No credentials, or not accepted: the challenge, and `{\"authenticated\": false}`.",
                "headers": {
                  "WWW-Authenticate": {
                    "description": "The challenge (RFC 9110 §11.6.1).",
                    "required": true,
                    "schema": {"type": "string"}
                  }
                },
                "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Authenticated"}}}
              },
              "BadRequest": {
                "description": "A malformed request: a form without `status`, or an OAuth 1.0a request missing, duplicating or misusing a parameter.",
                "content": {
                  "application/json": {"schema": {"$ref": "#/components/schemas/Error"}},
                  "application/x-www-form-urlencoded": {"schema": {"$ref": "#/components/schemas/OAuthProblem"}}
                }
              },
              "Unauthorized": {
                "description": "No credentials, or credentials not accepted: the challenges of every scheme the resource takes (`OAuth`, `Bearer`, `DPoP`), or the one that refused, with its error.",
                "headers": {
                  "WWW-Authenticate": {
                    "description": "The challenges of the schemes the resource takes, one per field line (RFC 9110 §11.6.1); none for a refused HTTP Message Signature, a scheme without a challenge.",
                    "schema": {"type": "string"}
                  },
                  "DPoP-Nonce": {
                    "description": "With `use_dpop_nonce`: the nonce the next proof must carry (RFC 9449 §9).",
                    "schema": {"type": "string"}
                  }
                },
                "content": {
                  "application/json": {"schema": {"$ref": "#/components/schemas/Error"}},
                  "application/x-www-form-urlencoded": {"schema": {"$ref": "#/components/schemas/OAuthProblem"}}
                }
              },
              "Forbidden": {
                "description": "A token without the scope the call needs (`insufficient_scope`), a status over 280 characters, or a SigV4 signature refused.",
                "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}
              },
              "NotFound": {
                "description": "An algorithm or qop the sandbox does not serve.",
                "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}
              }
            },
            "securitySchemes": {
              "basic": {
                "type": "http",
                "scheme": "Basic",
                "description": "RFC 7617, a configured user (alice / wonderland)."
              },
              "digest": {
                "type": "http",
                "scheme": "Digest",
                "description": "RFC 7616: the algorithm and qop of the path; nonces expire (`stale=true`), `nc` must grow."
              },
              "oauth1": {
                "type": "http",
                "scheme": "OAuth",
                "description": "OAuth 1.0a (RFC 5849): HMAC-SHA1, HMAC-SHA256, RSA-SHA1 or PLAINTEXT, with an access token from `/oauth/access_token`; in the header, the query or a form body."
              },
              "oauth2": {
                "type": "oauth2",
                "description": "OAuth 2 Bearer tokens (RFC 6750) for the resource `BASE/1.1` (RFC 8707); the server's metadata is at `/.well-known/oauth-authorization-server`, the resource's at `/.well-known/oauth-protected-resource/1.1` (RFC 9728).",
                "flows": {
                  "authorizationCode": {
                    "authorizationUrl": "/oauth2/authorize",
                    "tokenUrl": "/oauth2/token",
                    "refreshUrl": "/oauth2/token",
                    "scopes": {"statuses:read": "Read the timeline and the account.", "statuses:write": "Post statuses."}
                  },
                  "clientCredentials": {
                    "tokenUrl": "/oauth2/token",
                    "refreshUrl": "/oauth2/token",
                    "scopes": {"statuses:read": "Read the timeline and the account.", "statuses:write": "Post statuses."}
                  }
                }
              },
              "dpop": {
                "type": "http",
                "scheme": "DPoP",
                "description": "A DPoP-bound OAuth 2 access token with a proof per request (RFC 9449); with `--dpop-nonce`, proofs must carry the server's nonce (`use_dpop_nonce`, §9)."
              },
              "sigv4": {
                "type": "http",
                "scheme": "AWS4-HMAC-SHA256",
                "description": "AWS Signature Version 4 with a configured key (AKIDSANDBOX), any region and service."
              },
              "httpMessageSignatures": {
                "type": "apiKey",
                "in": "header",
                "name": "Signature",
                "description": "HTTP Message Signatures (RFC 9421) with a configured key: the `Signature-Input` and `Signature` fields, `Content-Digest` for a body."
              }
            }
          }
        }
        """#
}
