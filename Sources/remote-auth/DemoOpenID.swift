import HTTPTypes
import RemoteAuth
import RemoteAuthAsyncHTTPClient

/// The OpenID Connect, DPoP and PAR steps of `remote-auth demo`, against the sandbox's
/// OpenID provider.
extension DemoCommand {
    static let openIDSteps: [Step] = [
        Step(name: "OpenID Connect, ID token and UserInfo") { context in
            let metadata = try await OAuth2.Flow.discover(
                issuer: context.base,
                document: .openIDConfiguration,
                transport: context.transport
            )
            var flow = try await context.publicFlow(server: OAuth2.AuthorizationServer(metadata: metadata))
            flow.openIDConnect = try OpenIDConnect.RelyingParty(
                metadata: metadata,
                clientID: "demo-app",
                transport: context.transport,
                now: unixNow
            )
            // The flow sends a nonce and validates the ID token (Core §3.1.3.7) before it returns.
            let (tokens, _) = try await context.signIn(flow, scope: ["openid"] + oauth2Scope)
            let token = try requireValue(tokens.idToken, "no ID token")
            let idToken = try OpenIDConnect.IDToken(claims: JOSE.CompactJWS(token.reveal()).claims(), token: token)
            try expect(idToken.nonce != nil, "the ID token has no nonce")
            // The demo's access tokens live 2 s (for the refresh step): on a loaded machine this
            // one may have expired on the way, so refresh once on a refusal, as a token session
            // does on invalid_token (the refresh validates the new ID token too).
            let info: OpenIDConnect.UserInfo
            do {
                info = try await flow.userInfo(accessToken: tokens.accessToken, subject: idToken.subject)
            } catch let error as OpenIDConnect.Error where error.code == .userInfoFailed {
                let renewed = try await flow.refresh(tokens)
                info = try await flow.userInfo(accessToken: renewed.accessToken, subject: idToken.subject)
            }
            return "ID token validated against the JWKS (sub \(idToken.subject), nonce matched); UserInfo sub \(info.subject)"
        },
        Step(name: "DPoP-bound token") { context in
            let server = try await context.oauth2Server()
            let prover = try OAuth2.DPoP.Prover(key: .generateP256(), now: unixNow, random: .system)
            let flow = try await context.publicFlow(server: server).binding(to: prover)
            var (tokens, _) = try await context.signIn(flow, scope: ["statuses:read"])
            try expect(OAuth2.DPoP.isDPoPTokenType(tokens.tokenType), "token_type \(tokens.tokenType), not DPoP")
            let url = context.base + "/1.1/statuses/home_timeline.json"
            func sendBound() async throws -> HTTPResponse {
                var bound = try HTTPRequest(method: .get, absoluteURL: url)
                bound.headerFields[.authorization] = "DPoP " + tokens.accessToken.reveal()
                bound.headerFields[.dpop] = try prover.proof(method: .get, url: url, accessToken: tokens.accessToken)
                return try await context.transport.send(bound, body: nil).0
            }
            var accepted = try await sendBound()
            // The demo's tokens live 2 s: on a loaded machine, refresh once (with a proof of the
            // same key) if this one expired on the way.
            if accepted.status == .unauthorized, let expiry = tokens.expiresAt, expiry <= unixNow() {
                tokens = try await flow.refresh(tokens)
                accepted = try await sendBound()
            }
            try expect(accepted.status == .ok, "home_timeline answered \(accepted.status.code) with the proof")
            var bearer = try HTTPRequest(method: .get, absoluteURL: url)
            bearer.headerFields[.authorization] = "Bearer " + tokens.accessToken.reveal()
            let (refused, _) = try await context.transport.send(bearer, body: nil)
            try expect(refused.status == .unauthorized, "the bound token as Bearer was answered \(refused.status.code)")
            return "token bound to key \(prover.thumbprint) (RFC 9449): 200 with a proof, 401 as a Bearer token"
        },
        Step(name: "Pushed authorization request") { context in
            let flow = try await context.publicFlow()
            let (tokens, url) = try await context.signIn(flow, scope: ["statuses:read"], push: true)
            let names = Set(
                try FormURLEncoding.decode(String(url.split(separator: "?", maxSplits: 1).last ?? "")).map(\.name)
            )
            try expect(names == ["client_id", "request_uri"], "the browser saw \(names.sorted()), not only client_id and request_uri")
            try expect(tokens.refreshToken != nil, "no refresh token")
            return "the request was pushed first (RFC 9126); the browser saw only client_id and request_uri"
        },
    ]
}
