public import HTTPTypes

extension OAuth2 {
    /// A way for a client to prove who it is at the server's endpoints that the library does not
    /// build in (a vendor's method, a key in a hardware module): give it to
    /// ``ClientAuthentication/custom(_:)`` and every token, revocation, introspection, device and
    /// PAR request of a ``Flow`` uses it. The built-in methods are ``ClientAuthentication``'s
    /// static members. [RFC 6749 §2.3](https://www.rfc-editor.org/rfc/rfc6749#section-2.3)
    /// leaves the method open ("the client MAY use other methods"); [RFC 7591 §2](https://www.rfc-editor.org/rfc/rfc7591#section-2)
    /// names it in `token_endpoint_auth_method`.
    public protocol ClientAuthenticationScheme: Sendable {
        /// The registered name (`token_endpoint_auth_method`), stored with sessions.
        var methodName: String { get }
        /// Whether the TLS client certificate is the credential: the requests then go to the
        /// server's `mtls_endpoint_aliases` ([RFC 8705 §5](https://www.rfc-editor.org/rfc/rfc8705#section-5)).
        var usesMutualTLS: Bool { get }
        /// What must never appear in an error's excerpt of a server's answer.
        var secrets: [Secret] { get }
        /// Adds the client's authentication to a form request to `endpoint`: header fields, or
        /// body parameters (`client_id` included when the method sends it in the body).
        func authenticate(
            clientID: String,
            endpoint: String,
            fields: inout HTTPFields,
            parameters: inout [(name: String, value: String)]
        ) throws
    }

    /// How a client proves who it is at the token, revocation, introspection and device
    /// endpoints: `token_endpoint_auth_method`
    /// ([RFC 6749 §2.3](https://www.rfc-editor.org/rfc/rfc6749#section-2.3),
    /// [RFC 7591 §2](https://www.rfc-editor.org/rfc/rfc7591#section-2)).
    ///
    /// The secret is a ``Secret``; `description` names only the method.
    public struct ClientAuthentication: Sendable, Hashable, Codable, CustomStringConvertible {
        private enum Method: String, Sendable, Hashable, Codable {
            case custom = ""
            case clientSecretBasic = "client_secret_basic"
            case clientSecretPost = "client_secret_post"
            case publicClient = "none"
            case clientSecretJWT = "client_secret_jwt"
            case privateKeyJWT = "private_key_jwt"
            case tlsClientAuth = "tls_client_auth"
            case selfSignedTLSClientAuth = "self_signed_tls_client_auth"
        }
        private enum CodingKeys: String, CodingKey { case method, secret }
        private let method: Method
        /// The client secret; `nil` for ``none`` and `private_key_jwt`.
        public let secret: Secret?
        /// How `client_secret_jwt` and `private_key_jwt` sign; not encoded (the key is not kept
        /// with the method: see ``ClientAssertion``).
        private var assertion: ClientAssertion? = nil
        /// A method from outside the library (``custom(_:)``).
        private var scheme: CustomScheme? = nil

        private init(method: Method, secret: Secret?, assertion: ClientAssertion? = nil) {
            self.method = method
            self.secret = secret
            self.assertion = assertion
        }

        /// A method of your own ([RFC 6749 §2.3](https://www.rfc-editor.org/rfc/rfc6749#section-2.3)).
        /// It is encoded by its ``ClientAuthenticationScheme/methodName``; decoding that name
        /// again fails (the code is yours to supply), as for a signing key.
        public static func custom(_ scheme: any ClientAuthenticationScheme) -> Self {
            var authentication = Self(method: .custom, secret: nil)
            authentication.scheme = CustomScheme(scheme: scheme)
            return authentication
        }

        /// Compared and hashed by its name: an existential has no `==` of its own.
        private struct CustomScheme: Sendable, Hashable {
            let scheme: any ClientAuthenticationScheme
            static func == (lhs: Self, rhs: Self) -> Bool { lhs.scheme.methodName == rhs.scheme.methodName }
            func hash(into hasher: inout Hasher) { hasher.combine(scheme.methodName) }
        }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            let name = try container.decode(String.self, forKey: .method)
            guard let method = Method(rawValue: name), method != .custom else {
                throw DecodingError.dataCorruptedError(
                    forKey: .method,
                    in: container,
                    debugDescription: "the client authentication method '\(name)' is not built in: supply it with ClientAuthentication.custom"
                )
            }
            self.init(method: method, secret: try container.decodeIfPresent(Secret.self, forKey: .secret))
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(methodName, forKey: .method)
            try container.encodeIfPresent(secret, forKey: .secret)
        }

