import Foundation
import HTTPTypes
import Logging
import RemoteAuth
import RemoteAuthAsyncHTTPClient
import RemoteAuthOpenAPI
import RemoteAuthSandbox
import Testing

/// An authenticator written outside the library, with its public API only: it writes two
/// fields that are not `Authorization`, remembers in the attempt's context what it sent, and
/// refuses a response that lacks a given header.
struct ToyAuthenticator: RequestAuthenticator {
    struct Refused: Error, Equatable { let attempt: Int }
    static let key = HTTPField.Name("X-Toy-Key")!
    static let signature = HTTPField.Name("X-Toy-Signature")!
    static let sentSignature = AuthenticationAttempt.Key<String>("toy.sentSignature")

    let required: HTTPField.Name
    /// Ask for a retry on every response (to show the client's bound).
    var alwaysRetry = false
    let judged = Judged()

    final class Judged: Sendable {
        private let seen = Locked<[String]>([])
        func append(_ value: String) { seen.withLock { $0.append(value) } }
        var all: [String] { seen.withLock { $0 } }
    }

    var writtenFields: [HTTPField.Name] { [Self.key, Self.signature] }

    func authenticate(_ attempt: inout AuthenticationAttempt) async throws {
        let signature = "sig-\(attempt.number)-\(attempt.request.method.rawValue)"
        attempt.request.headerFields[Self.key] = "toy-key-id"
        attempt.request.headerFields[Self.signature] = signature
        attempt[Self.sentSignature] = signature
    }

    func judge(_ response: HTTPResponse, to attempt: inout AuthenticationAttempt) async throws
        -> AuthenticationVerdict
    {
        judged.append(attempt[Self.sentSignature] ?? "none")
        if alwaysRetry { return .retry }
        guard response.headerFields[required] != nil else { throw Refused(attempt: attempt.number) }
        return .accept
    }
}

@Suite(.timeLimit(.minutes(5))) struct AuthenticatorChainTests {
    static let timeline = "/1.1/statuses/home_timeline.json"

    /// The toy authenticator's two fields reach the server on a request to its origin, its
    /// judgement sees the response and the context it wrote, and a response without the header
    /// it requires fails the request with its own error.
    @Test func anAuthenticatorFromOutsideTheModule() async throws {
        try await Sandbox.withSandbox { sandbox in
            try await AsyncHTTPClientTransport.withTransport { ahc in
                let recording = RecordingTransport(ahc)
                let origin = try AuthScope(url: sandbox.baseURL)
                let accepting = ToyAuthenticator(required: .contentType)
                let client = AuthenticatingClient(
                    transport: recording,
                    authenticators: [ScopedAuthenticator(accepting, for: origin, allowingPlainHTTP: false)]
                )
                let (response, _) = try await client.get(sandbox.baseURL + "/.well-known/oauth-authorization-server")
                #expect(response.status == .ok)
                let sent = try #require(recording.hops.first?.request)
                #expect(sent.headerFields[ToyAuthenticator.key] == "toy-key-id")
                #expect(sent.headerFields[ToyAuthenticator.signature] == "sig-1-GET")
                #expect(sent.headerFields[.authorization] == nil)
                #expect(accepting.judged.all.first == "sig-1-GET")

                let refusing = ToyAuthenticator(required: HTTPField.Name("X-Server-Signature")!)
                let strict = AuthenticatingClient(
                    transport: recording,
                    authenticators: [ScopedAuthenticator(refusing, for: origin)]
                )
                let error = await #expect(throws: ToyAuthenticator.Refused.self) {
                    try await strict.get(sandbox.baseURL + Self.timeline)
                }
                #expect(error == ToyAuthenticator.Refused(attempt: 1))
            }
        }
    }

    /// Another origin gets nothing; a request that carries its own field is sent as built; an
    /// authenticator that always asks for a retry is stopped after the configured retries.
    @Test func scopeCallerFieldsAndTheRetryBound() async throws {
        try await Sandbox.withSandbox { sandbox in
            try await AsyncHTTPClientTransport.withTransport { ahc in
                let recording = RecordingTransport(ahc)
                let toy = ToyAuthenticator(required: .contentType)
                let elsewhere = AuthenticatingClient(
                    transport: recording,
                    authenticators: [ScopedAuthenticator(toy, for: try AuthScope(url: "http://127.0.0.2:1"))]
                )
                _ = try await elsewhere.get(sandbox.baseURL + Self.timeline)
                #expect(recording.hops.last?.request.headerFields[ToyAuthenticator.key] == nil)

                let client = AuthenticatingClient(
                    transport: recording,
                    authenticators: [ScopedAuthenticator(toy, for: try AuthScope(url: sandbox.baseURL))]
                )
                var own = try HTTPRequest(method: .get, absoluteURL: sandbox.baseURL + Self.timeline)
                own.headerFields[ToyAuthenticator.signature] = "callers-own"
                _ = try await client.send(own, body: nil)
                #expect(recording.hops.last?.request.headerFields[ToyAuthenticator.signature] == "callers-own")
                #expect(recording.hops.last?.request.headerFields[ToyAuthenticator.key] == nil)

                let before = recording.hops.count
                var looping = ToyAuthenticator(required: .contentType)
                looping.alwaysRetry = true
                let bounded = AuthenticatingClient(
                    transport: recording,
                    authenticators: [ScopedAuthenticator(looping, for: try AuthScope(url: sandbox.baseURL))]
                )
                let error = await #expect(throws: ClientError.self) {
                    try await bounded.get(sandbox.baseURL + Self.timeline)
                }
                #expect(error?.code == .authenticationFailed)
                #expect(recording.hops.count - before == 3)
                #expect(looping.judged.all == ["sig-1-GET", "sig-2-GET", "sig-3-GET"])
            }
        }
    }

    /// Plain http to a host that is not loopback is refused unless the authenticator opted in.
    @Test func plainHTTPIsRefusedBeyondLoopback() async throws {
        let client = AuthenticatingClient(
            transport: RecordingTransport(UnreachableTransport()),
            authenticators: [
                ScopedAuthenticator(ToyAuthenticator(required: .contentType), for: try AuthScope(url: "http://api.example"))
            ]
        )
        let error = await #expect(throws: ClientError.self) { try await client.get("http://api.example/x") }
        #expect(error?.code == .plainHTTPRefused)
    }

    /// The toy's fields are redacted in the client's trace log, by name.
    @Test func writtenFieldsAreRedactedInLogs() {
        var fields = HTTPFields()
        fields[ToyAuthenticator.signature] = "sig-1-GET"
        fields[.accept] = "*/*"
        #expect(
            Redaction.redacted(fields, also: ToyAuthenticator(required: .contentType).writtenFields)
                == ["X-Toy-Signature: <redacted>", "Accept: */*"]
        )
    }
}

