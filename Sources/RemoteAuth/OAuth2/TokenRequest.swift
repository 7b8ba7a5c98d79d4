public import HTTPTypes

extension OAuth2 {
    /// `grant_type`: an open registry
    /// ([RFC 6749 §4](https://www.rfc-editor.org/rfc/rfc6749#section-4),
    /// [IANA OAuth URI registry](https://www.iana.org/assignments/oauth-parameters)).
    public struct GrantType: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// [RFC 6749 §4.1.3](https://www.rfc-editor.org/rfc/rfc6749#section-4.1.3)
        public static let authorizationCode = Self(rawValue: "authorization_code")
        /// [RFC 6749 §6](https://www.rfc-editor.org/rfc/rfc6749#section-6)
        public static let refreshToken = Self(rawValue: "refresh_token")
        /// [RFC 6749 §4.4.2](https://www.rfc-editor.org/rfc/rfc6749#section-4.4.2)
        public static let clientCredentials = Self(rawValue: "client_credentials")
        /// [RFC 8628 §3.4](https://www.rfc-editor.org/rfc/rfc8628#section-3.4)
        public static let deviceCode = Self(rawValue: "urn:ietf:params:oauth:grant-type:device_code")
        /// [RFC 8693 §2.1](https://www.rfc-editor.org/rfc/rfc8693#section-2.1)
        public static let tokenExchange = Self(rawValue: "urn:ietf:params:oauth:grant-type:token-exchange")
        /// [RFC 7523 §2.1](https://www.rfc-editor.org/rfc/rfc7523#section-2.1)
        public static let jwtBearer = Self(rawValue: "urn:ietf:params:oauth:grant-type:jwt-bearer")
    }

    /// A token request: a `grant_type` and its parameters, sent as a form
    /// ([RFC 6749 §3.2](https://www.rfc-editor.org/rfc/rfc6749#section-3.2)). The parameters
    /// that are secrets (code, verifier, refresh token, assertions, subject tokens) stay
    /// ``Secret``s until the body is built; `description` shows only the names.
    public struct TokenRequest: Sendable, CustomStringConvertible {
        /// The `grant_type` sent: which grant the request redeems.
        public let grantType: GrantType
        private let parameters: [(name: String, value: Secret)]

        /// A grant with any parameters, in order after `grant_type`.
        public init(grantType: GrantType, parameters: [(name: String, value: Secret)]) {
            self.grantType = grantType
            self.parameters = parameters
        }

        /// `authorization_code` with `code`, `redirect_uri` and the PKCE `code_verifier`
        /// ([RFC 6749 §4.1.3](https://www.rfc-editor.org/rfc/rfc6749#section-4.1.3),
        /// [RFC 7636 §4.5](https://www.rfc-editor.org/rfc/rfc7636#section-4.5)), and each
        /// `resource` ([RFC 8707 §2.2](https://www.rfc-editor.org/rfc/rfc8707#section-2.2)).
        public static func authorizationCode(
            _ code: Secret,
            redirectURI: String,
            codeVerifier: Secret,
            resources: [String] = []
        ) -> Self {
            Self(
                grantType: .authorizationCode,
                parameters: [("code", code), ("redirect_uri", Secret(redirectURI)), ("code_verifier", codeVerifier)]
                    + resources.map { (name: "resource", value: Secret($0)) }
            )
        }

        /// `authorization_code` for the redirect that ``PendingAuthorization`` checked.
        public static func authorizationCode(
            _ code: Secret,
            pending: PendingAuthorization,
            resources: [String] = []
        ) -> Self {
            authorizationCode(
                code,
                redirectURI: pending.redirectURI,
                codeVerifier: pending.codeVerifier,
                resources: resources
            )
        }

        /// `refresh_token`, with `scope` only to narrow it
        /// ([RFC 6749 §6](https://www.rfc-editor.org/rfc/rfc6749#section-6)).
        public static func refreshToken(
            _ refreshToken: Secret,
            scope: [String]? = nil,
            resources: [String] = []
        ) -> Self {
            var parameters: [(name: String, value: Secret)] = [("refresh_token", refreshToken)]
            if let scope, !scope.isEmpty { parameters.append(("scope", Secret(scope.joined(separator: " ")))) }
            return Self(
                grantType: .refreshToken,
                parameters: parameters + resources.map { (name: "resource", value: Secret($0)) }
            )
        }

        /// `client_credentials` ([RFC 6749 §4.4.2](https://www.rfc-editor.org/rfc/rfc6749#section-4.4.2)).
        public static func clientCredentials(scope: [String] = [], resources: [String] = []) -> Self {
            var parameters: [(name: String, value: Secret)] = []
            if !scope.isEmpty { parameters.append(("scope", Secret(scope.joined(separator: " ")))) }
            return Self(
                grantType: .clientCredentials,
                parameters: parameters + resources.map { (name: "resource", value: Secret($0)) }
            )
        }

        /// The device grant's poll ([RFC 8628 §3.4](https://www.rfc-editor.org/rfc/rfc8628#section-3.4)).
        public static func deviceCode(_ deviceCode: Secret) -> Self {
            Self(grantType: .deviceCode, parameters: [("device_code", deviceCode)])
        }

        /// A JWT bearer assertion grant ([RFC 7523 §2.1](https://www.rfc-editor.org/rfc/rfc7523#section-2.1)).
        public static func jwtBearer(assertion: Secret, scope: [String] = []) -> Self {
            var parameters: [(name: String, value: Secret)] = [("assertion", assertion)]
            if !scope.isEmpty { parameters.append(("scope", Secret(scope.joined(separator: " ")))) }
            return Self(grantType: .jwtBearer, parameters: parameters)
        }

        /// Token exchange ([RFC 8693 §2.1](https://www.rfc-editor.org/rfc/rfc8693#section-2.1)):
        /// `subject_token` and its type (`urn:ietf:params:oauth:token-type:access_token`, …),
        /// optionally an actor token, `resource`, `audience`, `scope` and
        /// `requested_token_type`.
        public static func tokenExchange(
            subjectToken: Secret,
            subjectTokenType: String,
            actorToken: Secret? = nil,
            actorTokenType: String? = nil,
            resources: [String] = [],
            audiences: [String] = [],
            scope: [String] = [],
            requestedTokenType: String? = nil
        ) -> Self {
            var parameters: [(name: String, value: Secret)] = [
                ("subject_token", subjectToken), ("subject_token_type", Secret(subjectTokenType)),
            ]
            if let actorToken { parameters.append(("actor_token", actorToken)) }
            if let actorTokenType { parameters.append(("actor_token_type", Secret(actorTokenType))) }
            parameters += resources.map { (name: "resource", value: Secret($0)) }
            parameters += audiences.map { (name: "audience", value: Secret($0)) }
            if !scope.isEmpty { parameters.append(("scope", Secret(scope.joined(separator: " ")))) }
            if let requestedTokenType { parameters.append(("requested_token_type", Secret(requestedTokenType))) }
            return Self(grantType: .tokenExchange, parameters: parameters)
        }

        /// The form parameters, `grant_type` first.
        public var formParameters: [(name: String, value: String)] {
            [(name: "grant_type", value: grantType.rawValue)]
                + parameters.map { (name: $0.name, value: $0.value.reveal()) }
        }

        /// The secrets in this request, kept out of error excerpts.
        var secrets: [Secret] { parameters.map { $0.value }.filter { $0.reveal().utf8.count >= 4 } }

        /// The `POST` to `endpoint` with the client's authentication, and its body.
        ///
        /// - Throws: ``OAuth2/Error/Code/insecureEndpoint``, ``OAuth2/Error/Code/invalidConfiguration``.
        public func httpRequest(to endpoint: String, client: Client) throws -> (HTTPRequest, [UInt8]) {
            try OAuth2.formPost(to: endpoint, parameters: formParameters, client: client)
        }

        public var description: String {
            "OAuth2.TokenRequest(\(grantType), parameters: \(parameters.map { $0.name }))"
        }
    }
}