        /// `client_secret_basic`: the id and secret, each form-urlencoded, in HTTP Basic
        /// ([RFC 6749 §2.3.1](https://www.rfc-editor.org/rfc/rfc6749#section-2.3.1)).
        public static func clientSecretBasic(_ secret: Secret) -> Self {
            Self(method: .clientSecretBasic, secret: secret)
        }
        /// `client_secret_post`: `client_id` and `client_secret` in the form body
        /// ([RFC 6749 §2.3.1](https://www.rfc-editor.org/rfc/rfc6749#section-2.3.1)); also the
        /// switch for servers that do not form-decode the Basic credentials.
        public static func clientSecretPost(_ secret: Secret) -> Self {
            Self(method: .clientSecretPost, secret: secret)
        }
        /// `none`: a public client, identified by `client_id` in the body
        /// ([RFC 6749 §2.1](https://www.rfc-editor.org/rfc/rfc6749#section-2.1),
        /// [§3.2.1](https://www.rfc-editor.org/rfc/rfc6749#section-3.2.1)).
        public static let none = Self(method: .publicClient, secret: nil)

        /// `tls_client_auth`: the client proves itself with the certificate it presents in the
        /// TLS handshake, which the server validates against its trust anchors (PKI) and matches
        /// with the one subject registered for the client (its DN, or a SAN)
        /// ([RFC 8705 §2.1](https://www.rfc-editor.org/rfc/rfc8705#section-2.1)). The request
        /// carries `client_id` in the body and no secret
        /// ([RFC 8705 §2](https://www.rfc-editor.org/rfc/rfc8705#section-2)).
        ///
        /// The certificate is the transport's: give it one (a `ClientIdentity` for
        /// `NIOHTTP1Transport` or `AsyncHTTPClientTransport`; `URLSessionTransport` on Linux
        /// cannot present one and refuses it). The core does not see the transport's TLS
        /// settings (``HTTPTransport`` is one `send`), so a missing identity shows as the server's
        /// `invalid_client`; a ``Flow`` with this method uses the server's
        /// `mtls_endpoint_aliases` ([RFC 8705 §5](https://www.rfc-editor.org/rfc/rfc8705#section-5)).
        public static let tlsClientAuth = Self(method: .tlsClientAuth, secret: nil)

        /// `self_signed_tls_client_auth`: as ``tlsClientAuth``, but the certificate is
        /// self-signed and the server matches it with the one registered for the client (its
        /// `jwks` `x5c`, or its SHA-256 thumbprint), without a PKI
        /// ([RFC 8705 §2.2](https://www.rfc-editor.org/rfc/rfc8705#section-2.2)).
        public static let selfSignedTLSClientAuth = Self(method: .selfSignedTLSClientAuth, secret: nil)

        /// Whether the client authenticates with its TLS certificate (RFC 8705 §2): the requests
        /// go to the server's `mtls_endpoint_aliases` when it has them
        /// ([RFC 8705 §5](https://www.rfc-editor.org/rfc/rfc8705#section-5)).
        public var usesMutualTLS: Bool {
            scheme?.scheme.usesMutualTLS ?? (method == .tlsClientAuth || method == .selfSignedTLSClientAuth)
        }

        /// `client_secret_jwt`: a JWT signed with HS256 keyed with the client secret, sent as
        /// `client_assertion` ([RFC 7523 §2.2](https://www.rfc-editor.org/rfc/rfc7523#section-2.2),
        /// [OpenID Connect Core §9](https://openid.net/specs/openid-connect-core-1_0.html#ClientAuthentication)).
        /// The assertion is made per request with `now` and `random` (see ``ClientAssertion``).
        ///
        /// - Throws: ``OAuth2/Error/Code/invalidConfiguration`` for an empty secret.
        public static func clientSecretJWT(
            _ secret: Secret,
            audience: ClientAssertion.Audience = .endpoint,
            lifetime: Int64 = ClientAssertion.defaultLifetime,
            now: @escaping @Sendable () -> Int64,
            random: RandomSource
        ) throws -> Self {
            let key: JOSE.SigningKey
            do {
                key = try secret.withRevealedUTF8 { try JOSE.SigningKey.hmacSHA256(Array($0)) }
            } catch {
                throw OAuth2.Error(.invalidConfiguration, "the client secret cannot key HS256: \(error)")
            }
            let assertion = ClientAssertion(key: key, audience: audience, lifetime: lifetime, now: now, random: random)
            return Self(method: .clientSecretJWT, secret: secret, assertion: assertion)
        }

