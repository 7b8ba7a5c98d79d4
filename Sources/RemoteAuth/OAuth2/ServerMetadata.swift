import HTTPTypes

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension OAuth2 {
    /// Authorization server metadata ([RFC 8414 §2](https://www.rfc-editor.org/rfc/rfc8414#section-2)),
    /// from either discovery document; the OpenID Connect one
    /// ([OpenID Connect Discovery 1.0 §3](https://openid.net/specs/openid-connect-discovery-1_0.html#ProviderMetadata))
    /// has the same members and more. Members not named here stay in ``additionalParameters``
    /// and are written back by `encode(to:)`.
    public struct ServerMetadata: Sendable, Hashable, Codable {
        /// `issuer`: the server's identifier, an `https` URL that discovery checks exactly.
        public var issuer: String
        /// `authorization_endpoint`.
        public var authorizationEndpoint: String?
        /// `token_endpoint`.
        public var tokenEndpoint: String?
        /// `device_authorization_endpoint` ([RFC 8628 §4](https://www.rfc-editor.org/rfc/rfc8628#section-4)).
        public var deviceAuthorizationEndpoint: String?
        /// `revocation_endpoint` ([RFC 7009](https://www.rfc-editor.org/rfc/rfc7009)).
        public var revocationEndpoint: String?
        /// `introspection_endpoint` ([RFC 7662](https://www.rfc-editor.org/rfc/rfc7662)).
        public var introspectionEndpoint: String?
        /// `userinfo_endpoint` (OpenID Connect Discovery §3).
        public var userinfoEndpoint: String?
        /// `registration_endpoint` ([RFC 7591](https://www.rfc-editor.org/rfc/rfc7591)).
        public var registrationEndpoint: String?
        /// `jwks_uri`: where the server's signing keys are published.
        public var jwksURI: String?
        /// `scopes_supported`.
        public var scopesSupported: [String]?
        /// `response_types_supported`.
        public var responseTypesSupported: [String]?
        /// `grant_types_supported`.
        public var grantTypesSupported: [String]?
        /// `token_endpoint_auth_methods_supported`.
        public var tokenEndpointAuthMethodsSupported: [String]?
        /// `code_challenge_methods_supported` (PKCE; this library sends `S256` only).
        public var codeChallengeMethodsSupported: [String]?
        /// `authorization_response_iss_parameter_supported`
        /// ([RFC 9207 §3](https://www.rfc-editor.org/rfc/rfc9207#section-3)); absent is `false`.
        public var authorizationResponseIssParameterSupported: Bool
        /// `pushed_authorization_request_endpoint`
        /// ([RFC 9126 §5](https://www.rfc-editor.org/rfc/rfc9126#section-5)).
        public var pushedAuthorizationRequestEndpoint: String?
        /// `require_pushed_authorization_requests`: the server accepts authorization requests
        /// only through its PAR endpoint ([RFC 9126 §5](https://www.rfc-editor.org/rfc/rfc9126#section-5));
        /// absent is `false`.
        public var requirePushedAuthorizationRequests: Bool
        /// `tls_client_certificate_bound_access_tokens`: the server binds access tokens to the
        /// client's TLS certificate ([RFC 8705 §3.3](https://www.rfc-editor.org/rfc/rfc8705#section-3.3));
        /// absent is `false`.
        public var tlsClientCertificateBoundAccessTokens: Bool
        /// `mtls_endpoint_aliases`: where a client using mutual TLS sends its requests instead
        /// ([RFC 8705 §5](https://www.rfc-editor.org/rfc/rfc8705#section-5)).
        public var mutualTLSEndpointAliases: MutualTLSEndpointAliases?
        /// The members this type does not model, kept as they came.
        public var additionalParameters: [String: JSONValue]

        /// Metadata of `issuer` with every optional member `nil` and every flag `false`, plus
        /// `additionalParameters`.
        public init(issuer: String, additionalParameters: [String: JSONValue] = [:]) {
            self.issuer = issuer
            self.authorizationResponseIssParameterSupported = false
            self.requirePushedAuthorizationRequests = false
            self.tlsClientCertificateBoundAccessTokens = false
            self.additionalParameters = additionalParameters
        }

        public init(from decoder: any Decoder) throws {
            let members = try decoder.singleValueContainer().decode([String: JSONValue].self)
            self = try Self(members: members, status: 200)
        }

        init(members: [String: JSONValue], status: Int) throws {
            var object = JSONObject(members: members, status: status)
            self.init(issuer: try object.requiredString("issuer"))
            authorizationEndpoint = try object.string("authorization_endpoint")
            tokenEndpoint = try object.string("token_endpoint")
            deviceAuthorizationEndpoint = try object.string("device_authorization_endpoint")
            revocationEndpoint = try object.string("revocation_endpoint")
            introspectionEndpoint = try object.string("introspection_endpoint")
            userinfoEndpoint = try object.string("userinfo_endpoint")
            registrationEndpoint = try object.string("registration_endpoint")
            jwksURI = try object.string("jwks_uri")
            scopesSupported = try object.stringArray("scopes_supported")
            responseTypesSupported = try object.stringArray("response_types_supported")
            grantTypesSupported = try object.stringArray("grant_types_supported")
            tokenEndpointAuthMethodsSupported = try object.stringArray("token_endpoint_auth_methods_supported")
            codeChallengeMethodsSupported = try object.stringArray("code_challenge_methods_supported")
            authorizationResponseIssParameterSupported =
                try object.bool("authorization_response_iss_parameter_supported") ?? false
            pushedAuthorizationRequestEndpoint = try object.string("pushed_authorization_request_endpoint")
            requirePushedAuthorizationRequests = try object.bool("require_pushed_authorization_requests") ?? false
            tlsClientCertificateBoundAccessTokens =
                try object.bool("tls_client_certificate_bound_access_tokens") ?? false
            if var aliases = try object.object("mtls_endpoint_aliases") {
                mutualTLSEndpointAliases = try MutualTLSEndpointAliases(reading: &aliases)
            }
            additionalParameters = object.remaining
        }

        public func encode(to encoder: any Encoder) throws {
            var members = additionalParameters
            members["issuer"] = .string(issuer)
            let strings: [(String, String?)] = [
                ("authorization_endpoint", authorizationEndpoint), ("token_endpoint", tokenEndpoint),
                ("device_authorization_endpoint", deviceAuthorizationEndpoint),
                ("revocation_endpoint", revocationEndpoint), ("introspection_endpoint", introspectionEndpoint),
                ("userinfo_endpoint", userinfoEndpoint), ("registration_endpoint", registrationEndpoint),
                ("jwks_uri", jwksURI),
                ("pushed_authorization_request_endpoint", pushedAuthorizationRequestEndpoint),
            ]
            for (name, value) in strings {
                if let value { members[name] = .string(value) }
            }
            let lists: [(String, [String]?)] = [
                ("scopes_supported", scopesSupported), ("response_types_supported", responseTypesSupported),
                ("grant_types_supported", grantTypesSupported),
                ("token_endpoint_auth_methods_supported", tokenEndpointAuthMethodsSupported),
                ("code_challenge_methods_supported", codeChallengeMethodsSupported),
            ]
            for (name, list) in lists {
                if let list { members[name] = .array(list.map(JSONValue.string)) }
            }
            if authorizationResponseIssParameterSupported {
                members["authorization_response_iss_parameter_supported"] = .bool(true)
            }
            if requirePushedAuthorizationRequests {
                members["require_pushed_authorization_requests"] = .bool(true)
            }
            if tlsClientCertificateBoundAccessTokens {
                members["tls_client_certificate_bound_access_tokens"] = .bool(true)
            }
            if let mutualTLSEndpointAliases {
                members["mtls_endpoint_aliases"] = .object(mutualTLSEndpointAliases.members)
            }
            var container = encoder.singleValueContainer()
            try container.encode(members)
        }

        /// `mtls_endpoint_aliases` ([RFC 8705 §5](https://www.rfc-editor.org/rfc/rfc8705#section-5)):
        /// the endpoints a client that authenticates with, or binds its tokens to, a TLS client
        /// certificate uses in place of the ones of the same name at the top level. The
        /// authorization endpoint has no alias: the browser goes there.
        public struct MutualTLSEndpointAliases: Sendable, Hashable {
            /// The `token_endpoint` alias.
            public var tokenEndpoint: String?
            /// The `revocation_endpoint` alias.
            public var revocationEndpoint: String?
            /// The `introspection_endpoint` alias.
            public var introspectionEndpoint: String?
            /// The `device_authorization_endpoint` alias.
            public var deviceAuthorizationEndpoint: String?
            /// The `pushed_authorization_request_endpoint` alias.
            public var pushedAuthorizationRequestEndpoint: String?
            /// The `userinfo_endpoint` alias.
            public var userinfoEndpoint: String?
            /// Aliases of endpoints not named here, written back as they came.
            public var additionalParameters: [String: JSONValue]

            /// Aliases for the endpoints given (`nil`: no alias), plus aliases of other endpoints.
            public init(
                tokenEndpoint: String? = nil,
                revocationEndpoint: String? = nil,
                introspectionEndpoint: String? = nil,
                deviceAuthorizationEndpoint: String? = nil,
                pushedAuthorizationRequestEndpoint: String? = nil,
                userinfoEndpoint: String? = nil,
                additionalParameters: [String: JSONValue] = [:]
            ) {
                self.tokenEndpoint = tokenEndpoint
                self.revocationEndpoint = revocationEndpoint
                self.introspectionEndpoint = introspectionEndpoint
                self.deviceAuthorizationEndpoint = deviceAuthorizationEndpoint
                self.pushedAuthorizationRequestEndpoint = pushedAuthorizationRequestEndpoint
                self.userinfoEndpoint = userinfoEndpoint
                self.additionalParameters = additionalParameters
            }

            init(reading object: inout JSONObject) throws {
                self.init(
                    tokenEndpoint: try object.string("token_endpoint"),
                    revocationEndpoint: try object.string("revocation_endpoint"),
                    introspectionEndpoint: try object.string("introspection_endpoint"),
                    deviceAuthorizationEndpoint: try object.string("device_authorization_endpoint"),
                    pushedAuthorizationRequestEndpoint: try object.string("pushed_authorization_request_endpoint"),
                    userinfoEndpoint: try object.string("userinfo_endpoint")
                )
                additionalParameters = object.remaining
            }

            var members: [String: JSONValue] {
                var members = additionalParameters
                let strings: [(String, String?)] = [
                    ("token_endpoint", tokenEndpoint), ("revocation_endpoint", revocationEndpoint),
                    ("introspection_endpoint", introspectionEndpoint),
                    ("device_authorization_endpoint", deviceAuthorizationEndpoint),
                    ("pushed_authorization_request_endpoint", pushedAuthorizationRequestEndpoint),
                    ("userinfo_endpoint", userinfoEndpoint),
                ]
                for (name, value) in strings {
                    if let value { members[name] = .string(value) }
                }
                return members
            }
        }

        /// Which well-known document to fetch.
        public enum Document: Sendable, Hashable {
            /// `/.well-known/oauth-authorization-server`, inserted between the host and the
            /// issuer's path ([RFC 8414 §3.1](https://www.rfc-editor.org/rfc/rfc8414#section-3.1)).
            case oauthAuthorizationServer
            /// `/.well-known/openid-configuration`, appended to the issuer
            /// ([OpenID Connect Discovery 1.0 §4.1](https://openid.net/specs/openid-connect-discovery-1_0.html#ProviderConfigurationRequest)).
            case openIDConfiguration
        }

        /// The metadata URL of `issuer`.
        ///
        /// - Throws: ``OAuth2/Error/Code/invalidConfiguration`` when the issuer has a query or
        ///   fragment ([RFC 8414 §2](https://www.rfc-editor.org/rfc/rfc8414#section-2));
        ///   ``OAuth2/Error/Code/insecureEndpoint`` unless it is https (or loopback http).
        public static func discoveryURL(issuer: String, document: Document = .oauthAuthorizationServer) throws -> String
        {
            try OAuth2.checkEndpoint(issuer)
            guard !issuer.contains("?") else {
                throw OAuth2.Error(
                    .invalidConfiguration,
                    "an issuer has no query or fragment (RFC 8414 §2): '\(issuer)'"
                )
            }
            let origin = try HTTPRequest(method: .get, absoluteURL: issuer).originPrefix
            var path = Substring(URIReference(parsing: issuer).path)
            while path.hasSuffix("/") { path = path.dropLast() }
            switch document {
            case .oauthAuthorizationServer:
                return origin + "/.well-known/oauth-authorization-server" + path
            case .openIDConfiguration:
                return origin + path + "/.well-known/openid-configuration"
            }
        }

        /// Reads a metadata response and checks that its `issuer` is `issuer`, character for
        /// character ([RFC 8414 §3.3](https://www.rfc-editor.org/rfc/rfc8414#section-3.3)).
        ///
        /// - Throws: ``OAuth2/Error/Code/issuerMismatch``, ``OAuth2/Error/Code/malformedResponse``,
        ///   ``OAuth2/Error/Code/serverRefused``.
        public static func parse(status: Int, body: [UInt8], expectedIssuer issuer: String) throws -> Self {
            let object = try JSONObject.parse(status: status, body: body)
            let metadata = try Self(members: object.members, status: status)
            guard metadata.issuer == issuer else {
                throw OAuth2.Error(
                    .issuerMismatch,
                    "the metadata's issuer '\(metadata.issuer)' is not '\(issuer)' (RFC 8414 §3.3)",
                    status: status
                )
            }
            return metadata
        }
    }
}
