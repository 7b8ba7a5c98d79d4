import Foundation
import RemoteAuth
import Testing

/// OAuth 2 sessions in the token stores beside OAuth 1.0a ones, their JSON, the change
/// listeners, and redaction.
@Suite struct OAuth2SessionStoreTests {
    static let session = Fixture.session(
        OAuth2.Tokens(
            accessToken: "access-XYZ",
            tokenType: "Bearer",
            expiresAt: 1_700_003_600,
            refreshToken: "refresh-XYZ",
            scope: ["read", "write"],
            idToken: "id-XYZ"
        )
    )
    static let secrets = ["access-XYZ", "refresh-XYZ", "id-XYZ", "client-s3cret"]

    @Test func jsonRoundTripWithKind() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let data = try encoder.encode(StoredSession.oauth2(Self.session))
        let json = String(decoding: data, as: UTF8.self)
        #expect(json.hasPrefix(#"{"kind":"oauth2","oauth2":{"#))
        #expect(json.contains(#""registration":{"authenticationMethod":"client_secret_basic","clientID":"demo-service""#))
        #expect(json.contains(#""refreshToken":"refresh-XYZ""#))  // Stores keep the secrets.
        #expect(json.contains(#""resourceOrigins":["https:\/\/api.example"]"#))
        let decoded = try JSONDecoder().decode(StoredSession.self, from: data)
        #expect(decoded == .oauth2(Self.session))
        #expect(decoded.oauth2?.tokens.refreshToken?.reveal() == "refresh-XYZ")
        #expect(decoded.oauth2?.clientSecret?.reveal() == "client-s3cret")
        #expect(decoded.oauth1 == nil)

        // Another scheme's session: kept as read, written back unchanged, never printed.
        let unknown = Data(#"{"kind":"saml","saml":{"assertion":"s3cret","n":1}}"#.utf8)
        let other = try JSONDecoder().decode(StoredSession.self, from: unknown)
        #expect(other.kind == StoredSession.Kind(rawValue: "saml"))
        #expect(other.oauth1 == nil && other.oauth2 == nil)
        #expect(String(decoding: try encoder.encode(other), as: UTF8.self) == #"{"kind":"saml","saml":{"assertion":"s3cret","n":1}}"#)
        #expect(!"\(other)".contains("s3cret"))
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(StoredSession.self, from: Data(#"{"kind":"saml"}"#.utf8))
        }
        let unknownMethod = try JSONDecoder().decode(
            OAuth2.Session.ClientAuthenticationMethod.self,
            from: Data(#""private_key_jwt""#.utf8)
        )
        #expect(unknownMethod.rawValue == "private_key_jwt")
    }

    /// A scheme outside the library registers its own kind and payload.
    @Test func anotherSchemesPayloadRoundTrips() throws {
        struct SigV4: Codable, Equatable, Sendable { let accessKeyID: String; let region: String }
        let kind = StoredSession.Kind(rawValue: "aws-sigv4")
        let stored = try StoredSession(kind: kind, payload: SigV4(accessKeyID: "AKID", region: "eu-west-1"))
        let decoded = try JSONDecoder().decode(StoredSession.self, from: JSONEncoder().encode(stored))
        #expect(decoded == stored)
        #expect(try decoded.payload(SigV4.self, kind: kind) == SigV4(accessKeyID: "AKID", region: "eu-west-1"))
        #expect(try decoded.payload(SigV4.self, kind: StoredSession.Kind(rawValue: "other")) == nil)
        #expect(throws: StoredSessionError.self) { try StoredSession(kind: .oauth2, payload: SigV4(accessKeyID: "", region: "")) }
    }

    /// An OAuth 1.0a session as stores wrote it before `kind` existed still decodes.
    @Test func oldOAuth1ObjectWithoutKindDecodes() throws {
        let old = #"""
            {"accessToken":{"credentials":{"secret":"ts","token":"t"},"fields":[]},
             "client":{"key":"k","secret":"s"},
             "provider":{"accessTokenURL":"https://p.example/oauth/access_token","authorizeURL":"https://p.example/oauth/authorize",
                         "placement":"header","requestTokenURL":"https://p.example/oauth/request_token","signatureMethod":"HMAC-SHA1"}}
            """#
        let decoded = try JSONDecoder().decode(StoredSession.self, from: Data(old.utf8))
        #expect(decoded.oauth1?.client.key == "k")
        #expect(decoded.oauth2 == nil)
    }

    @Test func inMemoryStoreKeepsBothAndTellsListeners() async throws {
        let store = InMemoryTokenStore()
        let changes = store.changes()
        let oauth1 = OAuth1.Session(
            provider: .twitterStyle(baseURL: "https://p.example"),
            client: .init(key: "k", secret: "s"),
            accessToken: .init(credentials: .init(token: "t", secret: "ts"))
        )
        try await store.save(oauth1, service: "twitter", account: "alice")
        try await store.save(Self.session, service: "api", account: "alice")
        await store.removeSession(service: "twitter", account: "alice")
        #expect(try await store.oauth2Session(service: "api", account: "alice") == Self.session)
        #expect(try await store.oauth1Session(service: "api", account: "alice") == nil)
        #expect(try await store.oauth2Session(service: "twitter", account: "alice") == nil)
        var received: [TokenStoreChange] = []
        for await change in changes {
            received.append(change)
            if received.count == 3 { break }
        }
        let api = TokenStoreKey(service: "api", account: "alice")
        let twitter = TokenStoreKey(service: "twitter", account: "alice")
        #expect(received == [.saved(twitter, .oauth1(oauth1)), .saved(api, .oauth2(Self.session)), .removed(twitter)])
        #expect(received.map(\.key) == [twitter, api, twitter])
        #expect(received.map(\.session) == [.oauth1(oauth1), .oauth2(Self.session), nil])
    }

    /// No token, refresh token, ID token or client secret in any description, mirror, dump, or
    /// error.
    @Test func redaction() throws {
        let change = TokenStoreChange.saved(TokenStoreKey(service: "api", account: "alice"), .oauth2(Self.session))
        var texts = [
            String(describing: Self.session), String(reflecting: Self.session), "\(Self.session.tokens)",
            String(describing: StoredSession.oauth2(Self.session)), String(describing: change),
            String(reflecting: change),
        ]
        for value in [Self.session as Any, Self.session.tokens, change, StoredSession.oauth2(Self.session)] {
            var dumped = ""
            dump(value, to: &dumped)
            texts.append(dumped)
        }
        for text in texts {
            for secret in Self.secrets { #expect(!text.contains(secret), "\(secret) leaked") }
        }
        #expect(
            String(describing: Self.session)
                == "OAuth2.Session(clientID: demo-service, tokenEndpoint: https://as.example/token,"
                + " issuer: https://as.example, clientAuthentication: client_secret_basic, clientSecret: <redacted>,"
                + " resourceOrigins: [\"https://api.example\"], tokens: OAuth2.Tokens(tokenType: Bearer,"
                + " accessToken: <redacted>, expiresAt: 1700003600, refreshToken: <redacted>, scope: read write))"
        )
        #expect(String(describing: change).hasPrefix("saved api/alice: OAuth2.Session(clientID: demo-service"))
    }
}
