import Crypto
public import HTTPTypes

extension OAuth1 {
    /// A signed request as a server receives it: its protocol parameters collected from the
    /// `Authorization` header, the query and the form body, checked for the structural rules of
    /// RFC 5849, ready to be verified once the server has looked up the secrets.
    ///
    /// ```swift
    /// let received = try OAuth1.ReceivedRequest(request, body: body)
    /// let client = lookUpClient(received.consumerKey)       // the server's own store
    /// try received.checkTimestamp(now: now, window: 300)
    /// try received.verify(clientSecret: client.secret, tokenSecret: tokenSecret)
    /// ```
    public struct ReceivedRequest: Sendable, Hashable {
        /// Where the protocol parameters were found.
        public let placement: Placement
        /// The header's `realm`, if any; it is not signed.
        public let realm: String?
        /// Every protocol parameter except `oauth_signature`, decoded, in the order received.
        public let protocolParameters: [Parameter]
        /// The request's other parameters (query and form body), decoded, in the order received.
        public let requestParameters: [Parameter]
        /// `oauth_signature`, decoded.
        public let signature: String
        /// `oauth_signature_method`.
        public let signatureMethod: SignatureMethod
        /// The signature base string the client must have signed (§3.4.1).
        public let signatureBaseString: String

        /// Collects and checks the parameters of a received request.
        ///
        /// - Throws: ``OAuth1Error`` with code
        ///   - `malformedHeader` for an `Authorization: OAuth` header that does not parse;
        ///   - `parameterInTwoPlaces` when protocol parameters come in more than one of header,
        ///     query and body (§3.5: a client uses one method);
        ///   - `duplicateParameter` for an `oauth_*` parameter given twice (§3.1);
        ///   - `missingParameter` when `oauth_consumer_key`, `oauth_signature_method` or
        ///     `oauth_signature` is absent, or `oauth_timestamp`/`oauth_nonce` for a method other
        ///     than PLAINTEXT (§3.1);
        ///   - `unsupportedSignatureMethod`, `unsupportedVersion` (`oauth_version` not `1.0`).
        public init(_ request: HTTPRequest, body: [UInt8]? = nil) throws {
            // Header (§3.5.1).
            var headerParameters: [Parameter] = []
            var realm: String? = nil
            var sawHeader = false
            for field in request.headerFields where field.name == .authorization {
                guard let parsed = try AuthorizationHeader.parse(field.value) else { continue }
                if sawHeader {
                    throw OAuth1Error(.duplicateParameter, "more than one 'Authorization: OAuth' field")
                }
                sawHeader = true
                realm = parsed.realm
                headerParameters = parsed.parameters
            }
            // Query (§3.5.3) and form body (§3.5.2).
            var queryParameters: [Parameter] = []
            if let query = request.target.query {
                queryParameters = try OAuth1.formParameters(query)
            }
            var bodyParameters: [Parameter] = []
            if FormURLEncoding.isFormEncoded(request.headerFields), let body, !body.isEmpty {
                bodyParameters = try OAuth1.formParameters(bytes: body)
            }

            // §3.5: a client sends the protocol parameters in one place only.
            func carriesProtocolParameters(_ parameters: [Parameter]) -> Bool {
                parameters.contains { $0.name.hasPrefix("oauth_") }
            }
            var carrying: [Placement] = []
            if carriesProtocolParameters(headerParameters) { carrying.append(.header) }
            if carriesProtocolParameters(queryParameters) { carrying.append(.query) }
            if carriesProtocolParameters(bodyParameters) { carrying.append(.body) }
            guard let placement = carrying.first else {
                throw OAuth1Error(.missingParameter, "no OAuth protocol parameters in the header, query or body")
            }
            if carrying.count > 1 {
                let names = carrying.map(\.rawValue).joined(separator: " and ")
                throw OAuth1Error(.parameterInTwoPlaces, "protocol parameters were sent in the \(names)")
            }

            var protocolParameters: [Parameter] = []
            var requestParameters: [Parameter] = []
            protocolParameters.reserveCapacity(9)
            requestParameters.reserveCapacity(queryParameters.count + bodyParameters.count + headerParameters.count)
            var signature: String? = nil
            for parameters in [headerParameters, queryParameters, bodyParameters] {
                for parameter in parameters {
                    guard parameter.name.hasPrefix("oauth_") else {
                        requestParameters.append(parameter)
                        continue
                    }
                    // At most one of each (§3.1); the names are few, a linear search is cheapest.
                    let isSignature = parameter.name == "oauth_signature"
                    guard isSignature ? signature == nil : !protocolParameters.contains(where: { $0.name == parameter.name })
                    else {
                        throw OAuth1Error(
                            .duplicateParameter,
                            "'\(parameter.name)' appears more than once",
                            parameter: parameter.name
                        )
                    }
                    if isSignature {
                        signature = parameter.value
                    } else {
                        protocolParameters.append(parameter)
                    }
                }
            }

            func value(_ name: String) -> String? { protocolParameters.first { $0.name == name }?.value }
            guard value("oauth_consumer_key") != nil else {
                throw OAuth1Error(.missingParameter, "oauth_consumer_key is absent", parameter: "oauth_consumer_key")
            }
            guard let methodName = value("oauth_signature_method") else {
                throw OAuth1Error(
                    .missingParameter,
                    "oauth_signature_method is absent",
                    parameter: "oauth_signature_method"
                )
            }
            let method = SignatureMethod(rawValue: methodName)
            guard SignatureMethod.supported.contains(method) else {
                throw OAuth1Error(
                    .unsupportedSignatureMethod,
                    "oauth_signature_method '\(methodName)' is not supported",
                    parameter: "oauth_signature_method"
                )
            }
            guard let signature else {
                throw OAuth1Error(.missingParameter, "oauth_signature is absent", parameter: "oauth_signature")
            }
            if method != .plaintext {
                guard value("oauth_timestamp") != nil else {
                    throw OAuth1Error(.missingParameter, "oauth_timestamp is absent", parameter: "oauth_timestamp")
                }
                guard value("oauth_nonce") != nil else {
                    throw OAuth1Error(.missingParameter, "oauth_nonce is absent", parameter: "oauth_nonce")
                }
            }
            if let version = value("oauth_version"), version != "1.0" {
                throw OAuth1Error(
                    .unsupportedVersion,
                    "oauth_version '\(version)' is not 1.0",
                    parameter: "oauth_version"
                )
            }

            guard let scheme = request.scheme, let authority = request.authority else {
                throw OAuth1Error(.malformedRequest, "the request has no scheme or authority")
            }
            let baseStringURI = try SignatureBaseString.baseStringURIBytes(
                scheme: scheme,
                authority: authority,
                path: request.path ?? "/"
            )
            // The base string (§3.4.1), built as the signer builds it: every name and value
            // encoded twice in one pass, sorted by index, copied out.
            var capacity = 0
            for parameter in requestParameters { capacity += parameter.name.utf8.count + parameter.value.utf8.count }
            for parameter in protocolParameters { capacity += parameter.name.utf8.count + parameter.value.utf8.count }
            var pairs = EncodedPairs(capacity: capacity, form: .twice)
            for parameter in requestParameters { pairs.append(name: parameter.name, value: parameter.value) }
            for parameter in protocolParameters { pairs.append(name: parameter.name, value: parameter.value) }
            pairs.sort()
            self.placement = placement
            self.realm = realm
            self.protocolParameters = protocolParameters
            self.requestParameters = requestParameters
            self.signature = signature
            self.signatureMethod = method
            self.signatureBaseString = String(
                decoding: pairs.baseString(method: request.method.rawValue, baseStringURI: baseStringURI),
                as: UTF8.self
            )
        }

