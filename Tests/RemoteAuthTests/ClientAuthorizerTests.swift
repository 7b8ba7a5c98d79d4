import RemoteAuth
import Testing

// No `import HTTPTypes` here on purpose: `import RemoteAuth` re-exports HTTPRequest,
// HTTPResponse and HTTPFields.

/// A bearer token source that renews once when told `invalid_token`, as an OAuth 2 token
/// session does, written as any authenticator outside the library would be.
final class RefreshingBearer: RequestAuthenticator {
    private let state = Locked((token: "t1", refreshes: 0, seen: [Int]()))
    var refreshes: Int { state.withLock { $0.refreshes } }
    var seen: [Int] { state.withLock { $0.seen } }
    var writtenFields: [HTTPField.Name] { [.authorization] }
    private static let renewed = AuthenticationAttempt.Key<Bool>("test.renewed")

    func authenticate(_ attempt: inout AuthenticationAttempt) {
        attempt.request.headerFields[.authorization] = "Bearer " + state.withLock { $0.token }
    }

    func judge(_ response: HTTPResponse, to attempt: inout AuthenticationAttempt) -> AuthenticationVerdict {
        state.withLock { $0.seen.append(response.status.code) }
        let challenge = AuthenticationChallenge.parseEachField(response.headerFields, name: .wwwAuthenticate)
            .challenges.first
        guard response.status == .unauthorized, challenge?.parameter("error") == "invalid_token",
            attempt[Self.renewed] != true
        else { return .accept }
        attempt[Self.renewed] = true
        state.withLock { state in
            state.refreshes += 1
            state.token = "t\(state.refreshes + 1)"
        }
        return .retry
    }
}

let invalidToken: HTTPFields = [.wwwAuthenticate: "Bearer realm=\"api\", error=\"invalid_token\""]

func bearerClient(
    _ transport: ScriptedTransport,
    _ authenticator: any RequestAuthenticator,
    url: String = "https://api.example",
    allowingPlainHTTP: Bool = false
)
    throws -> AuthenticatingClient
{
    AuthenticatingClient(
        transport: transport,
        authenticators: [ScopedAuthenticator(authenticator, for: try AuthScope(url: url), allowingPlainHTTP: allowingPlainHTTP)]
    )
}

@Suite struct ClientAuthorizerTests {
    @Test func bearerTokenIsValidatedAndRedacted() throws {
        let token = try BearerToken("mF_9.B5f-4.1JqM==")
        #expect(token.authorization == "Bearer mF_9.B5f-4.1JqM==")
        #expect(token.writtenFields == [.authorization])
        #expect("\(token)" == "BearerToken(<redacted>)")
        #expect(!String(reflecting: token).contains("mF_9"))
        var dumped = ""
        dump(token, to: &dumped)
        #expect(!dumped.contains("mF_9"))
        let same = try BearerToken("mF_9.B5f-4.1JqM==")
        let other = try BearerToken("mF_9.B5f-4.1JqN==")
        #expect(token == same && token != other)
        for bad in ["", "a b", "a=b", "=", "tök", "a\r\nX-Evil: 1"] {
            let error = #expect(throws: ClientError.self) { try BearerToken(bad) }
            #expect(error?.code == .invalidCredential)
            #expect(
                error?.reason
                    == "a bearer token must be a non-empty b64token: letters, digits, -._~+/ then = padding (RFC 6750 §2.1)"
            )
        }
        #expect(Redaction.redactedValue(HTTPField(name: .authorization, value: "Bearer abc")) == "Bearer <redacted>")
        #expect(
            Redaction.redacted([.authorization: "DPoP abc", HTTPField.Name("DPoP")!: "eyJ.x.y"])
                == ["Authorization: DPoP <redacted>", "DPoP: <redacted>"]
        )
    }

    /// `Authorization: Bearer` on every request to the origin, up front; a redirect to another
    /// origin carries none.
    @Test func bearerSentUpFrontToItsOriginOnly() async throws {
        let transport = ScriptedTransport([
            ScriptedTransport.status(200), ScriptedTransport.status(302, [.location: "https://other.example/x"]),
            ScriptedTransport.status(200),
        ])
        let client = try bearerClient(transport, try BearerToken("abc"))
        let (response, _) = try await client.get("https://api.example/me")
        #expect(response.status == .ok)
        _ = try await client.send(.post, to: "https://api.example/hop", body: [1])
        #expect(transport.sent.map { $0.request.headerFields[.authorization] } == ["Bearer abc", "Bearer abc", nil])
        #expect(transport.sent[2].request.method == .get)
        #expect(await client.roundTrips == 3)
    }

    /// A fixed token that is refused has nothing to renew: the `401` is the caller's, after
    /// one send.
    @Test func staticBearerRefused() async throws {
        let transport = ScriptedTransport([ScriptedTransport.status(401, invalidToken)])
        let client = try bearerClient(transport, try BearerToken("abc"))
        let (response, _) = try await client.get("https://api.example/me")
        #expect(response.status == .unauthorized)
        #expect(response.headerFields[.wwwAuthenticate] == "Bearer realm=\"api\", error=\"invalid_token\"")
        #expect(transport.sent.count == 1)
    }

    /// invalid_token → one refresh and one retry with the new token; a second refusal fails
    /// without a second refresh.
    @Test func refreshOnceOnInvalidToken() async throws {
        let authorizer = RefreshingBearer()
        let transport = ScriptedTransport([ScriptedTransport.status(401, invalidToken), ScriptedTransport.status(200)])
        let client = try bearerClient(transport, authorizer)
        let (response, _) = try await client.get("https://api.example/me")
        #expect(response.status == .ok)
        #expect(transport.sent.map { $0.request.headerFields[.authorization] } == ["Bearer t1", "Bearer t2"])
        #expect(authorizer.refreshes == 1 && authorizer.seen == [401, 200])

        let looping = ScriptedTransport([
            ScriptedTransport.status(401, invalidToken), ScriptedTransport.status(401, invalidToken),
            ScriptedTransport.status(401, invalidToken),
        ])
        let second = RefreshingBearer()
        let (refused, _) = try await bearerClient(looping, second).get("https://api.example/me")
        #expect(refused.status == .unauthorized)
        #expect(looping.sent.count == 2 && second.refreshes == 1)
    }

    @Test func bearerRefusedOverPlainHTTP() async throws {
        let transport = ScriptedTransport([ScriptedTransport.status(200)])
        let client = try bearerClient(transport, try BearerToken("abc"), url: "http://api.example")
        let error = await #expect(throws: ClientError.self) { try await client.get("http://api.example/") }
        #expect(error?.code == .plainHTTPRefused)
        #expect(transport.sent.isEmpty)

        let allowed = ScriptedTransport([ScriptedTransport.status(200)])
        _ = try await bearerClient(allowed, try BearerToken("abc"), url: "http://api.example", allowingPlainHTTP: true)
            .get("http://api.example/")
        #expect(allowed.sent[0].request.headerFields[.authorization] == "Bearer abc")
    }

    /// A caller-set Authorization wins: no authorizer is asked.
    @Test func callerAuthorizationWins() async throws {
        let transport = ScriptedTransport([ScriptedTransport.status(401, invalidToken)])
        let authorizer = RefreshingBearer()
        let client = try bearerClient(transport, authorizer)
        let (response, _) = try await client.get("https://api.example/", headerFields: [.authorization: "Bearer mine"])
        #expect(response.status == .unauthorized)
        #expect(transport.sent.map { $0.request.headerFields[.authorization] } == ["Bearer mine"])
        #expect(authorizer.refreshes == 0)
    }
}

