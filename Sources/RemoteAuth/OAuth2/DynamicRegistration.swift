import HTTPTypes

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension OAuth2 {
    /// Dynamic client registration: a client registers itself at an authorization server's
    /// `registration_endpoint` and gets a `client_id` (and a secret for a confidential method)
    /// ([RFC 7591 §3](https://www.rfc-editor.org/rfc/rfc7591#section-3)), which belongs to that
    /// server only.
    ///
    /// ```swift
    /// let registered = try await OAuth2.DynamicRegistration.register(
    ///     .init(redirectURIs: ["http://127.0.0.1/callback"], clientName: "my-tool"),
    ///     at: metadata.registrationEndpoint!, transport: transport)
    /// let client = try registered.client()      // OAuth2.Client for the flow
    /// ```
    public enum DynamicRegistration {
        /// The client metadata sent ([RFC 7591 §2](https://www.rfc-editor.org/rfc/rfc7591#section-2)).
        public struct Metadata: Sendable, Hashable {
            /// `redirect_uris`.
            public var redirectURIs: [String]
            /// `token_endpoint_auth_method`: `none` (a public client, the default for a native
            /// app, [RFC 8252 §8.4](https://www.rfc-editor.org/rfc/rfc8252#section-8.4)),
            /// `client_secret_basic`, `client_secret_post`, or `private_key_jwt` (see
            /// ``registeringKey(_:)``).
            public var tokenEndpointAuthMethod: Session.ClientAuthenticationMethod
            /// `grant_types`.
            public var grantTypes: [String]
            /// `response_types`.
            public var responseTypes: [String]
            /// `client_name`, shown to the person on the consent page.
            public var clientName: String?
            /// `scope`, space-separated on the wire.
            public var scope: [String]?
            /// Members not named here (`client_uri`, `software_id`, ...), sent as given.
            public var additionalMembers: [String: JSONValue]

            /// Metadata for a client redirecting to `redirectURIs`: by default a public client (`none`) of
            /// the `authorization_code` and `refresh_token` grants with `code` responses.
            public init(
                redirectURIs: [String],
                tokenEndpointAuthMethod: Session.ClientAuthenticationMethod = .none,
                grantTypes: [String] = ["authorization_code", "refresh_token"],
                responseTypes: [String] = ["code"],
                clientName: String? = nil,
                scope: [String]? = nil,
                additionalMembers: [String: JSONValue] = [:]
            ) {
                self.redirectURIs = redirectURIs
                self.tokenEndpointAuthMethod = tokenEndpointAuthMethod
                self.grantTypes = grantTypes
                self.responseTypes = responseTypes
                self.clientName = clientName
                self.scope = scope
                self.additionalMembers = additionalMembers
            }

            /// This metadata for a client that authenticates with `private_key_jwt` and `key`
            /// ([RFC 7523 §2.2](https://www.rfc-editor.org/rfc/rfc7523#section-2.2)): the method set,
            /// and `jwks` holding the key's public JWK by value
            /// ([RFC 7591 §2](https://www.rfc-editor.org/rfc/rfc7591#section-2); `jwks_uri` removed,
            /// since the two must not both be present).
            ///
            /// - Throws: ``OAuth2/Error/Code/invalidConfiguration`` for an HMAC key, which has no
            ///   public half.
            public func registeringKey(_ key: JOSE.SigningKey) throws -> Self {
                guard let jwk = key.publicJWK else {
                    throw OAuth2.Error(.invalidConfiguration, "private_key_jwt signs with a private key, not HS256")
                }
                var metadata = self
                metadata.tokenEndpointAuthMethod = .privateKeyJWT
                metadata.additionalMembers["jwks_uri"] = nil
                metadata.additionalMembers["jwks"] = .object([
                    "keys": .array([try JSONDecoder().decode(JSONValue.self, from: JSONEncoder().encode(jwk))])
                ])
                return metadata
            }

            /// The JSON object sent.
            public var members: [String: JSONValue] {
                var members = additionalMembers
                members["redirect_uris"] = .array(redirectURIs.map(JSONValue.string))
                members["token_endpoint_auth_method"] = .string(tokenEndpointAuthMethod.rawValue)
                members["grant_types"] = .array(grantTypes.map(JSONValue.string))
                members["response_types"] = .array(responseTypes.map(JSONValue.string))
                if let clientName { members["client_name"] = .string(clientName) }
                if let scope { members["scope"] = .string(scope.joined(separator: " ")) }
                return members
            }
        }

        /// The server's answer ([RFC 7591 §3.2.1](https://www.rfc-editor.org/rfc/rfc7591#section-3.2.1),
        /// [RFC 7592 §3](https://www.rfc-editor.org/rfc/rfc7592#section-3)).
        public struct Registered: Sendable, Hashable, CustomStringConvertible {
            /// `client_id`.
            public let clientID: String
            /// `client_secret`, for a confidential method.
            public let clientSecret: Secret?
            /// `client_id_issued_at`, seconds since the epoch.
            public let clientIDIssuedAt: Int64?
            /// `client_secret_expires_at`: `0` for never (required with a secret, §3.2.1).
            public let clientSecretExpiresAt: Int64?
            /// `registration_access_token` and `registration_client_uri` (RFC 7592 §3): how
            /// the client reads, changes or deletes its registration.
            public let registrationAccessToken: Secret?
            /// `registration_client_uri`: where the client reads, changes or deletes its registration
            /// ([RFC 7592 §3](https://www.rfc-editor.org/rfc/rfc7592#section-3)); `nil` when the server gave none.
            public let registrationClientURI: String?
            /// `token_endpoint_auth_method` as registered (the server may have changed it).
            public let tokenEndpointAuthMethod: Session.ClientAuthenticationMethod
            /// Every member of the answer (the metadata the server registered), secrets included.
            public let members: [String: JSONValue]

            /// The client for a flow, authenticating as registered.
            ///
            /// - Throws: ``OAuth2/Error/Code/invalidConfiguration`` for a method this library does
            ///   not speak, or a confidential method without a secret.
            public func client() throws -> OAuth2.Client {
                OAuth2.Client(
                    id: clientID,
                    authentication: try OAuth2.ClientAuthentication(
                        methodName: tokenEndpointAuthMethod.rawValue,
                        secret: clientSecret
                    )
                )
            }

            /// What a session keeps of it.
            public var registration: ClientRegistration {
                ClientRegistration(
                    clientID: clientID,
                    authenticationMethod: tokenEndpointAuthMethod,
                    clientSecret: clientSecret,
                    registrationAccessToken: registrationAccessToken,
                    registrationClientURI: registrationClientURI,
                    redirectURIs: redirectURIs,
                    clientSecretExpiresAt: clientSecretExpiresAt
                )
            }

            /// What a session keeps after a read or an update of `previous`
            /// ([RFC 7592 §3](https://www.rfc-editor.org/rfc/rfc7592#section-3)): this answer's,
            /// with the registration access token, the URI and the secret of `previous` where the
            /// answer carries none (the server reissues them only when it chooses), and the key
            /// reference of `previous`.
            public func registration(replacing previous: ClientRegistration) -> ClientRegistration {
                var kept = registration
                kept.registrationAccessToken = kept.registrationAccessToken ?? previous.registrationAccessToken
                kept.registrationClientURI = kept.registrationClientURI ?? previous.registrationClientURI
                if kept.clientSecret == nil, tokenEndpointAuthMethod == previous.authenticationMethod {
                    kept.clientSecret = previous.clientSecret
                    kept.clientSecretExpiresAt = previous.clientSecretExpiresAt
                }
                kept.keyReference = previous.keyReference
                return kept
            }

            /// The `redirect_uris` the response echoes (RFC 7591 §3.2.1: the registered
            /// metadata), or `nil` when it names none.
            public var redirectURIs: [String]? {
                guard case .array(let values) = members["redirect_uris"] else { return nil }
                let uris = values.compactMap { value -> String? in
                    if case .string(let uri) = value { return uri }
                    return nil
                }
                return uris.count == values.count && !uris.isEmpty ? uris : nil
            }

            public var description: String {
                "OAuth2.DynamicRegistration.Registered(\(clientID), \(tokenEndpointAuthMethod)\(clientSecret == nil ? "" : ", secret: <redacted>"))"
            }
        }

        /// Registers `metadata` at `endpoint` (`POST`, JSON, [RFC 7591 §3.1](https://www.rfc-editor.org/rfc/rfc7591#section-3.1)),
        /// with `initialAccessToken` as a Bearer token when the server requires one.
        ///
        /// - Throws: ``OAuth2/Error/Code/serverRefused`` with the server's `invalid_redirect_uri`,
        ///   `invalid_client_metadata`, ... ([§3.2.2](https://www.rfc-editor.org/rfc/rfc7591#section-3.2.2));
        ///   ``OAuth2/Error/Code/malformedResponse`` for an answer without `client_id`, or with a
        ///   secret but no `client_secret_expires_at`; ``OAuth2/Error/Code/insecureEndpoint``.
        public static func register(
            _ metadata: Metadata,
            at endpoint: String,
            initialAccessToken: Secret? = nil,
            transport: any HTTPTransport
        ) async throws -> Registered {
            try OAuth2.checkEndpoint(endpoint)
            var fields = HTTPFields()
            fields[.contentType] = "application/json"
            fields[.accept] = "application/json"
            if let initialAccessToken {
                fields[.authorization] = "Bearer " + initialAccessToken.reveal()
            }
            let body = Array(try JSONEncoder().encode(JSONValue.object(metadata.members)))
            let (response, answer) = try await transport.send(
                HTTPRequest(method: .post, absoluteURL: endpoint, headerFields: fields),
                body: body
            )
            do {
                return try parse(status: response.status.code, body: answer)
            } catch let error as OAuth2.Error {
                throw OAuth2.Error(error.code, "POST \(endpoint): \(error.reason)", serverError: error.serverError, status: error.status)
            }
        }

        /// Reads a registration answer (201, or 200 from RFC 7592's read).
        public static func parse(status: Int, body: [UInt8]) throws -> Registered {
            var object = try JSONObject.parse(status: status, body: body)
            let clientID = try object.requiredString("client_id")
            let secret = try object.string("client_secret").map { Secret($0) }
            let expires = try object.integer("client_secret_expires_at")
            if secret != nil, expires == nil {
                throw object.malformed("a client_secret without client_secret_expires_at (RFC 7591 §3.2.1)")
            }
            let method = try object.string("token_endpoint_auth_method")
            return Registered(
                clientID: clientID,
                clientSecret: secret,
                clientIDIssuedAt: try object.integer("client_id_issued_at"),
                clientSecretExpiresAt: expires,
                registrationAccessToken: try object.string("registration_access_token").map { Secret($0) },
                registrationClientURI: try object.string("registration_client_uri"),
                tokenEndpointAuthMethod: method.map { .init(rawValue: $0) } ?? (secret == nil ? .none : .clientSecretBasic),
                members: object.members
            )
        }
    }
}
