import HTTPTypes

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension OpenIDConnect {
    /// The claims the UserInfo endpoint returns about the end-user
    /// ([OpenID Connect Core §5.3.2](https://openid.net/specs/openid-connect-core-1_0.html#UserInfoResponse)).
    public struct UserInfo: Sendable, Hashable, CustomStringConvertible {
        /// `sub`, equal to the ID token's (checked).
        public let subject: String
        /// Every claim (`name`, `email`, … of [§5.1](https://openid.net/specs/openid-connect-core-1_0.html#StandardClaims)).
        public let claims: [String: JSONValue]

        /// The request: `GET` with the access token as a Bearer credential
        /// ([Core §5.3.1](https://openid.net/specs/openid-connect-core-1_0.html#UserInfoRequest),
        /// [RFC 6750 §2.1](https://www.rfc-editor.org/rfc/rfc6750#section-2.1)).
        public static func request(endpoint: String, accessToken: Secret) throws -> HTTPRequest {
            try OAuth2.checkEndpoint(endpoint)
            var fields = HTTPFields()
            fields[.accept] = "application/json"
            fields[.authorization] = "Bearer " + accessToken.reveal()
            return try HTTPRequest(method: .get, absoluteURL: endpoint, headerFields: fields)
        }

        /// Asks `endpoint` (one `GET`, no redirect followed: a token must not follow one) with
        /// the request authenticated by `authenticator`, and parses the answer
        /// ([Core §5.3](https://openid.net/specs/openid-connect-core-1_0.html#UserInfo)).
        public static func fetch(
            from endpoint: String,
            expectedSubject: String,
            authenticator: any RequestAuthenticator,
            transport: any HTTPTransport
        ) async throws -> UserInfo {
            try OAuth2.checkEndpoint(endpoint)
            var fields = HTTPFields()
            fields[.accept] = "application/json"
            let request = try HTTPRequest(method: .get, absoluteURL: endpoint, headerFields: fields)
            var configuration = AuthenticatingClient.Configuration()
            configuration.followsRedirects = false
            let client = AuthenticatingClient(
                transport: transport,
                authenticators: [ScopedAuthenticator(authenticator, for: try AuthScope(origin: request))],
                configuration: configuration
            )
            let (response, body) = try await client.send(request, body: nil)
            return try parse(response: response, body: body, expectedSubject: expectedSubject)
        }

        /// Reads the response: a `200` with a JSON object whose `sub` is `expectedSubject`
        /// (§5.3.2: "the sub Claim in the UserInfo Response MUST be verified to exactly match
        /// the sub Claim in the ID Token; if they do not match, the UserInfo Response values
        /// MUST NOT be used").
        ///
        /// - Throws: ``OpenIDConnect/Error/Code/userInfoFailed`` for another status (with the
        ///   Bearer challenge's `error`, [§5.3.3](https://openid.net/specs/openid-connect-core-1_0.html#UserInfoError)),
        ///   a signed or encrypted response (`application/jwt`, not supported here) or a body
        ///   that is not a JSON object with a string `sub`;
        ///   ``OpenIDConnect/Error/Code/subjectMismatch``.
        public static func parse(response: HTTPResponse, body: [UInt8], expectedSubject: String) throws -> UserInfo {
            guard response.status == .ok else {
                let challenge = response.headerFields[.wwwAuthenticate].map { " (\($0))" } ?? ""
                throw OpenIDConnect.Error(
                    .userInfoFailed,
                    "the UserInfo endpoint answered \(response.status.code)\(challenge)",
                    status: response.status.code
                )
            }
            if let type = response.headerFields[.contentType], type.lowercased().hasPrefix("application/jwt") {
                throw OpenIDConnect.Error(
                    .userInfoFailed,
                    "a signed or encrypted UserInfo response is not supported here",
                    status: 200
                )
            }
            guard let claims = try? JSONValue.parseObject(body) else {
                throw OpenIDConnect.Error(.userInfoFailed, "the UserInfo response is not a JSON object", status: 200)
            }
            guard case .string(let subject)? = claims["sub"] else {
                throw OpenIDConnect.Error(.userInfoFailed, "the UserInfo response has no string 'sub'", status: 200)
            }
            guard subject == expectedSubject else {
                throw OpenIDConnect.Error(
                    .subjectMismatch,
                    "the UserInfo sub '\(subject)' is not the ID token's '\(expectedSubject)' (Core §5.3.2)"
                )
            }
            return UserInfo(subject: subject, claims: claims)
        }

        public var description: String {
            let members = claims.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }
            return "OpenIDConnect.UserInfo(\(members.joined(separator: ", ")))"
        }
    }

    /// An RP-initiated logout request: the URL to send the user agent to
    /// ([OpenID Connect RP-Initiated Logout 1.0 §2](https://openid.net/specs/openid-connect-rpinitiated-1_0.html#RPLogout)).
    public struct LogoutRequest: Sendable, CustomStringConvertible {
        /// The provider's `end_session_endpoint` (RP-Initiated Logout §2.1), which the logout URL
        /// is built on.
        public let endSessionEndpoint: String
        /// `id_token_hint`: the ID token last issued (RECOMMENDED).
        public let idTokenHint: Secret?
        /// `client_id`: sent with `post_logout_redirect_uri`, so the provider can check it
        /// is registered for the client even without `id_token_hint`.
        public let clientID: String?
        /// `post_logout_redirect_uri`: registered with the provider.
        public let postLogoutRedirectURI: String?
        /// `state`: returned to the post-logout redirect.
        public let state: String?
        /// `ui_locales`, space-separated.
        public let uiLocales: [String]

        /// - Throws: ``OAuth2/Error/Code/insecureEndpoint`` or
        ///   ``OAuth2/Error/Code/invalidConfiguration`` for the endpoint;
        ///   ``OpenIDConnect/Error/Code/invalidConfiguration`` for a `post_logout_redirect_uri`
        ///   with a fragment, or a `state` without a `post_logout_redirect_uri` (§3: `state`
        ///   is passed back to it).
        public init(
            endSessionEndpoint: String,
            idTokenHint: Secret? = nil,
            clientID: String? = nil,
            postLogoutRedirectURI: String? = nil,
            state: String? = nil,
            uiLocales: [String] = []
        ) throws {
            try OAuth2.checkEndpoint(endSessionEndpoint)
            if let postLogoutRedirectURI, postLogoutRedirectURI.isEmpty || postLogoutRedirectURI.contains("#") {
                throw OpenIDConnect.Error(
                    .invalidConfiguration,
                    "post_logout_redirect_uri must be an absolute URI without a fragment"
                )
            }
            if state != nil, postLogoutRedirectURI == nil {
                throw OpenIDConnect.Error(
                    .invalidConfiguration,
                    "state is returned to post_logout_redirect_uri: give one"
                )
            }
            self.endSessionEndpoint = endSessionEndpoint
            self.idTokenHint = idTokenHint
            self.clientID = clientID
            self.postLogoutRedirectURI = postLogoutRedirectURI
            self.state = state
            self.uiLocales = uiLocales
        }

        /// The query parameters, in order: `id_token_hint`, `client_id`,
        /// `post_logout_redirect_uri`, `state`, `ui_locales`.
        public var parameters: [(name: String, value: String)] {
            var parameters: [(name: String, value: String)] = []
            if let idTokenHint { parameters.append(("id_token_hint", idTokenHint.reveal())) }
            if let clientID { parameters.append(("client_id", clientID)) }
            if let postLogoutRedirectURI { parameters.append(("post_logout_redirect_uri", postLogoutRedirectURI)) }
            if let state { parameters.append(("state", state)) }
            if !uiLocales.isEmpty { parameters.append(("ui_locales", uiLocales.joined(separator: " "))) }
            return parameters
        }

        /// The URL (it holds the ID token: open it, do not log it).
        public var url: String {
            let parameters = parameters
            guard !parameters.isEmpty else { return endSessionEndpoint }
            let separator =
                endSessionEndpoint.contains("?")
                ? (endSessionEndpoint.hasSuffix("?") || endSessionEndpoint.hasSuffix("&") ? "" : "&") : "?"
            return endSessionEndpoint + separator + FormURLEncoding.encode(parameters)
        }

        public var description: String {
            "OpenIDConnect.LogoutRequest(\(endSessionEndpoint), client: \(clientID ?? "none"), idTokenHint: \(idTokenHint == nil ? "none" : "<redacted>"))"
        }
    }
}