/// A transport that must not be reached.
struct UnreachableTransport: HTTPTransport {
    func send(_ request: HTTPRequest, body: [UInt8]?) async throws -> (HTTPResponse, [UInt8]) {
        Issue.record("the request was sent: \(request.method) \(request.path ?? "")")
        return (HTTPResponse(status: .internalServerError), [])
    }
}

/// OAuth 1.0a through the chain, in all three placements (RFC 5849 §3.5), against the sandbox's
/// provider, which verifies each signature.
@Suite(.timeLimit(.minutes(5))) struct OAuth1AuthenticatorTests {
    @Test(arguments: OAuth1.Placement.allCases) func signsInEveryPlacement(placement: OAuth1.Placement) async throws {
        try await Sandbox.withSandbox { sandbox in
            try await AsyncHTTPClientTransport.withTransport { ahc in
                let recording = RecordingTransport(ahc)
                let signer = try OAuth1.Signer(
                    client: .init(key: "demo-device", secret: "demo-device-secret"),
                    token: .init(token: "alice-device-token", secret: "alice-device-token-secret")
                )
                let client = AuthenticatingClient(
                    transport: recording,
                    authenticators: [
                        ScopedAuthenticator(
                            OAuth1.RequestSigner(signer: signer, now: { Int64(Date().timeIntervalSince1970) }, placement: placement),
                            for: try AuthScope(url: sandbox.baseURL)
                        )
                    ]
                )
                var request = try HTTPRequest(method: .post, absoluteURL: sandbox.baseURL + "/1.1/statuses/update.json")
                request.headerFields[.contentType] = "application/x-www-form-urlencoded"
                let (response, body) = try await client.send(request, body: Array("status=chain%20%C3%BC".utf8))
                #expect(response.status == .ok, "\(String(decoding: body, as: UTF8.self))")
                #expect(String(decoding: body, as: UTF8.self).contains("\"text\":\"chain ü\""))
                let sent = try #require(recording.hops.last?.request)
                #expect((sent.headerFields[.authorization] != nil) == (placement == .header))
                #expect((sent.path ?? "").contains("oauth_signature=") == (placement == .query))
            }
        }
    }
}

