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

        /// Reads the redirect, given as the full URL the user agent was sent to (a loopback
        /// request's URL, a custom-scheme URL handed to the app, an intercepted web-view URL, a
        /// pasted address).
        ///
        /// The parameters come from the fragment when the URL has one (a provider answering the
        /// legacy implicit way, [RFC 6749 §4.2.2](https://www.rfc-editor.org/rfc/rfc6749#section-4.2.2)),
        /// from the query otherwise ([§4.1.2](https://www.rfc-editor.org/rfc/rfc6749#section-4.1.2)).
        /// In this order:
        /// 1. `state` must equal the one sent, compared in constant time
        ///    ([RFC 6749 §10.12](https://www.rfc-editor.org/rfc/rfc6749#section-10.12)), on errors too.
        /// 2. `iss`, when present, must equal ``issuer``; when ``requiresIssuer``, it must be
        ///    present ([RFC 9207 §2.4](https://www.rfc-editor.org/rfc/rfc9207#section-2.4)); simple
        ///    string comparison.
        /// 3. `error` becomes ``OAuth2/Error/Code/serverRefused`` with the server's
        ///    `error`, `error_description` and `error_uri`
        ///    ([RFC 6749 §4.1.2.1](https://www.rfc-editor.org/rfc/rfc6749#section-4.1.2.1)).
        /// 4. `code` gives ``AuthorizationResponse/code(_:)``; `access_token` gives
        ///    ``AuthorizationResponse/tokens(_:)`` with `expires_in` added to `now`.
        ///
        /// - Throws: ``OAuth2/Error`` `.stateMismatch`, `.issuerMismatch`, `.serverRefused`, or
        ///   `.malformedResponse` (not an absolute URL, bad percent-encoding, a parameter
        ///   repeated, neither `code` nor `access_token`).
        public func parseCallback(_ url: String, now: Int64) throws -> AuthorizationResponse {
            let parameters = try Self.parameters(of: url)
            func value(_ name: String) throws -> String? {
                let values = parameters.filter { $0.name == name }
                guard values.count <= 1 else {
                    throw OAuth2.Error(
                        .malformedResponse,
                        "the redirect repeats '\(name)' (RFC 6749 §3.1: parameters must not be included more than once)"
                    )
                }
                return values.first?.value
            }
            // 1. state
            guard let state = try value("state") else {
                throw OAuth2.Error(.stateMismatch, "the redirect has no state")
            }
            guard self.state.matches(state) else {
                throw OAuth2.Error(.stateMismatch, "the redirect's state is not the one sent")
            }
            // 2. iss
            if let iss = try value("iss") {
                guard let issuer else {
                    // RFC 9207 §2.4 cannot be applied without an issuer to compare with, and an
                    // unchecked `iss` is what a mix-up attack sends: refused, with the remedy.
                    throw OAuth2.Error(
                        .issuerMismatch,
                        "the redirect carries iss '\(iss)' but no issuer is configured to check it against "
                            + "(set the authorization server's issuer) (RFC 9207 §2.4)"
                    )
                }
                guard constantTimeEquals(iss, issuer) else {
                    throw OAuth2.Error(
                        .issuerMismatch,
                        "the redirect's iss '\(iss)' is not the configured issuer '\(issuer)' (RFC 9207 §2.4)"
                    )
                }
            } else if requiresIssuer {
                throw OAuth2.Error(
                    .issuerMismatch,
                    "the server supports the iss parameter but the redirect has none (RFC 9207 §2.4)"
                )
            }
            // 3. error
            if let error = try value("error") {
                let response = ErrorResponse(
                    code: ErrorCode(rawValue: error),
                    errorDescription: try value("error_description"),
                    errorURI: try value("error_uri")
                )
                throw OAuth2.Error(.serverRefused, "the authorization server answered \(error)", serverError: response)
            }
            // 4. code, or tokens in the fragment
            if let code = try value("code") {
                guard !code.isEmpty else { throw OAuth2.Error(.malformedResponse, "the redirect's code is empty") }
                return .code(Secret(code))
            }
            if let accessToken = try value("access_token") {
                let tokenType = try value("token_type") ?? "Bearer"
                guard !accessToken.isEmpty else {
                    throw OAuth2.Error(.malformedResponse, "the redirect's access_token is empty")
                }
                var expiresAt: Int64?
                if let expiresIn = try value("expires_in") {
                    guard let seconds = Int64(expiresIn), seconds >= 0 else {
                        throw OAuth2.Error(.malformedResponse, "the redirect's expires_in is not a number of seconds")
                    }
                    expiresAt = now.addingSaturating(seconds)
                }
                return .tokens(
                    Tokens(
                        accessToken: Secret(accessToken),
                        tokenType: tokenType,
                        expiresAt: expiresAt,
                        scope: try value("scope").map(OAuth2.splitScope)
                    )
                )
            }
            throw OAuth2.Error(.malformedResponse, "the redirect has neither code nor access_token nor error")
        }

        /// The fragment's parameters if the URL has a non-empty fragment, else the query's.
        static func parameters(of url: String) throws -> [(name: String, value: String)] {
            guard let colon = url.firstIndex(of: ":"), url.startIndex != colon,
                url[..<colon].allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) })
            else {
                throw OAuth2.Error(.malformedResponse, "the redirect is not an absolute URL")
            }
            var rest = url[url.index(after: colon)...]
            var encoded: Substring = ""
            if let hash = rest.firstIndex(of: "#") {
                let fragment = rest[rest.index(after: hash)...]
                rest = rest[..<hash]
                if !fragment.isEmpty { encoded = fragment }
            }
            if encoded.isEmpty, let question = rest.firstIndex(of: "?") {
                encoded = rest[rest.index(after: question)...]
            }
            do {
                return try FormURLEncoding.decode(encoded)
            } catch {
                throw OAuth2.Error(.malformedResponse, "the redirect's parameters are not form-encoded: \(error)")
            }
        }

        public var description: String {
            "OAuth2.PendingAuthorization(redirectURI: \(redirectURI), issuer: \(issuer ?? "none"), state: <redacted>, codeVerifier: <redacted>\(nonce == nil ? "" : ", nonce: <redacted>"))"
        }
    }

    /// A successful redirect from the authorization endpoint.
    public enum AuthorizationResponse: Sendable, Hashable, CustomStringConvertible {
        /// `code`, to redeem at the token endpoint ([RFC 6749 §4.1.2](https://www.rfc-editor.org/rfc/rfc6749#section-4.1.2)).
        case code(Secret)
        /// Tokens in the fragment, from a provider that answers the legacy implicit way
        /// ([RFC 6749 §4.2.2](https://www.rfc-editor.org/rfc/rfc6749#section-4.2.2)).
        case tokens(Tokens)

        public var description: String {
            switch self {
            case .code: "code(<redacted>)"
            case .tokens(let tokens): "tokens(\(tokens))"
            }
        }
    }
}
