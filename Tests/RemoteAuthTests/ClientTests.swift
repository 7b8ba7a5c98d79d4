import HTTPTypes
import RemoteAuth
import Testing

/// A transport that answers from a script and records what it was sent.
final class ScriptedTransport: HTTPTransport {
    typealias Answer = @Sendable (HTTPRequest, [UInt8]?) -> (HTTPResponse, [UInt8])
    private let state: Locked<(answers: [Answer], sent: [(HTTPRequest, [UInt8]?)])>

    init(_ answers: [Answer]) { state = Locked((answers, [])) }

    var sent: [(request: HTTPRequest, body: [UInt8]?)] { state.withLock { $0.sent.map { ($0.0, $0.1) } } }

    func send(_ request: HTTPRequest, body: [UInt8]?) async throws -> (HTTPResponse, [UInt8]) {
        let answer = state.withLock { state -> Answer? in
            state.sent.append((request, body))
            return state.answers.isEmpty ? nil : state.answers.removeFirst()
        }
        guard let answer else { throw ScriptEnded() }
        return answer(request, body)
    }

    struct ScriptEnded: Error {}

    static func status(_ code: Int, _ fields: HTTPFields = [:]) -> Answer {
        { _, _ in (HTTPResponse(status: .init(code: code), headerFields: fields), []) }
    }
}

let basicChallenge: HTTPFields = [.wwwAuthenticate: "Basic realm=\"r\""]

func client(
    _ transport: ScriptedTransport,
    _ entries: [ScopedCredential],
    preemptive: Bool = false
) -> AuthenticatingClient {
    var configuration = AuthenticatingClient.Configuration()
    configuration.preemptive = preemptive
    configuration.cnonceGenerator = .fixed("0a4f113b")
    return AuthenticatingClient(
        transport: transport,
        credentials: InMemoryCredentialStore(entries),
        configuration: configuration
    )
}

@Suite struct ClientScopeTests {
    @Test func normalisesOrigins() throws {
        #expect(try AuthScope(url: "HTTPS://Example.ORG/x") == AuthScope(url: "https://example.org:443/y"))
        #expect(try AuthScope(url: "http://example.org").port == 80)
        #expect(try AuthScope(url: "http://[::1]:8080/").host == "::1")
        #expect(try AuthScope(url: "http://[::1]:8080/").description == "http://[::1]:8080")
        #expect(throws: ClientError.self) { try AuthScope(url: "ftp://example.org/") }
        #expect(throws: ClientError.self) { try AuthScope(url: "http://example.org:99999/") }
        #expect(throws: ClientError.self) { try AuthScope(url: "http://example.org:8a/") }
    }

    @Test func loopback() throws {
        for url in ["http://localhost/", "http://127.0.0.1/", "http://127.1.2.3:8080/", "http://[::1]/"] {
            #expect(try AuthScope(url: url).isLoopback, "\(url)")
        }
        for url in [
            "http://128.0.0.1/", "http://127.0.0.1.example.org/", "http://localhost.example/", "http://10.0.0.1/",
        ] {
            #expect(try !AuthScope(url: url).isLoopback, "\(url)")
        }
    }