        /// `private_key_jwt`: a JWT signed with the client's private key (RS256, PS256, ES256 or
        /// EdDSA), whose public key the server has registered, sent as `client_assertion`
        /// ([RFC 7523 §2.2](https://www.rfc-editor.org/rfc/rfc7523#section-2.2),
        /// [OpenID Connect Core §9](https://openid.net/specs/openid-connect-core-1_0.html#ClientAuthentication)).
        ///
        /// - Throws: ``OAuth2/Error/Code/invalidConfiguration`` for an HMAC key.
        public static func privateKeyJWT(
            _ key: JOSE.SigningKey,
            audience: ClientAssertion.Audience = .endpoint,
            lifetime: Int64 = ClientAssertion.defaultLifetime,
            now: @escaping @Sendable () -> Int64,
            random: RandomSource
        ) throws -> Self {
            guard key.algorithm != .hs256 else {
                throw OAuth2.Error(.invalidConfiguration, "private_key_jwt signs with a private key, not HS256")
            }
            let assertion = ClientAssertion(key: key, audience: audience, lifetime: lifetime, now: now, random: random)
            return Self(method: .privateKeyJWT, secret: nil, assertion: assertion)
        }

        /// The method registered under `methodName` (`token_endpoint_auth_method`, as metadata,
        /// a stored session or a command line names it), with the secret it needs.
        ///
        /// - Throws: ``OAuth2/Error/Code/invalidConfiguration`` for another method name
        ///   (`private_key_jwt` and `client_secret_jwt` need a key and a clock: see
        ///   ``clientSecretJWT(_:audience:lifetime:now:random:)``,
        ///   ``privateKeyJWT(_:audience:lifetime:now:random:)``), a secret method without a
        ///   secret, or `none` with one.
        public init(methodName: String, secret: Secret?) throws {
            switch (Method(rawValue: methodName), secret) {
            case (.custom?, _):
                throw OAuth2.Error(.invalidConfiguration, "a client authentication method needs a name")
            case (.clientSecretJWT?, _), (.privateKeyJWT?, _):
                throw OAuth2.Error(
                    .invalidConfiguration,
                    "'\(methodName)' signs an assertion: it needs a key and a clock (ClientAuthentication.\(methodName == "private_key_jwt" ? "privateKeyJWT" : "clientSecretJWT"))"
                )
            case (.clientSecretBasic?, let secret?): self = .clientSecretBasic(secret)
            case (.clientSecretPost?, let secret?): self = .clientSecretPost(secret)
            case (.publicClient?, nil): self = .none
            case (.tlsClientAuth?, nil): self = .tlsClientAuth
            case (.selfSignedTLSClientAuth?, nil): self = .selfSignedTLSClientAuth
            case (.tlsClientAuth?, _?), (.selfSignedTLSClientAuth?, _?):
                throw OAuth2.Error(
                    .invalidConfiguration,
                    "'\(methodName)' authenticates with the TLS client certificate: it has no client secret (RFC 8705 §2)"
                )
            case (nil, _):
                throw OAuth2.Error(
                    .invalidConfiguration,
                    "the client authentication method '\(methodName)' is not supported"
                )
            case (.publicClient?, _?):
                throw OAuth2.Error(.invalidConfiguration, "a public client ('none') has no client secret")
            case (_?, nil):
                throw OAuth2.Error(.invalidConfiguration, "'\(methodName)' needs a client secret")
            }
        }

        /// The registered name: `client_secret_basic`, `client_secret_post`, `client_secret_jwt`,
        /// `private_key_jwt`, `tls_client_auth`, `self_signed_tls_client_auth` or `none`.
        /// A ``custom(_:)`` method's own name.
        public var methodName: String { scheme?.scheme.methodName ?? method.rawValue }

        /// The secrets the method sends, to keep out of error excerpts.
        var secrets: [Secret] { scheme?.scheme.secrets ?? secret.map { [$0] } ?? [] }

        public var description: String { "OAuth2.ClientAuthentication(\(methodName))" }

