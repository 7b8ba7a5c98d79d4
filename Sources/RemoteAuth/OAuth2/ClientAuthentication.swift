import HTTPTypes

extension OAuth2 {
    /// How a client proves who it is at the token, revocation, introspection and device
    /// endpoints: `token_endpoint_auth_method`
    /// ([RFC 6749 §2.3](https://www.rfc-editor.org/rfc/rfc6749#section-2.3),
    /// [RFC 7591 §2](https://www.rfc-editor.org/rfc/rfc7591#section-2)).
    ///
    /// The secret is a ``Secret``; `description` names only the method.
    public struct ClientAuthentication: Sendable, Hashable, Codable, CustomStringConvertible {
        private enum Method: String, Sendable, Hashable, Codable {
            case clientSecretBasic = "client_secret_basic"
            case clientSecretPost = "client_secret_post"
            case publicClient = "none"
        }
        private let method: Method
        /// The client secret; `nil` for ``none``.
        public let secret: Secret?

        private init(method: Method, secret: Secret?) {
            self.method = method
            self.secret = secret
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

        /// The method registered under `methodName` (`token_endpoint_auth_method`, as metadata,
        /// a stored session or a command line names it), with the secret it needs.
        ///
        /// - Throws: ``OAuth2/Error/Code/invalidConfiguration`` for another method name
        ///   (`private_key_jwt`, `tls_client_auth` are not built here), a secret method without a
        ///   secret, or `none` with one.
        public init(methodName: String, secret: Secret?) throws {
            switch (Method(rawValue: methodName), secret) {
            case (.clientSecretBasic?, let secret?): self = .clientSecretBasic(secret)
            case (.clientSecretPost?, let secret?): self = .clientSecretPost(secret)
            case (.publicClient?, nil): self = .none
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

        /// The registered name: `client_secret_basic`, `client_secret_post` or `none`.
        public var methodName: String { method.rawValue }

        public var description: String { "OAuth2.ClientAuthentication(\(method.rawValue))" }

        /// Adds the client's authentication to a form request: a Basic `Authorization` field, or
        /// `client_id` (and `client_secret`) in the body.
        func apply(clientID: String, fields: inout HTTPFields, parameters: inout [(name: String, value: String)]) {
            switch method {
            case .clientSecretBasic:
                fields[.authorization] = Self.basicAuthorization(clientID: clientID, secret: secret ?? "")
            case .clientSecretPost:
                parameters.append(("client_id", clientID))
                parameters.append(("client_secret", secret?.reveal() ?? ""))
            case .publicClient:
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
        public var id: String
        public var authentication: ClientAuthentication

        public init(id: String, authentication: ClientAuthentication = .none) {
            self.id = id
            self.authentication = authentication
        }

        /// A public client (`none`).
        public static func `public`(id: String) -> Self { Self(id: id) }

        func authenticate(fields: inout HTTPFields, parameters: inout [(name: String, value: String)]) {
            authentication.apply(clientID: id, fields: &fields, parameters: &parameters)
        }

        /// The secret, to keep it out of error excerpts.
        var secrets: [Secret] { authentication.secret.map { [$0] } ?? [] }

        public var description: String { "OAuth2.Client(\(id), \(authentication.methodName))" }
    }
}