    @Test func storeNeverMatchesAnotherHostOrPort() async throws {
        let store = InMemoryCredentialStore()
        let credential = Credential(user: "u", password: "p")
        await store.add(credential, for: try AuthScope(url: "https://a.example"))
        await store.add(Credential(user: "r", password: "q"), for: try AuthScope(url: "https://a.example", realm: "R"))
        #expect(
            await store.credential(for: try AuthScope(url: "https://a.example:443"), realm: nil)?.credential.user == "u"
        )
        #expect(
            await store.credential(for: try AuthScope(url: "https://a.example"), realm: "R")?.credential.user == "r"
        )
        #expect(
            await store.credential(for: try AuthScope(url: "https://a.example"), realm: "S")?.credential.user == "u"
        )
        #expect(await store.credential(for: try AuthScope(url: "https://a.example:8443"), realm: nil) == nil)
        #expect(await store.credential(for: try AuthScope(url: "http://a.example"), realm: nil) == nil)
        #expect(await store.credential(for: try AuthScope(url: "https://b.example"), realm: nil) == nil)
        #expect(await store.credential(for: try AuthScope(url: "https://a.example.evil"), realm: nil) == nil)
    }

    @Test func credentialRedacts() {
        let credential = Credential(user: "alice", password: "wonderland")
        #expect("\(credential)" == "Credential(user: alice, password: <redacted>, schemes: Basic|Digest)")
        #expect(!String(reflecting: credential).contains("wonderland"))
        #expect(credential != Credential(user: "alice", password: "wonderlanD"))
    }

    @Test func redaction() {
        let fields: HTTPFields = [
            .authorization: "Digest username=\"a\", response=\"x\"", .cookie: "s=1", .accept: "*/*",
            .proxyAuthorization: "Basic YTpi", .setCookie: "s=2",
        ]
        #expect(
            Redaction.redacted(fields) == [
                "Authorization: Digest <redacted>", "Cookie: <redacted>", "Accept: */*",
                "Proxy-Authorization: Basic <redacted>", "Set-Cookie: <redacted>",
            ]
        )
        #expect(
            Redaction.redactedURL("https://h/p?a=1&access_token=abc&Password=x&k")
                == "https://h/p?a=1&access_token=<redacted>&Password=<redacted>&k"
        )
    }
}

@Suite struct ClientStateMachineTests {
    /// No credential crosses plain http to a host that is not loopback, unless its scope opted in;
    /// the refusal comes before anything is sent (preemptive) or after the challenge only.
    @Test func plainHTTPRefusedUnlessOptedIn() async throws {
        let scope = try AuthScope(url: "http://api.example")
        let url = "http://api.example/x"
        let preemptive = ScriptedTransport([ScriptedTransport.status(200)])
        let error = await #expect(throws: ClientError.self) {
            _ = try await client(
                preemptive,
                [ScopedCredential(scope: scope, credential: .basic(user: "u", password: "p"))],
                preemptive: true
            ).send(try HTTPRequest(method: .get, absoluteURL: url))
        }
        #expect(error?.code == .plainHTTPRefused)
        #expect(error.map { "\($0)".contains("plain http") } == true)
        #expect(preemptive.sent.isEmpty)

