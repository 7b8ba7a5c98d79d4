import Foundation
import HTTPTypes
import RemoteAuth
import Testing

struct ClientAuthVector: Decodable, Sendable, CustomTestStringConvertible {
    let name: String
    let kind: String
    let input: String?
    let expected_encoded: String?
    let client_id: String?
    let client_secret: String?
    let expected_encoded_client_id: String?
    let expected_encoded_client_secret: String?
    let expected_credentials: String?
    let expected_header: String?
    var testDescription: String { name }
}

@Suite struct OAuth2ClientAuthenticationTests {
    static let vectors = try! Vectors.load("oauth2_client_auth", as: ClientAuthVector.self)

    @Test(arguments: vectors.filter { $0.kind == "form_encode" })
    func appendixBEncoding(_ v: ClientAuthVector) throws {
        let input = try #require(v.input)
        #expect(OAuth2.ClientAuthentication.formEncode(input) == v.expected_encoded)
    }

    @Test(arguments: vectors.filter { $0.kind == "client_secret_basic" })
    func clientSecretBasic(_ v: ClientAuthVector) async throws {
        let id = try #require(v.client_id)
        let secret = Secret(try #require(v.client_secret))
        #expect(OAuth2.ClientAuthentication.formEncode(id) == v.expected_encoded_client_id)
        #expect(OAuth2.ClientAuthentication.formEncode(secret.reveal()) == v.expected_encoded_client_secret)
        #expect(OAuth2.ClientAuthentication.basicAuthorization(clientID: id, secret: secret) == v.expected_header)
        // What a §2.3.1 server does: Base64-decode, split at the first ':', form-decode each part.
        let encoded = try #require(v.expected_credentials)
        let credentials = try #require(Data(base64Encoded: encoded))
        let text = String(decoding: credentials, as: UTF8.self)
        let colon = try #require(text.firstIndex(of: ":"))
        #expect(try FormURLEncoding.decode("a=" + text[..<colon]).first?.value == id)
        #expect(try FormURLEncoding.decode("a=" + text[text.index(after: colon)...]).first?.value == secret.reveal())

        // The same header on the wire, through a token request.
        let transport = ScriptedTransport([OAuth2Script.json(200, #"{"access_token":"t","token_type":"Bearer"}"#)])
        let flow = OAuth2.Flow(
            server: oauth2Server,
            client: OAuth2.Client(id: id, authentication: .clientSecretBasic(secret)),
            transport: transport,
            now: { 0 }
        )
        _ = try await flow.clientCredentials()
        let sent = try #require(transport.sent.first)
        #expect(sent.request.headerFields[.authorization] == v.expected_header)
        #expect(try OAuth2Script.form(sent.body) == [Pair(name: "grant_type", value: "client_credentials")])
    }

    @Test func encodingDiffersFromPlainBasicWhenItMatters() {
        // AppAuth-Android #337: a client that skipped the form-encoding would send this instead.
        let plain =
            "Basic " + Data("1PpG/Q 1:z/tZ9VwFZqApmIQ+ZH1I5pLk/uB4ud:X2/8bL+wfFTt1rFw=".utf8).base64EncodedString()
        #expect(
            OAuth2.ClientAuthentication.basicAuthorization(
                clientID: "1PpG/Q 1",
                secret: "z/tZ9VwFZqApmIQ+ZH1I5pLk/uB4ud:X2/8bL+wfFTt1rFw="
            ) != plain
        )
    }

    @Test func clientSecretPostAndNone() throws {
        let post = OAuth2.Client(id: "s6BhdRkqt3", authentication: .clientSecretPost("7Fjfp0ZBr1KtDRbnfVdmIw"))
        let (request, body) = try OAuth2.TokenRequest.clientCredentials(scope: ["a"])
            .httpRequest(to: "https://as.example/token", client: post)
        #expect(request.headerFields[.authorization] == nil)
        #expect(
            try OAuth2Script.form(body) == [
                Pair(name: "grant_type", value: "client_credentials"), Pair(name: "scope", value: "a"),
                Pair(name: "client_id", value: "s6BhdRkqt3"),
                Pair(name: "client_secret", value: "7Fjfp0ZBr1KtDRbnfVdmIw"),
            ]
        )
        let (publicRequest, publicBody) = try OAuth2.TokenRequest.refreshToken("r1")
            .httpRequest(to: "https://as.example/token", client: .public(id: "demo-app"))
        #expect(publicRequest.headerFields[.authorization] == nil)
        #expect(
            try OAuth2Script.form(publicBody) == [
                Pair(name: "grant_type", value: "refresh_token"), Pair(name: "refresh_token", value: "r1"),
                Pair(name: "client_id", value: "demo-app"),
            ]
        )
        #expect(OAuth2.ClientAuthentication.none.methodName == "none")
        #expect(OAuth2.ClientAuthentication.clientSecretPost("s").methodName == "client_secret_post")
        #expect(OAuth2.ClientAuthentication.clientSecretBasic("s").methodName == "client_secret_basic")
        #expect(!"\(post)".contains("7Fjfp0ZBr1KtDRbnfVdmIw"))
        #expect(!"\(post.authentication)".contains("7Fjfp0ZBr1KtDRbnfVdmIw"))
    }

    @Test func byMethodName() throws {
        #expect(
            try OAuth2.ClientAuthentication(methodName: "client_secret_basic", secret: "s") == .clientSecretBasic("s")
        )
        #expect(
            try OAuth2.ClientAuthentication(methodName: "client_secret_post", secret: "s") == .clientSecretPost("s")
        )
        #expect(try OAuth2.ClientAuthentication(methodName: "none", secret: nil) == OAuth2.ClientAuthentication.none)
        #expect(
            try OAuth2.ClientAuthentication(methodName: "client_secret_basic", secret: "s") != .clientSecretBasic("t")
        )
        for (name, secret) in [("private_key_jwt", Secret("s")), ("client_secret_basic", nil), ("none", Secret("s"))] {
            #expect(throws: OAuth2.Error(.invalidConfiguration, ""), "\(name)") {
                try OAuth2.ClientAuthentication(methodName: name, secret: secret)
            }
        }
    }
}
