import HTTPTypes
import Hummingbird
import RemoteAuth

/// `POST /oauth2/par`, the pushed authorization request endpoint
/// ([RFC 9126 §2](https://www.rfc-editor.org/rfc/rfc9126#section-2)): the client authenticates
/// as at the token endpoint and sends the authorization request's parameters as a form; the
/// request is checked as the authorization endpoint would check it, kept for
/// ``SandboxConfiguration/pushedRequestTTL`` seconds, and named by a one-time `request_uri`.
///
/// DPoP ([RFC 9449 §10.1](https://www.rfc-editor.org/rfc/rfc9449#section-10.1)): the code is
/// bound to the key named by `dpop_jkt` in the body, or to the key of a `DPoP` proof sent with
/// the push (checked as at the token endpoint); when both come, they must name the same key.
struct PushedAuthorizationRoutes: Sendable {
    let configuration: SandboxConfiguration
    let store: OAuth2Store
    let issuer: OAuth2Issuer

    var collection: RouteCollection<SandboxRequestContext> {
        let routes = RouteCollection(context: SandboxRequestContext.self)
        routes.post("par") { request, context in try await push(request, peer: await context.peerCertificate()) }
        return routes
    }

    /// `201 Created` with `request_uri` and `expires_in` ([RFC 9126 §2.2](https://www.rfc-editor.org/rfc/rfc9126#section-2.2)),
    /// or an error response ([§2.3](https://www.rfc-editor.org/rfc/rfc9126#section-2.3)).
    struct PushedJSON: Encodable {
        let requestURI: String
        let expiresIn: Int64
        enum CodingKeys: String, CodingKey {
            case requestURI = "request_uri"
            case expiresIn = "expires_in"
        }
    }

    func push(_ request: Request, peer: PeerCertificate?) async throws -> Response {
        var parameters = try await OAuth2Parameters.body(of: request)
        let (client, _) = try await OAuth2ClientAuthentication(configuration: configuration, clients: store.clients)
            .authenticate(request, parameters, peer: peer)
        // §2.1: request_uri is not allowed in a pushed request.
        guard parameters["request_uri"] == nil else {
            throw OAuth2Problem(.invalidRequest, "request_uri is not allowed in a pushed request (RFC 9126 §2.1)")
        }
        // §2.1: client_id is required and must be the authenticated client.
        guard parameters["client_id"] == client.id else {
            throw OAuth2Problem(.invalidRequest, "client_id is missing or is not the authenticated client")
        }
        // The checks of the authorization endpoint (RFC 6749 §4.1.1, RFC 7636 §4.3), answered
        // as JSON errors since there is no redirect yet.
        if let given = parameters["redirect_uri"] {
            guard OAuth2Rules.redirectURIMatches(given, registered: client.redirectURIs) else {
                throw OAuth2Problem(.invalidRequest, "the redirect_uri is not registered for this client")
            }
        } else if client.redirectURIs.count != 1 {
            throw OAuth2Problem(.invalidRequest, "redirect_uri is missing")
        }
        guard parameters["response_type"] == "code" else {
            throw OAuth2Problem(.unsupportedResponseType, "response_type must be code")
        }
        guard let challenge = parameters["code_challenge"], parameters["code_challenge_method"] == "S256",
            challenge.utf8.count == 43, challenge.utf8.allSatisfy(FormURLEncoding.isUnreserved)
        else {
            throw OAuth2Problem(.invalidRequest, "PKCE with code_challenge_method S256 is required (RFC 7636)")
        }
        guard OAuth2Rules.scope(parameters["scope"], allowed: configuration.oauth2Scopes) != nil else {
            throw OAuth2Problem(.invalidScope, "scope names a scope this server does not grant")
        }
        if let jkt = parameters["dpop_jkt"], !OAuth2.DPoP.isThumbprint(jkt) {
            throw OAuth2Problem(.invalidRequest, "dpop_jkt is not a SHA-256 JWK thumbprint (RFC 9449 §10)")
        }
        // RFC 9449 §10.1: a proof with the push binds the code to its key, as dpop_jkt would.
        if let proved = try await store.dpopThumbprint(of: request, configuration: configuration, issuer: issuer.url) {
            if let named = parameters["dpop_jkt"], !constantTimeEquals(named, proved) {
                throw OAuth2Problem(
                    .invalidDPoPProof,
                    "dpop_jkt is not the thumbprint of the DPoP proof's key (RFC 9449 §10.1)"
                )
            }
            parameters["dpop_jkt"] = proved
        }
        let now = configuration.now()
        let uri = await store.addPushed(
            OAuth2Store.PushedRequest(
                clientID: client.id,
                parameters: parameters,
                expiresAt: now + configuration.pushedRequestTTL
            ),
            now: now
        )
        return OAuth2JSON.response(
            PushedJSON(requestURI: uri, expiresIn: configuration.pushedRequestTTL),
            status: .created
        )
    }
}
