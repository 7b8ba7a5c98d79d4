import Foundation
import HTTPTypes
import NIOHTTP1
import RemoteAuth
import Testing

@testable import RemoteAuthSandbox

private typealias W = OAuth2Wire

/// The rules of a client ID metadata document, with no sockets
/// (draft-ietf-oauth-client-id-metadata-document §3, §4, §4.1, §5).
@Suite struct ClientMetadataDocumentRuleTests {
    static let url = "https://app.example/client.json"

    static func refusal(_ url: String, loopback: Bool = false) -> String? {
        do {
            _ = try ClientMetadataDocument.request(for: url, allowLoopbackHTTP: loopback)
            return nil
        } catch {
            return error.description
        }
    }

    @Test func theRequestIsTheURLAsWritten() throws {
        let request = try ClientMetadataDocument.request(
            for: "https://app.example:8443/a/client.json?v=1",
            allowLoopbackHTTP: false
        )
        #expect(request.method == .get)
        #expect(request.scheme == "https")
        #expect(request.authority == "app.example:8443")
        #expect(request.path == "/a/client.json?v=1")
        #expect(request.headerFields[.accept] == "application/json")
        let loopback = try ClientMetadataDocument.request(for: "http://[::1]:8080/c.json", allowLoopbackHTTP: true)
        #expect(loopback.authority == "[::1]:8080")
    }

    @Test func clientIdentifierURLRules() {
        let draft = "draft-ietf-oauth-client-id-metadata-document"
        #expect(Self.refusal("https://app.example/client.json") == nil)
        #expect(Self.refusal("https://app.example/") == nil)
        #expect(
            Self.refusal("https://app.example/client.json#x")
                == "invalid_client: the client_id 'https://app.example/client.json#x' has a fragment (\(draft) §3)"
        )
        #expect(
            Self.refusal("https://me:pw@app.example/client.json")
                == "invalid_client: the client_id 'https://me:pw@app.example/client.json' has a username or password (\(draft) §3)"
        )
        #expect(
            Self.refusal("https://app.example/a/../client.json")
                == "invalid_client: the client_id 'https://app.example/a/../client.json' has a '.' or '..' path segment (\(draft) §3)"
        )
        #expect(Self.refusal("https://app.example/a/%2E/client.json")?.contains("'.' or '..'") == true)
        #expect(
            Self.refusal("https://app.example")
                == "invalid_client: the client_id 'https://app.example' has no path (\(draft) §3)"
        )
        #expect(
            Self.refusal("http://127.0.0.1:9/client.json")
                == "invalid_client: the client_id 'http://127.0.0.1:9/client.json' is an http URL: client metadata documents are fetched over https only (\(draft) §3); start the sandbox with --allow-loopback-client-metadata to fetch one from a loopback address"
        )
        #expect(Self.refusal("http://127.0.0.1:9/client.json", loopback: true) == nil)
        #expect(Self.refusal("http://localhost/client.json", loopback: true) == nil)
        #expect(
            Self.refusal("http://app.example/client.json", loopback: true)
                == "invalid_client: the client_id 'http://app.example/client.json' is not an https URL (\(draft) §3)"
        )
    }

    static func check(_ json: String, status: HTTPResponse.Status = .ok, type: String = "application/json") -> String {
        var response = HTTPResponse(status: status)
        response.headerFields[.contentType] = type
        do {
            let resolved = try ClientMetadataDocument.client(from: response, body: Array(json.utf8), url: url)
            return "ok \(resolved.client.tokenEndpointAuthMethod ?? "-") \(resolved.client.redirectURIs)"
        } catch {
            return error.description
        }
    }

    @Test func documentRules() {
        let draft = "draft-ietf-oauth-client-id-metadata-document"
        let good =
            #"{"client_id":"https://app.example/client.json","client_name":"App","redirect_uris":["http://127.0.0.1/cb"]}"#
        #expect(Self.check(good) == #"ok none ["http://127.0.0.1/cb"]"#)
        #expect(Self.check(good, type: "application/app+json; charset=utf-8") == #"ok none ["http://127.0.0.1/cb"]"#)
        #expect(
            Self.check(good, type: "text/html")
                == "invalid_client: the client metadata document at '\(Self.url)' is served as 'text/html', not application/json (\(draft) §4)"
        )
        #expect(
            Self.check(good, status: .found)
                == "invalid_client: the client metadata document at '\(Self.url)' answered 302, not 200 (redirects are not followed) (\(draft) §5)"
        )
        #expect(
            Self.check("[1]")
                == "invalid_client: the client metadata document at '\(Self.url)' is not a JSON object (\(draft) §4)"
        )
        #expect(
            Self.check(#"{"client_id":"https://app.example/other.json"}"#)
                == "invalid_client: the client_id in the document, 'https://app.example/other.json', is not the document's URL '\(Self.url)' (\(draft) §4)"
        )
        // RFC 3986 §6.2.1: compared as strings, not normalized.
        #expect(
            Self.check(#"{"client_id":"https://app.example:443/client.json"}"#).hasPrefix(
                "invalid_client: the client_id in the document"
            )
        )
        #expect(
            Self.check(#"{"client_id":"https://app.example/client.json","client_secret":"s3cret"}"#)
                == "invalid_client: the client metadata document has client_secret: a document cannot hold a shared secret (\(draft) §4.1)"
        )
        for method in ["client_secret_basic", "client_secret_post", "client_secret_jwt"] {
            #expect(
                Self.check(
                    #"{"client_id":"https://app.example/client.json","token_endpoint_auth_method":"\#(method)"}"#
                )
                    == "invalid_client: the client metadata document's token_endpoint_auth_method is \(method), which uses a shared secret (\(draft) §4.1)"
            )
        }
        #expect(
            Self.check(
                #"{"client_id":"https://app.example/client.json","token_endpoint_auth_method":"private_key_jwt"}"#
            )
                == "invalid_client: the client metadata document uses private_key_jwt without jwks (the sandbox does not fetch jwks_uri)"
        )
        #expect(
            Self.check(
                #"{"client_id":"https://app.example/client.json","token_endpoint_auth_method":"private_key_jwt","jwks":{"keys":[]}}"#
            ) == "ok private_key_jwt []"
        )
        #expect(
            Self.check(#"{"client_id":"https://app.example/client.json","redirect_uris":"http://127.0.0.1/cb"}"#)
                == "invalid_client: the client metadata document's redirect_uris is not an array of strings"
        )
    }
}

