import Foundation
import HTTPTypes
import OpenAPIRuntime
import RemoteAuth
import RemoteAuthAsyncHTTPClient
import RemoteAuthOpenAPI
import RemoteAuthSandbox
import Testing

/// The authenticator chain as an OpenAPI `ClientMiddleware`, against the sandbox over sockets:
/// a server URL with a path (`…/1.1`) and operation paths, as a generated client sends them.
@Suite(.timeLimit(.minutes(5))) struct OpenAPIMiddlewareTests {
    /// What a generated client does with one middleware and a transport.
    static func call(
        _ middleware: AuthenticationMiddleware,
        over transport: any ClientTransport,
        serverURL: String,
        _ method: HTTPRequest.Method,
        _ path: String,
        body: HTTPBody? = nil,
        contentType: String? = nil
    ) async throws -> (HTTPResponse, String) {
        var request = HTTPRequest(method: method, scheme: nil, authority: nil, path: path)
        if let contentType { request.headerFields[.contentType] = contentType }
        let baseURL = try #require(URL(string: serverURL))
        let (response, responseBody) = try await middleware.intercept(
            request,
            body: body,
            baseURL: baseURL,
            operationID: "op"
        ) { request, body, url in
            try await transport.send(request, body: body, baseURL: url, operationID: "op")
        }
        guard let responseBody else { return (response, "") }
        return (response, try await String(collecting: responseBody, upTo: 1 << 20))
    }

    /// A client credentials session: a revoked token is refused (401 `invalid_token`), renewed
    /// once, and the call sent again.
    @Test func bearerSessionRenewsOnInvalidToken() async throws {
        try await Sandbox.withSandbox { sandbox in
            let base = sandbox.baseURL
            try await AsyncHTTPClientTransport.withTransport { ahc in
                let recording = RecordingTransport(ahc)
                let flow = OAuth2.Flow(
                    server: OAuth2.AuthorizationServer(
                        issuer: base,
                        tokenEndpoint: base + "/oauth2/token",
                        revocationEndpoint: base + "/oauth2/revoke"
                    ),
                    client: OAuth2.Client(id: "demo-service", authentication: .clientSecretBasic("demo-service-secret")),
                    transport: ahc
                )
                let session = try await flow.clientCredentialsSession(scope: ["statuses:read"], resources: [base])
                let middleware = AuthenticationMiddleware(session: session)
                let transport = RemoteAuthClientTransport(recording)
                let (first, body) = try await Self.call(
                    middleware,
                    over: transport,
                    serverURL: base + "/1.1",
                    .get,
                    "/statuses/home_timeline.json"
                )
                #expect(first.status == .ok)
                #expect(body.hasPrefix("["))
                #expect(recording.hops.last?.request.path == "/1.1/statuses/home_timeline.json")
                #expect(recording.hops.last?.request.headerFields[.authorization]?.hasPrefix("Bearer ") == true)

                try await flow.revoke(try await session.validTokens().accessToken)
                let before = recording.hops.count
                let (again, _) = try await Self.call(
                    middleware,
                    over: transport,
                    serverURL: base + "/1.1",
                    .get,
                    "/statuses/home_timeline.json"
                )
                #expect(again.status == .ok)
                #expect(recording.hops.dropFirst(before).map(\.status) == [401, 200])
                #expect(await session.refreshCount == 1)
            }
        }
    }

    /// DPoP: the proof covers the whole URL (server path and operation path), and the resource
    /// server's nonce challenge is answered once.
    @Test func dpopSessionAnswersTheNonceChallenge() async throws {
        try await Sandbox.withSandbox(DPoPSandboxTests.autoApproving(nonce: true)) { sandbox in
            let base = sandbox.baseURL
            try await AsyncHTTPClientTransport.withTransport { ahc in
                let recording = RecordingTransport(ahc)
                let prover = try OAuth2.DPoP.Prover(key: .generateP256(), now: DPoPSandboxTests.now)
                let signedIn = try await DPoPSandboxTests.signIn(base, prover: prover, over: ahc)
                let before = recording.hops.count
                let (response, _) = try await Self.call(
                    AuthenticationMiddleware(session: signedIn.session),
                    over: RemoteAuthClientTransport(recording),
                    serverURL: base + "/1.1",
                    .get,
                    "/statuses/home_timeline.json"
                )
                #expect(response.status == .ok)
                #expect(recording.hops.dropFirst(before).map(\.status) == [401, 200])
                #expect(recording.hops.last?.request.headerFields[.authorization]?.hasPrefix("DPoP ") == true)
            }
        }
    }

    /// OAuth 1.0a: the form body's parameters are signed (RFC 5849 §3.4.1.3.1), the sandbox
    /// verifies the signature.
    @Test func oauth1SignsTheFormBody() async throws {
        try await Sandbox.withSandbox { sandbox in
            try await AsyncHTTPClientTransport.withTransport { ahc in
                let signer = try OAuth1.Signer(
                    client: .init(key: "demo-device", secret: "demo-device-secret"),
                    token: .init(token: "alice-device-token", secret: "alice-device-token-secret")
                )
                let middleware = AuthenticationMiddleware(authenticators: [
                    ScopedAuthenticator(OAuth1.RequestSigner(signer: signer, now: UnixTime.now), for: try AuthScope(url: sandbox.baseURL))
                ])
                let (response, body) = try await Self.call(
                    middleware,
                    over: RemoteAuthClientTransport(ahc),
                    serverURL: sandbox.baseURL + "/1.1/",
                    .post,
                    "/statuses/update.json",
                    body: HTTPBody("status=from%20OpenAPI"),
                    contentType: "application/x-www-form-urlencoded"
                )
                #expect(response.status == .ok, "\(body)")
                #expect(body.contains("\"text\":\"from OpenAPI\""))
            }
        }
    }

    /// A streamed body is sent once: a retry asked for it is a typed error, not a second send.
    @Test func streamedBodyIsNotSentTwice() async throws {
        try await Sandbox.withSandbox { sandbox in
            try await AsyncHTTPClientTransport.withTransport { ahc in
                let recording = RecordingTransport(ahc)
                var looping = ToyAuthenticator(required: .contentType)
                looping.alwaysRetry = true
                let middleware = AuthenticationMiddleware(authenticators: [
                    ScopedAuthenticator(looping, for: try AuthScope(url: sandbox.baseURL))
                ])
                let stream = AsyncStream<ArraySlice<UInt8>> { continuation in
                    continuation.yield(ArraySlice("status=streamed".utf8))
                    continuation.finish()
                }
                let error = await #expect(throws: AuthenticationMiddlewareError.self) {
                    _ = try await Self.call(
                        middleware,
                        over: RemoteAuthClientTransport(recording),
                        serverURL: sandbox.baseURL,
                        .post,
                        "/1.1/statuses/update.json",
                        body: HTTPBody(stream, length: .unknown),
                        contentType: "application/x-www-form-urlencoded"
                    )
                }
                #expect(error?.code == .bodyNotReplayable)
                #expect(recording.hops.count == 1)
            }
        }
    }

    /// Another origin's calls get nothing; plain http beyond loopback is refused.
    @Test func scopeAndPlainHTTP() async throws {
        try await Sandbox.withSandbox { sandbox in
            try await AsyncHTTPClientTransport.withTransport { ahc in
                let recording = RecordingTransport(ahc)
                let elsewhere = AuthenticationMiddleware(authenticators: [
                    ScopedAuthenticator(try BearerToken("abc"), for: try AuthScope(url: "https://api.example"))
                ])
                _ = try await Self.call(
                    elsewhere,
                    over: RemoteAuthClientTransport(recording),
                    serverURL: sandbox.baseURL,
                    .get,
                    "/1.1/statuses/home_timeline.json"
                )
                #expect(recording.hops.last?.request.headerFields[.authorization] == nil)

                let plain = AuthenticationMiddleware(authenticators: [
                    ScopedAuthenticator(try BearerToken("abc"), for: try AuthScope(url: "http://api.example"))
                ])
                let error = await #expect(throws: RemoteAuth.ClientError.self) {
                    _ = try await Self.call(
                        plain,
                        over: RemoteAuthClientTransport(UnreachableTransport()),
                        serverURL: "http://api.example",
                        .get,
                        "/x"
                    )
                }
                #expect(error?.code == .plainHTTPRefused)
            }
        }
    }
}