        /// The value of the protocol parameter `name` (`oauth_…`), if sent.
        public func protocolParameter(_ name: String) -> String? {
            protocolParameters.first { $0.name == name }?.value
        }

        /// `oauth_consumer_key`.
        public var consumerKey: String { protocolParameter("oauth_consumer_key") ?? "" }
        /// `oauth_token`, absent on a temporary-credential request.
        public var token: String? { protocolParameter("oauth_token") }
        /// `oauth_nonce`.
        public var nonce: String? { protocolParameter("oauth_nonce") }
        /// `oauth_timestamp`, as sent.
        public var timestamp: String? { protocolParameter("oauth_timestamp") }
        /// `oauth_callback`.
        public var callback: String? { protocolParameter("oauth_callback") }
        /// `oauth_verifier`.
        public var verifier: String? { protocolParameter("oauth_verifier") }

        /// Checks that `oauth_timestamp` is a number of seconds within `window` of `now`
        /// (RFC 5849 §3.3 leaves the window to the server; 300 s is common).
        public func checkTimestamp(now: Int64, window: Int64 = 300) throws {
            guard let text = timestamp else {
                if signatureMethod == .plaintext { return }
                throw OAuth1Error(.missingParameter, "oauth_timestamp is absent", parameter: "oauth_timestamp")
            }
            guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
                let value = Int64(text)
            else {
                throw OAuth1Error(
                    .timestampRefused,
                    "oauth_timestamp '\(text)' is not a number of seconds",
                    parameter: "oauth_timestamp"
                )
            }
            guard abs(value - now) <= window else {
                throw OAuth1Error(
                    .timestampRefused,
                    "oauth_timestamp is \(value - now) s from the server's clock (window ±\(window) s)",
                    parameter: "oauth_timestamp"
                )
            }
        }