        /// Adds the client's authentication to a form request to `endpoint`: a Basic
        /// `Authorization` field, or `client_id` (and `client_secret`, or `client_assertion_type`
        /// and `client_assertion`, [RFC 7521 §4.2](https://www.rfc-editor.org/rfc/rfc7521#section-4.2))
        /// in the body.
        func apply(
            clientID: String,
            endpoint: String,
            fields: inout HTTPFields,
            parameters: inout [(name: String, value: String)]
        ) throws {
            switch method {
            case .custom:
                guard let scheme else { throw OAuth2.Error(.invalidConfiguration, "a custom method without its scheme") }
                try scheme.scheme.authenticate(clientID: clientID, endpoint: endpoint, fields: &fields, parameters: &parameters)
            case .clientSecretJWT, .privateKeyJWT:
                guard let assertion else {
                    throw OAuth2.Error(
                        .invalidConfiguration,
                        "'\(method.rawValue)' needs its signing key (it is not stored with the method)"
                    )
                }
                parameters.append(("client_id", clientID))
                parameters.append(("client_assertion_type", ClientAssertion.assertionType))
                parameters.append(("client_assertion", try assertion.sign(clientID: clientID, endpoint: endpoint)))
            case .clientSecretBasic:
                fields[.authorization] = Self.basicAuthorization(clientID: clientID, secret: secret ?? "")
            case .clientSecretPost:
                parameters.append(("client_id", clientID))
                parameters.append(("client_secret", secret?.reveal() ?? ""))
            case .publicClient:
                parameters.append(("client_id", clientID))
            case .tlsClientAuth, .selfSignedTLSClientAuth:
                // RFC 8705 §2: `client_id` in the body; the certificate is the credential.
                parameters.append(("client_id", clientID))
            }
        }

        /// `Basic base64(urlencode(id) ":" urlencode(secret))`: the
        /// [RFC 6749 §2.3.1](https://www.rfc-editor.org/rfc/rfc6749#section-2.3.1) credentials,
        /// with the [Appendix B](https://www.rfc-editor.org/rfc/rfc6749#appendix-B) encoding of
        /// ``formEncode(_:)``.
        public static func basicAuthorization(clientID: String, secret: Secret) -> String {
            let credentials = formEncode(clientID) + ":" + formEncode(secret.reveal())
            return "Basic " + RemoteAuthBase64.encode(Array(credentials.utf8))
        }

        /// `application/x-www-form-urlencoded` as [RFC 6749 Appendix B](https://www.rfc-editor.org/rfc/rfc6749#appendix-B)
        /// specifies it for client credentials, in the
        /// [WHATWG URL Standard §5.2](https://url.spec.whatwg.org/#urlencoded-serializing)
        /// serializer's form (what browsers and most servers' decoders agree on): UTF-8, then
        /// `ALPHA / DIGIT / "*" / "-" / "." / "_"` as they are, a space as `+`, every other
        /// octet `%XY` (uppercase).
        ///
        /// This differs from ``FormURLEncoding/encode(_:)`` (`*` and a space), which every
        /// decoder also reads back to the same text; the Basic credentials are compared
        /// byte for byte by some servers, so they follow the form the vectors fix.
        public static func formEncode(_ text: String) -> String {
            var output: [UInt8] = []
            output.reserveCapacity(text.utf8.count)
            for octet in text.utf8 {
                switch octet {
                case UInt8(ascii: " "):
                    output.append(UInt8(ascii: "+"))
                case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                    UInt8(ascii: "0")...UInt8(ascii: "9"),
                    UInt8(ascii: "*"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"):
                    output.append(octet)
                default:
                    output.append(UInt8(ascii: "%"))
                    output.append(Hex.digit(octet >> 4, uppercase: true))
                    output.append(Hex.digit(octet & 0x0F, uppercase: true))
                }
            }
            return String(decoding: output, as: UTF8.self)
        }
    }

    /// A registered client: its `client_id` ([RFC 6749 §2.2](https://www.rfc-editor.org/rfc/rfc6749#section-2.2))
    /// and how it authenticates.
    public struct Client: Sendable, Hashable, Codable, CustomStringConvertible {
        /// `client_id`.
        public var id: String
        /// How the client proves who it is; `.none` for a public client.
        public var authentication: ClientAuthentication

        /// A client by its id and how it authenticates.
        public init(id: String, authentication: ClientAuthentication = .none) {
            self.id = id
            self.authentication = authentication
        }

        /// A public client (`none`).
        public static func `public`(id: String) -> Self { Self(id: id) }

        func authenticate(
            endpoint: String,
            fields: inout HTTPFields,
            parameters: inout [(name: String, value: String)]
        ) throws {
            try authentication.apply(clientID: id, endpoint: endpoint, fields: &fields, parameters: &parameters)
        }

        /// The secrets, to keep them out of error excerpts.
        var secrets: [Secret] { authentication.secrets }

        public var description: String { "OAuth2.Client(\(id), \(authentication.methodName))" }
    }
}