/// The sandbox resolving `client_id` URLs: sign-in with a document served on 127.0.0.1 (with
/// ``SandboxConfiguration/allowLoopbackClientMetadata``), and each refusal, shown on the
/// authorization endpoint's page rather than redirected to (RFC 6749 §4.1.2.1).
@Suite(.timeLimit(.minutes(5))) struct SandboxClientMetadataDocumentTests {
    static let draft = "draft-ietf-oauth-client-id-metadata-document"

    static func configuration(loopback: Bool = true) -> SandboxConfiguration {
        var configuration = SandboxConfiguration.demo()
        configuration.allowLoopbackClientMetadata = loopback
        // The fetch's deadline tells a document that arrived from one that never will: these
        // tests serve theirs at once, on a machine that may be loaded.
        configuration.clientMetadataDocumentTimeout = 120
        return configuration
    }

    static func document(_ base: String, _ path: String, _ extra: String = "") -> DocumentServer.Answer {
        DocumentServer.Answer(
            body:
                #"{"client_id":"\#(base + path)","client_name":"Document App","redirect_uris":["\#(W.loopbackRedirect)"],"grant_types":["authorization_code","refresh_token"]\#(extra)}"#
        )
    }

    /// The message of the sandbox's error page, unescaped.
    static func message(_ page: Exchange) -> String? {
        guard let start = page.body.range(of: "<p id=\"message\">"),
            let end = page.body.range(of: "</p>", range: start.upperBound..<page.body.endIndex)
        else { return nil }
        return String(page.body[start.upperBound..<end.lowerBound]).replacingOccurrences(of: "&#39;", with: "'")
            .replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&amp;", with: "&")
    }

    @Test func metadataAdvertisesSupportUnlessOff() async throws {
        try await Sandbox.withSandbox(.demo()) { sandbox in
            let json = W.json(try await Wire.get(sandbox.baseURL + "/.well-known/oauth-authorization-server"))
            #expect(json["client_id_metadata_document_supported"] as? Bool == true)
        }
        var off = SandboxConfiguration.demo()
        off.clientIDMetadataDocuments = false
        try await Sandbox.withSandbox(off) { sandbox in
            let json = W.json(try await Wire.get(sandbox.baseURL + "/.well-known/oauth-authorization-server"))
            #expect(json["client_id_metadata_document_supported"] == nil)
            let page = try await Wire.get(
                W.authorizeURL(sandbox.baseURL, clientID: "https://app.example/c.json", challenge: W.pkce().challenge)
            )
            #expect(page.status == 400)
            #expect(Self.message(page) == "The link names no registered client_id.")
        }
    }

    @Test func signInWithADocumentFetchedOnce() async throws {
        let fetches = Locked(0)
        let answers: DocumentServer.Answers = { base, path in
            guard path == "/client.json" else { return nil }
            fetches.withLock { $0 += 1 }
            return Self.document(base, path)
        }
        try await DocumentServer.with(answers) { documents in
            try await Sandbox.withSandbox(Self.configuration()) { sandbox in
                let base = sandbox.baseURL
                let clientID = documents + "/client.json"
                let pkce = W.pkce()
                let url = W.authorizeURL(base, clientID: clientID, challenge: pkce.challenge)
                let page = try await Wire.get(url)
                #expect(page.status == 200, "\(page.body)")
                #expect(page.body.contains("Document App"))
                let answer = try await W.consent(url)
                #expect(answer.status == 302, "\(answer.body)")
                let code = try #require(queryParameters(answer.header("Location") ?? "")["code"])
                let token = try await W.token(
                    base,
                    [
                        ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", W.loopbackRedirect),
                        ("client_id", clientID), ("code_verifier", pkce.verifier),
                    ]
                )
                #expect(token.status == 200, "\(token.body)")
                let access = try #require(W.json(token)["access_token"] as? String)
                let call = try await W.bearer(base + "/1.1/account/verify_credentials.json", access)
                #expect(call.status == 200, "\(call.body)")
                // The consent page, the form and the token endpoint: one fetch (kept 5 minutes).
                #expect(fetches.withLock { $0 } == 1)
            }
        }
    }

    /// Each refusal at the authorization endpoint: `400`, the rule on the page, no redirect.
    @Test func refusalsAreShownNotRedirected() async throws {
        let oversized = String(repeating: " ", count: 17 * 1024)
        let answers: DocumentServer.Answers = { base, path in
            switch path {
            case "/mismatch.json": return Self.document(base, "/other.json")
            case "/unlisted.json":
                return Self.document(base, path).replacing(W.loopbackRedirect, "http://127.0.0.1:1/elsewhere")
            case "/basic.json":
                return Self.document(base, path, #","token_endpoint_auth_method":"client_secret_basic""#)
            case "/large.json": return Self.document(base, path, #","padding":"\#(oversized)""#)
            case "/moved.json": return DocumentServer.Answer(status: .found, body: "")
            case "/page.json": return DocumentServer.Answer(contentType: "text/html", body: "<html></html>")
            default: return nil
            }
        }
        try await DocumentServer.with(answers) { documents in
            try await Sandbox.withSandbox(Self.configuration()) { sandbox in
                func refusal(_ path: String) async -> String? {
                    let url = W.authorizeURL(sandbox.baseURL, clientID: documents + path, challenge: W.pkce().challenge)
                    guard let page = try? await Wire.get(url) else { return "no answer" }
                    #expect(page.status == 400, "\(path): \(page.body)")
                    #expect(page.header("Location") == nil)
                    return Self.message(page)
                }
                let d = Self.draft
                #expect(
                    await refusal("/mismatch.json")
                        == "invalid_client: the client_id in the document, '\(documents)/other.json', is not the document's URL '\(documents)/mismatch.json' (\(d) §4)"
                )
                #expect(
                    await refusal("/unlisted.json")
                        == "invalid_request: the redirect_uri is not one of the redirect_uris of the client's metadata document (\(d) §4.2)"
                )
                #expect(
                    await refusal("/basic.json")
                        == "invalid_client: the client metadata document's token_endpoint_auth_method is client_secret_basic, which uses a shared secret (\(d) §4.1)"
                )
                #expect(
                    await refusal("/large.json")
                        == "invalid_client: the client metadata document at '\(documents)/large.json' is larger than 16384 bytes"
                )
                #expect(
                    await refusal("/moved.json")
                        == "invalid_client: the client metadata document at '\(documents)/moved.json' answered 302, not 200 (redirects are not followed) (\(d) §5)"
                )
                #expect(
                    await refusal("/page.json")
                        == "invalid_client: the client metadata document at '\(documents)/page.json' is served as 'text/html', not application/json (\(d) §4)"
                )
                #expect(
                    await refusal("/missing.json")
                        == "invalid_client: the client metadata document at '\(documents)/missing.json' answered 404, not 200 (\(d) §5)"
                )
            }
        }
    }

    /// Without the loopback flag an http document is never fetched, at the authorization
    /// endpoint (a page) or the token endpoint (JSON `invalid_client`).
    @Test func httpDocumentRefusedWithoutTheFlag() async throws {
        let fetches = Locked(0)
        let answers: DocumentServer.Answers = { base, path in
            fetches.withLock { $0 += 1 }
            return Self.document(base, path)
        }
        try await DocumentServer.with(answers) { documents in
            try await Sandbox.withSandbox(Self.configuration(loopback: false)) { sandbox in
                let clientID = documents + "/client.json"
                let expected =
                    "invalid_client: the client_id '\(clientID)' is an http URL: client metadata documents are fetched over https only (\(Self.draft) §3); start the sandbox with --allow-loopback-client-metadata to fetch one from a loopback address"
                let page = try await Wire.get(
                    W.authorizeURL(sandbox.baseURL, clientID: clientID, challenge: W.pkce().challenge)
                )
                #expect(page.status == 400)
                #expect(Self.message(page) == expected)
                let token = try await W.token(
                    sandbox.baseURL,
                    [("grant_type", "authorization_code"), ("code", "x"), ("client_id", clientID)]
                )
                #expect(token.status == 400)
                #expect(W.json(token)["error"] as? String == "invalid_client")
                #expect(
                    W.json(token)["error_description"] as? String
                        == String(expected.dropFirst("invalid_client: ".count))
                )
                #expect(fetches.withLock { $0 } == 0)
            }
        }
    }
}

extension DocumentServer.Answer {
    fileprivate func replacing(_ old: String, _ new: String) -> Self {
        var copy = self
        copy.body = body.replacingOccurrences(of: old, with: new)
        return copy
    }
}
