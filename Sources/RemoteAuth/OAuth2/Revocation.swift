public import HTTPTypes

extension OAuth2 {
    /// `token_type_hint` ([RFC 7009 §2.1](https://www.rfc-editor.org/rfc/rfc7009#section-2.1),
    /// [RFC 7662 §2.1](https://www.rfc-editor.org/rfc/rfc7662#section-2.1)): an open registry.
    public struct TokenTypeHint: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }
        /// `access_token`.
        public static let accessToken = Self(rawValue: "access_token")
        /// `refresh_token`.
        public static let refreshToken = Self(rawValue: "refresh_token")
    }

    /// Token revocation ([RFC 7009](https://www.rfc-editor.org/rfc/rfc7009)).
    public enum Revocation {
        /// `POST token=…&token_type_hint=…` with the client's authentication
        /// ([RFC 7009 §2.1](https://www.rfc-editor.org/rfc/rfc7009#section-2.1)).
        public static func httpRequest(
            to endpoint: String,
            client: Client,
            token: Secret,
            hint: TokenTypeHint? = nil
        ) throws -> (HTTPRequest, [UInt8]) {
            var parameters: [(name: String, value: String)] = [("token", token.reveal())]
            if let hint { parameters.append(("token_type_hint", hint.rawValue)) }
            return try OAuth2.formPost(to: endpoint, parameters: parameters, client: client)
        }

        /// Checks the response: 200 means revoked, or the token was already invalid
        /// ([RFC 7009 §2.2](https://www.rfc-editor.org/rfc/rfc7009#section-2.2)); the body is
        /// ignored then, and another 2xx (a `204` some servers send) is read the same way.
        /// Anything else is an error
        /// ([§2.2.1](https://www.rfc-editor.org/rfc/rfc7009#section-2.2.1)).
        ///
        /// - Throws: ``OAuth2/Error/Code/serverRefused`` (`unsupported_token_type`, …) or
        ///   ``OAuth2/Error/Code/malformedResponse`` for a non-200 status without an OAuth error.
        public static func check(status: Int, body: [UInt8], redacting secrets: [Secret] = []) throws {
            guard !(200..<300).contains(status) else { return }
            _ = try JSONObject.parse(status: status, body: body, redacting: secrets)
            throw OAuth2.Error(.malformedResponse, "HTTP \(status) from the revocation endpoint", status: status)
        }
    }
}