/// AWS SigV4 through the chain and through the OpenAPI middleware, verified by the sandbox.
@Suite(.timeLimit(.minutes(5))) struct SigV4AuthenticatorTests {
    static func signer(secret: Secret = "sandbox-aws-secret") -> AWS.SigV4Signer {
        AWS.SigV4Signer(
            credentials: AWS.Credentials(accessKeyID: "AKIDSANDBOX", secretAccessKey: secret),
            region: "us-east-1",
            service: "execute-api"
        )
    }

    @Test func clientAndMiddleware() async throws {
        try await Sandbox.withSandbox { sandbox in
            try await AsyncHTTPClientTransport.withTransport { ahc in
                let origin = try AuthScope(url: sandbox.baseURL)
                let client = AuthenticatingClient(
                    transport: ahc,
                    authenticators: [ScopedAuthenticator(AWS.SigV4Authenticator(signer: Self.signer()), for: origin)]
                )
                var request = try HTTPRequest(method: .post, absoluteURL: sandbox.baseURL + "/1.1/statuses/update.json")
                request.headerFields[.contentType] = "application/x-www-form-urlencoded"
                let (posted, body) = try await client.send(request, body: Array("status=SigV4%20chain".utf8))
                #expect(posted.status == .ok, "\(String(decoding: body, as: UTF8.self))")
                #expect(String(decoding: body, as: UTF8.self).contains("\"text\":\"SigV4 chain\""))

                let middleware = AuthenticationMiddleware(authenticators: [
                    ScopedAuthenticator(AWS.SigV4Authenticator(signer: Self.signer()), for: origin)
                ])
                let (me, text) = try await OpenAPIMiddlewareTests.call(
                    middleware,
                    over: RemoteAuthClientTransport(ahc),
                    serverURL: sandbox.baseURL + "/1.1",
                    .get,
                    "/account/verify_credentials.json?include_entities=true"
                )
                #expect(me.status == .ok, "\(text)")
                #expect(text.contains("\"screen_name\":\"alice\""))

                let wrong = AuthenticatingClient(
                    transport: ahc,
                    authenticators: [
                        ScopedAuthenticator(AWS.SigV4Authenticator(signer: Self.signer(secret: "wrong")), for: origin)
                    ]
                )
                #expect(try await wrong.get(sandbox.baseURL + "/1.1/account/verify_credentials.json").0.status == .forbidden)
            }
        }
    }
}

/// Basic and Digest as authenticators in the chain and in the OpenAPI middleware, against the
/// sandbox's challenge routes.
@Suite(.timeLimit(.minutes(5))) struct ChallengeAuthenticatorTests {
    @Test func basicOnChallengeAndPreemptive() async throws {
        try await Sandbox.withSandbox { sandbox in
            try await AsyncHTTPClientTransport.withTransport { ahc in
                let origin = try AuthScope(url: sandbox.baseURL)
                for preemptive in [false, true] {
                    let recording = RecordingTransport(ahc)
                    let basic = try BasicAuthenticator(user: "alice", password: "wonderland", preemptive: preemptive)
                    let client = AuthenticatingClient(transport: recording, authenticators: [ScopedAuthenticator(basic, for: origin)])
                    let (response, body) = try await client.get(sandbox.baseURL + "/basic/")
                    #expect(response.status == .ok)
                    #expect(String(decoding: body, as: UTF8.self) == aliceJSON)
                    #expect(recording.hops.map(\.status) == (preemptive ? [200] : [401, 200]))
                }
                let wrong = AuthenticatingClient(
                    transport: ahc,
                    authenticators: [ScopedAuthenticator(try BasicAuthenticator(user: "alice", password: "nope"), for: origin)]
                )
                let error = await #expect(throws: ClientError.self) { _ = try await wrong.get(sandbox.baseURL + "/basic/") }
                #expect(error?.code == .authenticationFailed)
                #expect(error?.challenge?.hasScheme("Basic") == true)
            }
        }
    }

    /// One nonce for five requests (six round trips); the same authenticator in the OpenAPI
    /// middleware keeps using it; a wrong password fails after one answer.
    @Test func digestReusesTheNonce() async throws {
        try await Sandbox.withSandbox { sandbox in
            try await AsyncHTTPClientTransport.withTransport { ahc in
                let origin = try AuthScope(url: sandbox.baseURL)
                let recording = RecordingTransport(ahc)
                let digest = DigestAuthenticator(user: "alice", password: "wonderland")
                let client = AuthenticatingClient(transport: recording, authenticators: [ScopedAuthenticator(digest, for: origin)])
                for _ in 0..<5 {
                    let (response, body) = try await client.get(sandbox.baseURL + "/digest/SHA-256/auth/")
                    #expect(response.status == .ok)
                    #expect(String(decoding: body, as: UTF8.self) == aliceJSON)
                }
                #expect(recording.hops.count == 6)
                #expect(recording.hops.dropFirst().allSatisfy { $0.authorization?.hasPrefix("Digest ") == true })

                let middleware = AuthenticationMiddleware(authenticators: [ScopedAuthenticator(digest, for: origin)])
                let (viaMiddleware, _) = try await OpenAPIMiddlewareTests.call(
                    middleware,
                    over: RemoteAuthClientTransport(recording),
                    serverURL: sandbox.baseURL,
                    .get,
                    "/digest/SHA-256/auth/"
                )
                #expect(viaMiddleware.status == .ok)
                #expect(recording.hops.count == 7)

                let wrong = AuthenticatingClient(
                    transport: ahc,
                    authenticators: [ScopedAuthenticator(DigestAuthenticator(user: "alice", password: "nope"), for: origin)]
                )
                let error = await #expect(throws: ClientError.self) {
                    _ = try await wrong.get(sandbox.baseURL + "/digest/SHA-256/auth/")
                }
                #expect(error?.code == .authenticationFailed)
            }
        }
    }
}