        let challenged = ScriptedTransport([ScriptedTransport.status(401, basicChallenge)])
        let second = await #expect(throws: ClientError.self) {
            _ = try await client(
                challenged,
                [ScopedCredential(scope: scope, credential: .basic(user: "u", password: "p"))]
            )
            .send(try HTTPRequest(method: .get, absoluteURL: url))
        }
        #expect(second?.code == .plainHTTPRefused)
        #expect(challenged.sent.count == 1 && challenged.sent[0].request.headerFields[.authorization] == nil)

        let optedIn = ScriptedTransport([ScriptedTransport.status(401, basicChallenge), ScriptedTransport.status(200)])
        let (response, _) = try await client(
            optedIn,
            [ScopedCredential(scope: scope, credential: .basic(user: "u", password: "p"), allowsPlainHTTP: true)]
        ).send(try HTTPRequest(method: .get, absoluteURL: url))
        #expect(response.status == .ok)
        #expect(optedIn.sent[1].request.headerFields[.authorization] == "Basic dTpw")
    }

    /// A server that keeps answering 401 to a Digest answer gets one answer, never a loop; a
    /// stale=true renewal is allowed once on top.
    @Test func neverLoops() async throws {
        let scope = try AuthScope(url: "https://api.example")
        let digest: HTTPFields = [.wwwAuthenticate: "Digest realm=\"r\", nonce=\"n1\", qop=\"auth\", algorithm=SHA-256"]
        let stale: HTTPFields = [
            .wwwAuthenticate: "Digest realm=\"r\", nonce=\"n2\", qop=\"auth\", algorithm=SHA-256, stale=true"
        ]
        let transport = ScriptedTransport([
            ScriptedTransport.status(401, digest), ScriptedTransport.status(401, stale),
            ScriptedTransport.status(401, stale),
            ScriptedTransport.status(401, stale),
        ])
        let error = await #expect(throws: ClientError.self) {
            _ = try await client(
                transport,
                [ScopedCredential(scope: scope, credential: .digest(user: "u", password: "p"))]
            )
            .send(try HTTPRequest(method: .get, absoluteURL: "https://api.example/"))
        }
        #expect(error?.code == .authenticationFailed)
        #expect(error?.challenge?.parameter("nonce") == "n2")
        #expect(transport.sent.count == 3)
    }

    /// RFC 9110 §15.4: 303 turns POST into GET and drops the body; 301/302 turn POST into GET;
    /// 307/308 keep method and body. The sandbox's /redirect answers GET only, so this is
    /// proven here.
    @Test(arguments: [(301, "GET"), (302, "GET"), (303, "GET"), (307, "POST"), (308, "POST")])
    func methodRules(status: Int, method: String) async throws {
        let transport = ScriptedTransport([
            ScriptedTransport.status(status, [.location: "/next?x=1"]), ScriptedTransport.status(200),
        ])
        var request = try HTTPRequest(method: .post, absoluteURL: "https://api.example/dir/start")
        request.headerFields[.contentType] = "text/plain"
        _ = try await client(transport, []).send(request, body: Array("hi".utf8))
        let hop = transport.sent[1]
        #expect(hop.request.method.rawValue == method)
        #expect(hop.request.path == "/next?x=1")
        #expect(hop.body == (method == "GET" ? nil : Array("hi".utf8)))
        #expect((hop.request.headerFields[.contentType] == nil) == (method == "GET"))
    }

    @Test func headStaysHeadOn303AndRelativeLocations() async throws {
        let transport = ScriptedTransport([
            ScriptedTransport.status(303, [.location: "other?q"]),
            ScriptedTransport.status(302, [.location: "//b.example/z"]),
            ScriptedTransport.status(200),
        ])
        _ = try await client(transport, []).send(try HTTPRequest(method: .head, absoluteURL: "https://a.example/dir/x"))
        #expect(transport.sent[1].request.method == .head)
        #expect(transport.sent[1].request.absoluteURL == "https://a.example/dir/other?q")
        #expect(transport.sent[2].request.absoluteURL == "https://b.example/z")
    }

    @Test func redirectToOtherSchemesIsRefused() async throws {
        let transport = ScriptedTransport([ScriptedTransport.status(302, [.location: "file:///etc/passwd"])])
        let error = await #expect(throws: ClientError.self) {
            _ = try await client(transport, []).send(try HTTPRequest(method: .get, absoluteURL: "https://a.example/"))
        }
        #expect(error?.code == .invalidRedirect)
    }

    /// A 407 from the configured proxy is answered in Proxy-Authorization with the proxy's
    /// credential, then the origin's 401 with the origin's; a 407 without a configured proxy is
    /// handed back.
    @Test func proxyChallenge() async throws {
        let proxy = try AuthScope(url: "http://127.0.0.1:3128")
        let origin = try AuthScope(url: "https://api.example")
        let transport = ScriptedTransport([
            ScriptedTransport.status(407, [.proxyAuthenticate: "Basic realm=\"proxy\""]),
            ScriptedTransport.status(401, basicChallenge), ScriptedTransport.status(200),
        ])
        var configuration = AuthenticatingClient.Configuration()
        configuration.proxy = proxy
        let store = InMemoryCredentialStore([
            ScopedCredential(scope: proxy, credential: .basic(user: "p", password: "q")),
            ScopedCredential(scope: origin, credential: .basic(user: "u", password: "p")),
        ])
        let client = AuthenticatingClient(transport: transport, credentials: store, configuration: configuration)
        let (response, _) = try await client.send(try HTTPRequest(method: .get, absoluteURL: "https://api.example/"))
        #expect(response.status == .ok)
        #expect(transport.sent.count == 3)
        #expect(transport.sent[1].request.headerFields[.proxyAuthorization] == "Basic cDpx")
        #expect(transport.sent[1].request.headerFields[.authorization] == nil)
        #expect(transport.sent[2].request.headerFields[.proxyAuthorization] == "Basic cDpx")
        #expect(transport.sent[2].request.headerFields[.authorization] == "Basic dTpw")

        let unconfigured = ScriptedTransport([
            ScriptedTransport.status(407, [.proxyAuthenticate: "Basic realm=\"proxy\""])
        ])
        let (handedBack, _) = try await AuthenticatingClient(transport: unconfigured, credentials: store)
            .send(try HTTPRequest(method: .get, absoluteURL: "https://api.example/"))
        #expect(handedBack.status.code == 407)
        #expect(unconfigured.sent.count == 1)

        let refusing = ScriptedTransport([
            ScriptedTransport.status(407, [.proxyAuthenticate: "Basic realm=\"proxy\""]),
            ScriptedTransport.status(407, [.proxyAuthenticate: "Basic realm=\"proxy\""]),
        ])
        let error = await #expect(throws: ClientError.self) {
            _ = try await AuthenticatingClient(transport: refusing, credentials: store, configuration: configuration)
                .send(try HTTPRequest(method: .get, absoluteURL: "https://api.example/"))
        }
        #expect(error?.code == .authenticationFailed)
        #expect(error?.reason.hasPrefix("the proxy http://127.0.0.1:3128 refused") == true)
        #expect(refusing.sent.count == 2)
    }

    /// A server whose rspauth does not match has not proven it knows the credential.
    @Test func wrongRspauthIsRefused() async throws {
        let scope = try AuthScope(url: "https://api.example")
        let digest: HTTPFields = [.wwwAuthenticate: "Digest realm=\"r\", nonce=\"n1\", qop=\"auth\", algorithm=SHA-256"]
        let transport = ScriptedTransport([
            ScriptedTransport.status(401, digest),
            ScriptedTransport.status(
                200,
                [.authenticationInfo: "qop=auth, rspauth=\"00\", cnonce=\"0a4f113b\", nc=00000001"]
            ),
        ])
        let error = await #expect(throws: ClientError.self) {
            _ = try await client(
                transport,
                [ScopedCredential(scope: scope, credential: .digest(user: "u", password: "p"))]
            )
            .send(try HTTPRequest(method: .get, absoluteURL: "https://api.example/"))
        }
        #expect(error?.code == .invalidServerProof)
    }
}

