extension OAuth2 {
    /// A resource server's `WWW-Authenticate: Bearer` challenge, typed
    /// ([RFC 6750 §3](https://www.rfc-editor.org/rfc/rfc6750#section-3)): why the token was
    /// refused, and what would be accepted instead.
    ///
    /// - `invalid_request` (400), `invalid_token` (401: refresh, once), `insufficient_scope`
    ///   (403, with the ``scope`` needed) ([§3.1](https://www.rfc-editor.org/rfc/rfc6750#section-3.1));
    /// - `insufficient_user_authentication`, with ``acrValues`` and/or ``maxAge``: the user must
    ///   sign in again, more strongly or more recently
    ///   ([RFC 9470 §3](https://www.rfc-editor.org/rfc/rfc9470#section-3)).
    public struct BearerChallenge: Sendable, Hashable, CustomStringConvertible {
        /// `realm`.
        public var realm: String?
        /// `error`; `nil` when the request carried no token (§3: then no error is sent).
        public var error: ErrorCode?
        /// `error_description`: text for the developer, from the server (untrusted).
        public var errorDescription: String?
        /// `error_uri`: a page about the error.
        public var errorURI: String?
        /// `scope`, split on spaces.
        public var scope: [String]?
        /// `acr_values`, split on spaces (RFC 9470 §3).
        public var acrValues: [String]?
        /// `max_age` in seconds (RFC 9470 §3).
        public var maxAge: Int?

        /// A challenge from its parameters.
        public init(
            realm: String? = nil,
            error: ErrorCode? = nil,
            errorDescription: String? = nil,
            errorURI: String? = nil,
            scope: [String]? = nil,
            acrValues: [String]? = nil,
            maxAge: Int? = nil
        ) {
            self.realm = realm
            self.error = error
            self.errorDescription = errorDescription
            self.errorURI = errorURI
            self.scope = scope
            self.acrValues = acrValues
            self.maxAge = maxAge
        }

        /// Reads a `Bearer` challenge.
        ///
        /// - Throws: ``OAuth2/Error/Code/malformedResponse`` when `challenge` is not `Bearer`,
        ///   carries a token68, repeats a parameter (RFC 6750 §3: "MUST NOT appear more than
        ///   once"), or has a `max_age` that is not a non-negative integer.
        public init(_ challenge: AuthenticationChallenge) throws {
            guard challenge.hasScheme("Bearer") else {
                throw OAuth2.Error(.malformedResponse, "the challenge is '\(challenge.scheme)', not Bearer")
            }
            guard challenge.token68 == nil else {
                throw OAuth2.Error(
                    .malformedResponse,
                    "a Bearer challenge has auth-params, not a token68 (RFC 6750 §3)"
                )
            }
            var seen: Set<String> = []
            for parameter in challenge.parameters {
                guard seen.insert(parameter.name.lowercased()).inserted else {
                    throw OAuth2.Error(
                        .malformedResponse,
                        "the Bearer challenge repeats '\(parameter.name)' (RFC 6750 §3)"
                    )
                }
            }
            self.init(
                realm: challenge.parameter("realm"),
                error: challenge.parameter("error").map(ErrorCode.init(rawValue:)),
                errorDescription: challenge.parameter("error_description"),
                errorURI: challenge.parameter("error_uri"),
                scope: challenge.parameter("scope").map(OAuth2.splitScope),
                acrValues: challenge.parameter("acr_values").map(OAuth2.splitScope)
            )
            if let maxAge = challenge.parameter("max_age") {
                guard !maxAge.isEmpty, maxAge.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let seconds = Int(maxAge)
                else {
                    throw OAuth2.Error(.malformedResponse, "max_age is not a number of seconds (RFC 9470 §3)")
                }
                self.maxAge = seconds
            }
        }

        /// The first `Bearer` challenge among `challenges`, or `nil` when there is none.
        ///
        /// - Throws: as ``init(_:)`` for that challenge.
        public static func first(in challenges: [AuthenticationChallenge]) throws -> BearerChallenge? {
            guard let challenge = challenges.first(where: { $0.hasScheme("Bearer") }) else { return nil }
            return try BearerChallenge(challenge)
        }

        /// The server's error as an ``ErrorResponse``, when it sent one.
        public var errorResponse: ErrorResponse? {
            error.map { ErrorResponse(code: $0, errorDescription: errorDescription, errorURI: errorURI) }
        }

        /// `invalid_token`: the access token expired or was revoked; refresh it once.
        public var isInvalidToken: Bool { error == .invalidToken }

        public var description: String {
            var parts: [String] = []
            if let realm { parts.append("realm: \(realm)") }
            if let error { parts.append("error: \(error)") }
            if let errorDescription { parts.append("errorDescription: \(errorDescription)") }
            if let scope { parts.append("scope: \(scope.joined(separator: " "))") }
            if let acrValues { parts.append("acrValues: \(acrValues.joined(separator: " "))") }
            if let maxAge { parts.append("maxAge: \(maxAge)") }
            return "OAuth2.BearerChallenge(\(parts.joined(separator: ", ")))"
        }
    }
}