        /// Verifies the signature with the client's secret and, when the request carries a
        /// token, that token's secret (HMAC-SHA1, HMAC-SHA256, PLAINTEXT), or with the client's
        /// RSA public key (RSA-SHA1). The comparison takes constant time.
        ///
        /// - Throws: ``OAuth1Error/Code-swift.struct/invalidSignature`` when the signature does
        ///   not match; ``OAuth1Error/Code-swift.struct/missingKey`` for RSA-SHA1 without `publicKey`.
        public func verify(clientSecret: Secret, tokenSecret: Secret?, publicKey: RSAPublicKey? = nil) throws {
            let valid: Bool
            let baseString = Array(signatureBaseString.utf8)
            switch signatureMethod {
            case .hmacSHA1, .hmacSHA256:
                let key = Signer.signingKey(clientSecret: clientSecret, tokenSecret: tokenSecret)
                guard let received = RemoteAuthBase64.decode(signature) else {
                    throw OAuth1Error(.invalidSignature, "oauth_signature is not Base64", parameter: "oauth_signature")
                }
                if signatureMethod == .hmacSHA1 {
                    valid = KeyedHMAC<Insecure.SHA1>(key: key).isValidAuthenticationCode(received, for: baseString)
                } else {
                    valid = KeyedHMAC<SHA256>(key: key).isValidAuthenticationCode(received, for: baseString)
                }
            case .plaintext:
                let expected = Signer.signingKey(clientSecret: clientSecret, tokenSecret: tokenSecret)
                valid = constantTimeEquals(expected, Array(signature.utf8))
            case .rsaSHA1:
                guard let publicKey else {
                    throw OAuth1Error(.missingKey, "RSA-SHA1 is verified with the client's RSA public key")
                }
                guard let received = RemoteAuthBase64.decode(signature) else {
                    throw OAuth1Error(.invalidSignature, "oauth_signature is not Base64", parameter: "oauth_signature")
                }
                valid = publicKey.isValidSignature(received, for: baseString)
            default:
                throw OAuth1Error(
                    .unsupportedSignatureMethod,
                    "oauth_signature_method '\(signatureMethod.rawValue)' is not supported"
                )
            }
            guard valid else {
                throw OAuth1Error(
                    .invalidSignature,
                    "oauth_signature does not match the request",
                    parameter: "oauth_signature"
                )
            }
        }

        /// ``verify(clientSecret:tokenSecret:publicKey:)`` with the secrets as plain strings.
        public func verify(clientSecret: String, tokenSecret: String?, publicKey: RSAPublicKey? = nil) throws {
            try verify(
                clientSecret: Secret(clientSecret),
                tokenSecret: tokenSecret.map { Secret($0) },
                publicKey: publicKey
            )
        }
    }

    /// The `Authorization: OAuth` header: [RFC 5849 §3.5.1](https://www.rfc-editor.org/rfc/rfc5849#section-3.5.1).
    public enum AuthorizationHeader {
        /// Parses an `Authorization` value (or a `WWW-Authenticate` challenge of the `OAuth`
        /// scheme). Returns `nil` when its scheme is not `OAuth` (compared case-insensitively);
        /// otherwise the `realm` and the other parameters, names and values percent-decoded
        /// (§3.6). The grammar is the package's one auth-param parser: `OAuth 1*SP #auth-param`
        /// ([RFC 9110 §11.4](https://www.rfc-editor.org/rfc/rfc9110#section-11.4),
        /// [§11.2](https://www.rfc-editor.org/rfc/rfc9110#section-11.2)); a name may repeat here,
        /// and ``ReceivedRequest`` refuses a repeated `oauth_*` parameter.
        ///
        /// - Throws: ``OAuth1Error/Code-swift.struct/malformedHeader`` when the parameters do not
        ///   follow `name="value"` separated by commas.
        public static func parse(_ value: String) throws -> (realm: String?, parameters: [Parameter])? {
            var parser = AuthFieldParser(value)
            guard asciiCaseInsensitiveEquals(parser.readCredentialsScheme(), "OAuth") else { return nil }
            let content: AuthFieldParser.CredentialsContent
            do {
                content = try parser.parseCredentialsContent()
            } catch let error as ChallengeError {
                throw OAuth1Error(.malformedHeader, error.reason)
            }
            if content.token68 != nil {
                throw OAuth1Error(.malformedHeader, "expected name=\"value\" parameters after 'OAuth'")
            }
            var realm: String? = nil
            var parameters: [Parameter] = []
            for parameter in content.parameters {
                let name = try PercentEncoding.decode(parameter.name)
                if asciiCaseInsensitiveEquals(name, "realm") {
                    // A quoted-string, not percent-encoded.
                    realm = parameter.value
                } else {
                    parameters.append(Parameter(name, try PercentEncoding.decode(parameter.value)))
                }
            }
            return (realm, parameters)
        }
    }
}
