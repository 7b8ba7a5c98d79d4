extension OAuth2 {
    /// The front-channel request of the authorization code grant: the URL to open in the user's
    /// browser ([RFC 6749 §4.1.1](https://www.rfc-editor.org/rfc/rfc6749#section-4.1.1)), and
    /// the ``PendingAuthorization`` that checks the redirect that comes back.
    ///
    /// It always carries PKCE `S256` ([RFC 7636 §4.3](https://www.rfc-editor.org/rfc/rfc7636#section-4.3))
    /// and a `state` of at least 128 bits
    /// ([RFC 6749 §10.10](https://www.rfc-editor.org/rfc/rfc6749#section-10.10): guessing it must
    /// be at most 2⁻¹²⁸ likely).
    public struct AuthorizationRequest: Sendable, CustomStringConvertible {
        /// The names this value writes itself; ``additionalParameters`` may not repeat them.
        public static let reservedParameters: Set<String> = [
            "response_type", "client_id", "redirect_uri", "scope", "state", "code_challenge",
            "code_challenge_method", "resource", "request_uri", "nonce", "max_age", "dpop_jkt",
        ]

        /// `authorization_endpoint`, which may hold a query of its own
        /// ([RFC 6749 §3.1](https://www.rfc-editor.org/rfc/rfc6749#section-3.1)).
        public let authorizationEndpoint: String
        /// `client_id` ([RFC 6749 §2.2](https://www.rfc-editor.org/rfc/rfc6749#section-2.2)).
        public let clientID: String
        /// `scope` ([RFC 6749 §3.3](https://www.rfc-editor.org/rfc/rfc6749#section-3.3)), joined with spaces.
        public let scope: [String]
        /// `resource`, once per indicator
        /// ([RFC 8707 §2](https://www.rfc-editor.org/rfc/rfc8707#section-2)).
        public let resources: [String]
        /// `dpop_jkt`: the JWK thumbprint (SHA-256, [RFC 7638](https://www.rfc-editor.org/rfc/rfc7638))
        /// of the client's DPoP key, which binds the authorization code to that key: the server
        /// refuses to redeem it without a proof of the same key
        /// ([RFC 9449 §10](https://www.rfc-editor.org/rfc/rfc9449#section-10)). Pushed with the
        /// other parameters under PAR ([§10.1](https://www.rfc-editor.org/rfc/rfc9449#section-10.1)).
        public let dpopJKT: String?
        /// Further parameters (`prompt`, `login_hint`, `audience`, …) in order, after the others.
        public let additionalParameters: [(name: String, value: String)]
        /// What the redirect is checked against; keep it until the callback arrives.
        public let pending: PendingAuthorization

        /// - Parameters:
        ///   - issuer: the authorization server's issuer, for the RFC 9207 `iss` check.
        ///   - requiresIssuer: the server's `authorization_response_iss_parameter_supported`
        ///     ([RFC 9207 §3](https://www.rfc-editor.org/rfc/rfc9207#section-3)).
        ///   - maxAge: OpenID Connect `max_age`, in seconds
        ///     ([Core §3.1.2.1](https://openid.net/specs/openid-connect-core-1_0.html#AuthRequest)).
        ///   - dpopJKT: the DPoP key's thumbprint (``OAuth2/DPoP/Prover/thumbprint``), sent as
        ///     `dpop_jkt` ([RFC 9449 §10](https://www.rfc-editor.org/rfc/rfc9449#section-10)).
        ///   - random: the source of `state` (32 octets), the PKCE verifier (32 octets) and, when
        ///     `scope` holds `openid`, the OpenID Connect `nonce` (32 octets, drawn last).
        ///   - authorizationEndpoint: the server's authorization endpoint.
        ///   - clientID: the client's `client_id`.
        ///   - redirectURI: where the server sends the answer.
        ///   - scope: the scopes asked for.
        ///   - resources: RFC 8707 `resource` indicators.
        ///   - additionalParameters: more request parameters, appended as given.
        /// - Throws: ``OAuth2/Error/Code/insecureEndpoint`` or
        ///   ``OAuth2/Error/Code/invalidConfiguration`` (see ``init(authorizationEndpoint:clientID:redirectURI:scope:resources:additionalParameters:issuer:requiresIssuer:state:pkce:nonce:maxAge:dpopJKT:)``).
        public init(
            authorizationEndpoint: String,
            clientID: String,
            redirectURI: String,
            scope: [String] = [],
            resources: [String] = [],
            additionalParameters: [(name: String, value: String)] = [],
            issuer: String? = nil,
            requiresIssuer: Bool = false,
            maxAge: Int64? = nil,
            dpopJKT: String? = nil,
            random: RandomSource
        ) throws {
            let state = Secret(OAuth2.base64URL(random.bytes(32)))
            let pkce = PKCE(random: random)
            // OpenID Connect Core §3.1.2.1: every OpenID request carries a nonce here, so that the
            // ID token it returns is bound to this request (§15.5.2).
            let nonce = scope.contains("openid") ? Secret(OAuth2.base64URL(random.bytes(32))) : nil
            try self.init(
                authorizationEndpoint: authorizationEndpoint,
                clientID: clientID,
                redirectURI: redirectURI,
                scope: scope,
                resources: resources,
                additionalParameters: additionalParameters,
                issuer: issuer,
                requiresIssuer: requiresIssuer,
                state: state,
                pkce: pkce,
                nonce: nonce,
                maxAge: maxAge,
                dpopJKT: dpopJKT
            )
        }

        /// With a `state` and verifier made elsewhere.
        ///
        /// - Throws: ``OAuth2/Error/Code/insecureEndpoint`` for an endpoint over plain http to a
        ///   non-loopback host; ``OAuth2/Error/Code/invalidConfiguration`` for a `state` shorter
        ///   than 22 characters (128 bits as base64url) or outside printable ASCII, an empty
        ///   client id or redirect URI, a redirect URI with a fragment
        ///   ([RFC 6749 §3.1.2](https://www.rfc-editor.org/rfc/rfc6749#section-3.1.2)), a
        ///   `resource` that is not an absolute URI without a fragment
        ///   ([RFC 8707 §2](https://www.rfc-editor.org/rfc/rfc8707#section-2)), or an additional
        ///   parameter that repeats a ``reservedParameters`` name, a `dpopJKT` that is not a
        ///   SHA-256 JWK thumbprint (43 base64url characters, [RFC 9449 §10](https://www.rfc-editor.org/rfc/rfc9449#section-10)).
        public init(
            authorizationEndpoint: String,
            clientID: String,
            redirectURI: String,
            scope: [String] = [],
            resources: [String] = [],
            additionalParameters: [(name: String, value: String)] = [],
            issuer: String? = nil,
            requiresIssuer: Bool = false,
            state: Secret,
            pkce: PKCE,
            nonce: Secret? = nil,
            maxAge: Int64? = nil,
            dpopJKT: String? = nil
        ) throws {
            try OAuth2.checkEndpoint(authorizationEndpoint)
            let stateOK = state.withRevealedUTF8 { bytes in
                bytes.count >= 22 && bytes.allSatisfy { $0 >= 0x20 && $0 <= 0x7E }
            }
            guard stateOK else {
                throw OAuth2.Error(
                    .invalidConfiguration,
                    "state must carry at least 128 bits: 22 or more printable ASCII characters (RFC 6749 §10.10)"
                )
            }
            try Self.checkClient(clientID, redirectURI: redirectURI)
            for resource in resources where !Self.isAbsoluteURIWithoutFragment(resource) {
                throw OAuth2.Error(
                    .invalidConfiguration,
                    "a resource indicator must be an absolute URI without a fragment (RFC 8707 §2): '\(resource)'"
                )
            }
            if let clash = additionalParameters.first(where: { Self.reservedParameters.contains($0.name) }) {
                throw OAuth2.Error(
                    .invalidConfiguration,
                    "the additional parameter '\(clash.name)' is one the request writes itself"
                )
            }
            if let nonce {
                let nonceOK = nonce.withRevealedUTF8 { bytes in
                    bytes.count >= 22 && bytes.allSatisfy { $0 >= 0x20 && $0 <= 0x7E }
                }
                guard nonceOK else {
                    throw OAuth2.Error(
                        .invalidConfiguration,
                        "nonce must carry at least 128 bits: 22 or more printable ASCII characters (OpenID Connect Core §15.5.2)"
                    )
                }
            }
            if let maxAge, maxAge < 0 {
                throw OAuth2.Error(.invalidConfiguration, "max_age is negative")
            }
            if let dpopJKT, !OAuth2.DPoP.isThumbprint(dpopJKT) {
                throw OAuth2.Error(
                    .invalidConfiguration,
                    "dpop_jkt must be a SHA-256 JWK thumbprint: 43 base64url characters (RFC 9449 §10)"
                )
            }
            if requiresIssuer, issuer == nil {
                throw OAuth2.Error(.invalidConfiguration, "requiresIssuer needs the issuer to compare 'iss' with")
            }
            self.authorizationEndpoint = authorizationEndpoint
            self.clientID = clientID
            self.scope = scope
            self.resources = resources
            self.additionalParameters = additionalParameters
            self.dpopJKT = dpopJKT
            self.pending = PendingAuthorization(
                state: state,
                codeVerifier: pkce.verifier,
                redirectURI: redirectURI,
                issuer: issuer,
                requiresIssuer: requiresIssuer,
                nonce: nonce,
                maxAge: maxAge
            )
            self.pkce = pkce
        }

        private let pkce: PKCE

        /// The query parameters in order: `response_type`, `client_id`, `redirect_uri`, `scope`,
        /// `state`, `code_challenge`, `code_challenge_method`, `nonce` and `max_age` (OpenID
        /// Connect), `dpop_jkt` (RFC 9449 §10), each `resource`, then the additional ones.
        public var parameters: [(name: String, value: String)] {
            var parameters: [(name: String, value: String)] = [
                ("response_type", "code"),
                ("client_id", clientID),
                ("redirect_uri", pending.redirectURI),
            ]
            if !scope.isEmpty { parameters.append(("scope", scope.joined(separator: " "))) }
            parameters.append(("state", pending.state.reveal()))
            parameters.append(("code_challenge", pkce.challenge))
            parameters.append(("code_challenge_method", pkce.challengeMethod))
            if let nonce = pending.nonce { parameters.append(("nonce", nonce.reveal())) }
            if let maxAge = pending.maxAge { parameters.append(("max_age", String(maxAge))) }
            if let dpopJKT { parameters.append(("dpop_jkt", dpopJKT)) }
            for resource in resources { parameters.append(("resource", resource)) }
            parameters.append(contentsOf: additionalParameters)
            return parameters
        }

        /// The `request_uri` the authorization server gave for this request when it was pushed
        /// ([RFC 9126 §2.2](https://www.rfc-editor.org/rfc/rfc9126#section-2.2)); see
        /// ``Flow/push(_:)``.
        public internal(set) var pushedRequest: PushedAuthorizationResponse?

        /// What goes in the URL's query: ``parameters``, or, once pushed, only `client_id` and
        /// `request_uri` ([RFC 9126 §4](https://www.rfc-editor.org/rfc/rfc9126#section-4)).
        public var frontChannelParameters: [(name: String, value: String)] {
            guard let pushedRequest else { return parameters }
            return [("client_id", clientID), ("request_uri", pushedRequest.requestURI)]
        }

        /// The URL to send the user agent to: the endpoint, its own query kept, with the
        /// ``frontChannelParameters`` added ([RFC 6749 §4.1.1](https://www.rfc-editor.org/rfc/rfc6749#section-4.1.1)).
        /// Unless pushed, it holds the `state`; open it, do not log it.
        public var url: String {
            let separator =
                authorizationEndpoint.contains("?")
                ? (authorizationEndpoint.hasSuffix("?") || authorizationEndpoint.hasSuffix("&") ? "" : "&")
                : "?"
            return authorizationEndpoint + separator + FormURLEncoding.encode(frontChannelParameters)
        }

        public var description: String {
            "OAuth2.AuthorizationRequest(\(authorizationEndpoint), client: \(clientID), scope: \(scope.joined(separator: " ")), state: <redacted>)"
        }

        /// A client id that is not empty, and a redirect URI without a fragment
        /// ([RFC 6749 §3.1.2](https://www.rfc-editor.org/rfc/rfc6749#section-3.1.2)), for every
        /// front-channel request.
        static func checkClient(_ clientID: String, redirectURI: String) throws {
            guard !clientID.isEmpty else { throw OAuth2.Error(.invalidConfiguration, "the client_id is empty") }
            guard !redirectURI.isEmpty, !redirectURI.contains("#") else {
                throw OAuth2.Error(
                    .invalidConfiguration,
                    "the redirect_uri must be an absolute URI without a fragment (RFC 6749 §3.1.2)"
                )
            }
        }

        static func isAbsoluteURIWithoutFragment(_ uri: String) -> Bool {
            guard let colon = uri.firstIndex(of: ":"), !uri.contains("#") else { return false }
            let scheme = uri[..<colon]
            guard let first = scheme.first, first.isASCII, first.isLetter else { return false }
            return scheme.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) }
                && uri.index(after: colon) != uri.endIndex
        }
    }
}