@Suite struct ClientConvenienceTests {
    @Test func addCredentialForURL() async throws {
        let store = InMemoryCredentialStore()
        try await store.add(.basic(user: "u", password: "p"), for: "https://API.example/some/path")
        try await store.add(.digest(user: "d", password: "q"), for: "https://api.example", realm: "R")
        let origin = try AuthScope(url: "https://api.example:443")
        #expect(await store.credential(for: origin, realm: nil)?.credential.user == "u")
        #expect(await store.credential(for: origin, realm: "R")?.credential.user == "d")
        let error = await #expect(throws: ClientError.self) {
            try await store.add(.basic(user: "u", password: "p"), for: "ftp://api.example")
        }
        #expect(error?.code == .invalidURL)
    }

    /// `client.get(url)` and `send(_:to:)`: a challenged GET answered with a credential added
    /// for a URL; a URL that is not absolute is refused before anything is sent.
    @Test func sendToURLString() async throws {
        let store = InMemoryCredentialStore()
        try await store.add(.basic(user: "u", password: "p"), for: "https://api.example")
        let transport = ScriptedTransport([
            ScriptedTransport.status(401, [.wwwAuthenticate: "Basic realm=\"r\""]), ScriptedTransport.status(200),
            ScriptedTransport.status(201),
        ])
        let client = AuthenticatingClient(transport: transport, credentials: store)
        #expect(try await client.get("https://api.example/a?b=1").0.status == .ok)
        #expect(transport.sent[1].request.headerFields[.authorization] == "Basic dTpw")
        #expect(transport.sent[1].request.path == "/a?b=1")
        let (created, _) = try await client.post(
            "https://api.example/items",
            body: Array("x".utf8),
            headerFields: [.contentType: "text/plain"]
        )
        #expect(created.status == .created)
        #expect(transport.sent[2].body == Array("x".utf8) && transport.sent[2].request.method == .post)
        let error = await #expect(throws: ClientError.self) { try await client.get("/relative") }
        #expect(error?.code == .invalidURL)
        #expect(transport.sent.count == 3)
    }

    /// Several WWW-Authenticate fields, one malformed: the good challenge in the other is answered.
    @Test func malformedFieldDoesNotHideAGoodOne() async throws {
        var fields = HTTPFields()
        fields.append(HTTPField(name: .wwwAuthenticate, value: "Negotiate, Basic realm=\"broken"))
        fields.append(HTTPField(name: .wwwAuthenticate, value: "Basic realm=\"r\""))
        let transport = ScriptedTransport([ScriptedTransport.status(401, fields), ScriptedTransport.status(200)])
        let store = InMemoryCredentialStore()
        try await store.add(.basic(user: "u", password: "p"), for: "https://api.example")
        let (response, _) = try await AuthenticatingClient(transport: transport, credentials: store)
            .get("https://api.example/")
        #expect(response.status == .ok)
        #expect(transport.sent[1].request.headerFields[.authorization] == "Basic dTpw")

        let allBroken = ScriptedTransport([ScriptedTransport.status(401, [.wwwAuthenticate: "Basic realm=\"x"])])
        let (handedBack, _) = try await AuthenticatingClient(transport: allBroken, credentials: store)
            .get("https://api.example/")
        #expect(handedBack.status == .unauthorized && allBroken.sent.count == 1)
    }
}
