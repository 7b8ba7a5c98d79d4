public import HTTPTypes

extension OAuth2 {
    /// A resource's refusal that a new sign-in can answer: the token lacks a scope
    /// (`insufficient_scope` with the `scope` needed, [RFC 6750 §3.1](https://www.rfc-editor.org/rfc/rfc6750#section-3.1)),
    /// or the user's authentication is too weak or too old (`insufficient_user_authentication`
    /// with `acr_values` and/or `max_age`, [RFC 9470 §3](https://www.rfc-editor.org/rfc/rfc9470#section-3)).
    /// ``TokenSession`` hands such a response to the caller as it is; an interactive caller signs
    /// in again with ``scope`` (what the token has and what the resource named: the Model Context
    /// Protocol's step-up) and the authentication parameters, once per request; a
    /// non-interactive one reports this error, which names what the server asked for.
    public struct StepUp: Swift.Error, Sendable, Hashable, CustomStringConvertible {
        /// `insufficient_scope` or `insufficient_user_authentication`.
        public let error: ErrorCode
        /// The scope to ask for: the token's and the challenge's, in that order, without repeats.
        public let scope: [String]
        /// The `scope` the challenge named, when it named one.
        public let namedScope: [String]?
        /// `acr_values` of an `insufficient_user_authentication` challenge.
        public let acrValues: [String]?
        /// `max_age` of an `insufficient_user_authentication` challenge, in seconds.
        public let maxAge: Int?
        /// The status of the refusal (`403` for a scope, `401` for authentication).
        public let status: Int

        /// The step-up `response` asks for, or `nil`: a `401` or `403` whose `Bearer` or `DPoP`
        /// challenge says `insufficient_scope` or `insufficient_user_authentication`.
        ///
        /// - Parameter currentScope: the scope the refused token has.
        /// - Parameter response: the resource's refusal.
        public init?(response: HTTPResponse, currentScope: [String]?) {
            guard response.status == .unauthorized || response.status == .forbidden else { return nil }
            let challenges = AuthenticationChallenge.parseEachField(response.headerFields, name: .wwwAuthenticate).challenges
            let asked = challenges.lazy.compactMap { challenge -> BearerChallenge? in
                guard challenge.hasScheme("Bearer") || challenge.hasScheme(DPoP.scheme) else { return nil }
                // A DPoP challenge's parameters are read as a Bearer one's (RFC 9449 §7.1).
                let bearer = AuthenticationChallenge(
                    scheme: "Bearer",
                    token68: challenge.token68,
                    parameters: challenge.parameters.filter { $0.name.lowercased() != "algs" }
                )
                guard let parsed = try? BearerChallenge(bearer),
                    parsed.error == .insufficientScope || parsed.error == .insufficientUserAuthentication
                else { return nil }
                return parsed
            }.first
            guard let asked, let error = asked.error else { return nil }
            var union = currentScope ?? []
            for item in asked.scope ?? [] where !union.contains(item) { union.append(item) }
            self.error = error
            self.scope = union
            self.namedScope = asked.scope
            self.acrValues = asked.acrValues
            self.maxAge = asked.maxAge
            self.status = response.status.code
        }

        /// The authorization request's parameter for ``acrValues``
        /// ([RFC 9470 §4](https://www.rfc-editor.org/rfc/rfc9470#section-4)); ``maxAge`` is
        /// the request's own `max_age` (``OAuth2/Flow/startAuthorization(redirectURI:scope:resources:additionalParameters:maxAge:push:random:)``),
        /// which ``OAuth2/ResourceSignIn/signIn(_:identities:agent:redirectURI:scope:additionalParameters:stepUp:dpop:clientKey:transport:now:random:onIdentified:)``
        /// sets from this step-up.
        public var authorizationParameters: [(name: String, value: String)] {
            acrValues.map { [("acr_values", $0.joined(separator: " "))] } ?? []
        }

        public var description: String {
            if error == .insufficientScope {
                let named = namedScope.map { "the scope \(PeerText.printable($0.joined(separator: " "), limit: 300))" }
                return "the resource asks for \(named ?? "more scope") (insufficient_scope, RFC 6750 §3.1)"
            }
            var asked: [String] = []
            if let acrValues { asked.append("acr_values \(PeerText.printable(acrValues.joined(separator: " "), limit: 300))") }
            if let maxAge { asked.append("max_age \(maxAge)") }
            let what = asked.isEmpty ? "" : ": " + asked.joined(separator: ", ")
            return "the resource asks for a stronger or more recent sign-in\(what) (insufficient_user_authentication, RFC 9470 §3)"
        }

        public static func == (lhs: Self, rhs: Self) -> Bool {
            lhs.error == rhs.error && lhs.scope == rhs.scope && lhs.namedScope == rhs.namedScope
                && lhs.acrValues == rhs.acrValues && lhs.maxAge == rhs.maxAge && lhs.status == rhs.status
        }

        public func hash(into hasher: inout Hasher) {
            hasher.combine(error)
            hasher.combine(scope)
        }
    }
}
