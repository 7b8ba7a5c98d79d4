extension OAuth2 {
    /// What a client keeps between sending the user to the authorization endpoint and reading
    /// the redirect: enough to check the callback and to redeem the code. Codable, so a client
    /// that restarts (a CLI waiting for a pasted URL) can keep it in a file; it holds secrets.
    public struct PendingAuthorization: Sendable, Hashable, Codable, CustomStringConvertible {
        /// The `state` sent ([RFC 6749 §4.1.1](https://www.rfc-editor.org/rfc/rfc6749#section-4.1.1)).
        public let state: Secret
        /// The PKCE `code_verifier`, for the token request
        /// ([RFC 7636 §4.5](https://www.rfc-editor.org/rfc/rfc7636#section-4.5)).
        public let codeVerifier: Secret
        /// The `redirect_uri` sent, which the token request repeats
        /// ([RFC 6749 §4.1.3](https://www.rfc-editor.org/rfc/rfc6749#section-4.1.3)).
        public let redirectURI: String
        /// The issuer an `iss` parameter must equal ([RFC 9207 §2.4](https://www.rfc-editor.org/rfc/rfc9207#section-2.4)).
        public let issuer: String?
        /// The server said `authorization_response_iss_parameter_supported`: `iss` must be present.
        public let requiresIssuer: Bool
        /// The OpenID Connect `nonce` sent, which the ID token must carry
        /// ([OpenID Connect Core §3.1.2.1](https://openid.net/specs/openid-connect-core-1_0.html#AuthRequest),
        /// [§3.1.3.7](https://openid.net/specs/openid-connect-core-1_0.html#IDTokenValidation) rule 11).
        public let nonce: Secret?
        /// The OpenID Connect `max_age` sent, in seconds (Core §3.1.3.7 rule 13).
        public let maxAge: Int64?

        /// What to keep until the redirect: `state`, the PKCE `codeVerifier` and `redirectURI`, the
        /// issuer `iss` must equal (required when `requiresIssuer`), and the OpenID Connect `nonce` and `maxAge`.
        public init(
            state: Secret,
            codeVerifier: Secret,
            redirectURI: String,
            issuer: String?,
            requiresIssuer: Bool,
            nonce: Secret? = nil,
            maxAge: Int64? = nil
        ) {
            self.state = state
            self.codeVerifier = codeVerifier
            self.redirectURI = redirectURI
            self.issuer = issuer
            self.requiresIssuer = requiresIssuer
            self.nonce = nonce
            self.maxAge = maxAge
        }

        /// Reads the redirect of the authorization code grant, given as the full URL the user
        /// agent was sent to (a loopback request's URL, a custom-scheme URL handed to the app, an
        /// intercepted web-view URL, a pasted address).
        ///
        /// The parameters come from the query ([RFC 6749 §4.1.2](https://www.rfc-editor.org/rfc/rfc6749#section-4.1.2)),
        /// or from the fragment when the URL has a non-empty one (OpenID Connect's
        /// `response_mode=fragment`). In this order:
        /// 1. `state` must equal the one sent, compared in constant time
        ///    ([RFC 6749 §10.12](https://www.rfc-editor.org/rfc/rfc6749#section-10.12)), on errors too.
        /// 2. `iss`, when present, must equal ``issuer``; when ``requiresIssuer``, it must be
        ///    present ([RFC 9207 §2.4](https://www.rfc-editor.org/rfc/rfc9207#section-2.4)); simple
        ///    string comparison.
        /// 3. `error` becomes ``OAuth2/Error/Code/serverRefused`` with the server's
        ///    `error`, `error_description` and `error_uri`
        ///    ([RFC 6749 §4.1.2.1](https://www.rfc-editor.org/rfc/rfc6749#section-4.1.2.1)).
        /// 4. An `access_token` or `id_token` is refused: this request asked for
        ///    `response_type=code`, so tokens in its redirect were put there by someone else
        ///    (token injection, [RFC 9700 §4.5](https://www.rfc-editor.org/rfc/rfc9700#section-4.5);
        ///    PKCE, which stops it, binds only the code,
        ///    [RFC 9700 §2.1.1](https://www.rfc-editor.org/rfc/rfc9700#section-2.1.1)). A provider
        ///    that can only answer the implicit way is served by ``ImplicitAuthorizationRequest``.
        /// 5. `code` gives the ``AuthorizationResponse``.
        ///
        /// - Throws: ``OAuth2/Error`` `.stateMismatch`, `.issuerMismatch`, `.serverRefused`,
        ///   `.unexpectedTokens`, or `.malformedResponse` (not an absolute URL, bad
        ///   percent-encoding, a parameter repeated, no `code`).
        public func parseCallback(_ url: String) throws -> AuthorizationResponse {
            let redirect = try Redirect(url)
            try redirect.check(state: state, issuer: issuer, requiresIssuer: requiresIssuer)
            // 4. tokens nobody asked for
            for name in ["access_token", "id_token"] where redirect.allNames.contains(name) {
                throw OAuth2.Error(
                    .unexpectedTokens,
                    "the redirect carries an \(name), but the request asked for a code (response_type=code): "
                        + "tokens in a code flow's redirect are refused (RFC 6749 §4.1.2, RFC 9700 §4.5)"
                )
            }
            // 5. code
            guard let code = try redirect.value("code") else {
                throw OAuth2.Error(.malformedResponse, "the redirect has neither code nor error")
            }
            guard !code.isEmpty else { throw OAuth2.Error(.malformedResponse, "the redirect's code is empty") }
            return .code(Secret(code))
        }

        public var description: String {
            "OAuth2.PendingAuthorization(redirectURI: \(redirectURI), issuer: \(issuer ?? "none"), state: <redacted>, codeVerifier: <redacted>\(nonce == nil ? "" : ", nonce: <redacted>"))"
        }
    }

    /// A successful redirect of the authorization code grant
    /// ([RFC 6749 §4.1.2](https://www.rfc-editor.org/rfc/rfc6749#section-4.1.2)).
    public struct AuthorizationResponse: Sendable, Hashable, CustomStringConvertible {
        /// `code`, to redeem at the token endpoint.
        public let code: Secret

        /// A response carrying `code`, to redeem at the token endpoint.
        public init(code: Secret) { self.code = code }
        /// A response carrying `code`.
        public static func code(_ code: Secret) -> Self { Self(code: code) }

        public var description: String { "OAuth2.AuthorizationResponse(code: <redacted>)" }
    }

    /// The parameters of a redirect from the authorization endpoint, with the checks every
    /// response type shares.
    struct Redirect {
        /// Where the parameters came from.
        enum Component { case query, fragment }
        let parameters: [(name: String, value: String)]
        let component: Component
        /// The query's parameters when the fragment was read instead (a fragment answer must not
        /// be mixed with query parameters).
        let hasQuery: Bool
        /// The names in the query and the fragment both, for what must not be anywhere.
        let allNames: Set<String>

        /// The fragment's parameters if the URL has a non-empty fragment, else the query's.
        init(_ url: String) throws {
            // RFC 3986 Appendix B's split, the one the redirect handling uses.
            let reference = URIReference(parsing: url)
            guard let scheme = reference.scheme,
                scheme.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) })
            else {
                throw OAuth2.Error(.malformedResponse, "the redirect is not an absolute URL")
            }
            let fragment = Substring(reference.fragment ?? "")
            let query = Substring(reference.query ?? "")
            hasQuery = !query.isEmpty
            component = fragment.isEmpty ? .query : .fragment
            do {
                parameters = try FormURLEncoding.decode(fragment.isEmpty ? query : fragment)
            } catch {
                throw OAuth2.Error(.malformedResponse, "the redirect's parameters are not form-encoded: \(error)")
            }
            var names = Set(parameters.map(\.name))
            if !fragment.isEmpty, let other = try? FormURLEncoding.decode(query) {
                names.formUnion(other.map(\.name))
            }
            allNames = names
        }

        /// The value of `name`, `nil` when absent.
        ///
        /// - Throws: `.malformedResponse` when it is repeated
        ///   ([RFC 6749 §3.1](https://www.rfc-editor.org/rfc/rfc6749#section-3.1)).
        func value(_ name: String) throws -> String? {
            var found: String?
            for parameter in parameters where parameter.name == name {
                guard found == nil else {
                    throw OAuth2.Error(
                        .malformedResponse,
                        "the redirect repeats '\(name)' (RFC 6749 §3.1: parameters must not be included more than once)"
                    )
                }
                found = parameter.value
            }
            return found
        }

        /// `state` ([RFC 6749 §10.12](https://www.rfc-editor.org/rfc/rfc6749#section-10.12), in
        /// constant time), then `iss` ([RFC 9207 §2.4](https://www.rfc-editor.org/rfc/rfc9207#section-2.4)),
        /// then `error` ([RFC 6749 §4.1.2.1](https://www.rfc-editor.org/rfc/rfc6749#section-4.1.2.1),
        /// [§4.2.2.1](https://www.rfc-editor.org/rfc/rfc6749#section-4.2.2.1)).
        func check(state expected: Secret, issuer: String?, requiresIssuer: Bool) throws {
            guard let state = try value("state") else {
                throw OAuth2.Error(.stateMismatch, "the redirect has no state")
            }
            guard expected.matches(state) else {
                throw OAuth2.Error(.stateMismatch, "the redirect's state is not the one sent")
            }
            let error = try value("error")
            /// What the server said, for a refusal that the `iss` check stops.
            var carried: String {
                guard let error else { return "" }
                return "; it carried error '\(PeerText.printable(error))'"
            }
            if let iss = try value("iss") {
                guard let issuer else {
                    // RFC 9207 §2.4 cannot be applied without an issuer to compare with, and an
                    // unchecked `iss` is what a mix-up attack sends: refused, with the remedy.
                    throw OAuth2.Error(
                        .issuerMismatch,
                        "the redirect carries iss '\(PeerText.printable(iss))' but no issuer is configured to check it "
                            + "against (set the authorization server's issuer) (RFC 9207 §2.4)\(carried)"
                    )
                }
                guard constantTimeEquals(iss, issuer) else {
                    throw OAuth2.Error(
                        .issuerMismatch,
                        "the redirect's iss '\(PeerText.printable(iss))' is not the configured issuer '\(issuer)' "
                            + "(RFC 9207 §2.4)\(carried)"
                    )
                }
            } else if requiresIssuer {
                throw OAuth2.Error(
                    .issuerMismatch,
                    "the server supports the iss parameter but the redirect has none (RFC 9207 §2.4)\(carried)"
                )
            }
            if let error {
                let response = ErrorResponse(
                    code: ErrorCode(rawValue: error),
                    errorDescription: try value("error_description"),
                    errorURI: try value("error_uri")
                )
                throw OAuth2.Error(
                    .serverRefused,
                    "the authorization server answered \(PeerText.printable(error))",
                    serverError: response
                )
            }
        }
    }
}
