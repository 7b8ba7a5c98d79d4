public import HTTPTypes

extension OAuth2 {
    /// An introspection response ([RFC 7662 §2.2](https://www.rfc-editor.org/rfc/rfc7662#section-2.2)):
    /// `active`, the registered members typed, the rest kept.
    public struct IntrospectionResponse: Sendable, Hashable, CustomStringConvertible {
        /// `active`: whether the token is valid now. When `false` the other members are absent.
        public var active: Bool
        /// `scope`: the token's scopes.
        public var scope: [String]?
        /// `client_id`: the client the token was issued to.
        public var clientID: String?
        /// `username`: a name of the user who authorized the token, for people.
        public var username: String?
        /// `token_type`: `Bearer`, `DPoP`, ….
        public var tokenType: String?
        /// `exp`, `iat`, `nbf`: seconds since 1970.
        public var expiresAt: Int64?
        /// `iat`: when the token was issued, seconds since 1970.
        public var issuedAt: Int64?
        /// `nbf`: when the token starts to be valid, seconds since 1970.
        public var notBefore: Int64?
        /// `sub`: the token's subject, usually the user.
        public var subject: String?
        /// `aud`: one string or several.
        public var audience: [String]?
        /// `iss`: the token's issuer.
        public var issuer: String?
        /// `jti`: the token's identifier.
        public var tokenID: String?
        /// Members beyond these (`cnf`, extension claims).
        public var additionalParameters: [String: JSONValue]

        /// A response with `active` and the members beyond the registered ones; the others are set
        /// one by one.
        public init(active: Bool, additionalParameters: [String: JSONValue] = [:]) {
            self.active = active
            self.additionalParameters = additionalParameters
        }

        /// `POST token=…&token_type_hint=…` with the client's authentication
        /// ([RFC 7662 §2.1](https://www.rfc-editor.org/rfc/rfc7662#section-2.1)).
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

        /// - Throws: ``OAuth2/Error/Code/serverRefused`` for an error response;
        ///   ``OAuth2/Error/Code/malformedResponse`` without a boolean `active` or with a member of
        ///   the wrong type.
        public static func parse(status: Int, body: [UInt8], redacting secrets: [Secret] = []) throws -> Self {
            var object = try JSONObject.parse(status: status, body: body, redacting: secrets)
            guard let active = try object.bool("active") else { throw object.malformed("'active' is missing") }
            var response = Self(active: active)
            response.scope = try object.scope()
            response.clientID = try object.string("client_id")
            response.username = try object.string("username")
            response.tokenType = try object.string("token_type")
            response.expiresAt = try object.integer("exp")
            response.issuedAt = try object.integer("iat")
            response.notBefore = try object.integer("nbf")
            response.subject = try object.string("sub")
            response.audience = try object.strings("aud")
            response.issuer = try object.string("iss")
            response.tokenID = try object.string("jti")
            response.additionalParameters = object.remaining
            return response
        }

        public var description: String {
            "OAuth2.IntrospectionResponse(active: \(active), clientID: \(clientID ?? "-"), scope: \(scope?.joined(separator: " ") ?? "-"))"
        }
    }
}