@Suite struct ClientDigestReuseTests {
    /// 100 Digest requests cost 101 round trips: the first is challenged, the other 99 reuse
    /// the nonce with nc 2…100, and no request is sent without an answer after the first.
    @Test func hundredRequestsHundredAndOneRoundTrips() async throws {
        let challenge: HTTPFields = [
            .wwwAuthenticate: "Digest realm=\"r\", nonce=\"n1\", qop=\"auth\", algorithm=SHA-256"
        ]
        let transport = ScriptedTransport(
            [ScriptedTransport.status(401, challenge)] + Array(repeating: ScriptedTransport.status(200), count: 100)
        )
        let client = client(
            transport,
            [
                ScopedCredential(
                    scope: try AuthScope(url: "https://api.example"),
                    credential: .digest(user: "u", password: "p")
                )
            ]
        )
        for index in 0..<100 {
            let (response, _) = try await client.send(
                try HTTPRequest(method: .get, absoluteURL: "https://api.example/r/\(index)")
            )
            #expect(response.status == .ok)
        }
        #expect(await client.roundTrips == 101)
        let counts = transport.sent.dropFirst().map { sent -> String in
            let value = sent.request.headerFields[.authorization] ?? ""
            return (try? AuthenticationChallenge.parse(value).first?.parameter("nc")) ?? "-"
        }
        #expect(
            counts
                == (1...100).map {
                    String(repeating: "0", count: 8 - String($0, radix: 16).count) + String($0, radix: 16)
                }
        )
    }
}
