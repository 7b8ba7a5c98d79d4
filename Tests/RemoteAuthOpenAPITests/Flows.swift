import HTTPTypes
import RemoteAuth
import RemoteAuthAsyncHTTPClient
import Testing

/// The token endpoint's side: RemoteAuth's own transport (the middleware's sessions renew
/// through it), kept in this file so that its `AsyncHTTPClientTransport` does not meet
/// swift-openapi-async-http-client's type of the same name.
enum Flows {
    static func withTransport<Result: Sendable>(
        _ body: (any HTTPTransport) async throws -> Result
    ) async throws
        -> Result
    {
        try await AsyncHTTPClientTransport.withTransport { try await body($0) }
    }

    /// A signed-in session of the public client `demo-app` (code + PKCE) at an auto-approving
    /// sandbox, renewed through `transport` by its refresh token, on `now`; with `prover`, its
    /// tokens are DPoP-bound to that key.
    static func signIn(
        _ base: String,
        scope: [String],
        transport: any HTTPTransport,
        now: @escaping @Sendable () -> Int64,
        prover: OAuth2.DPoP.Prover? = nil
    ) async throws -> (flow: OAuth2.Flow, session: OAuth2.TokenSession) {
        var flow = try await OAuth2.Flow(
            discovering: base,
            client: .public(id: "demo-app"),
            transport: transport,
            now: now
        )
        if let prover { flow = flow.binding(to: prover) }
        let request = try flow.authorizationRequest(
            redirectURI: "http://127.0.0.1/callback",
            scope: scope,
            random: .system
        )
        // The auto-approving consent page redirects at once, with the code.
        let (consent, _) = try await transport.send(try HTTPRequest(method: .get, absoluteURL: request.url), body: nil)
        let location = try #require(consent.headerFields[.location], "\(consent.status)")
        let tokens = try await flow.tokens(fromCallback: location, pending: request.pending)
        return (flow, try await flow.session(for: tokens, resources: [base], dpop: prover))
    }
}
