import Crypto
public import HTTPTypes

extension OAuth1 {
    /// Signs requests for one client and, optionally, one token.
    ///
    /// The HMAC key (`encode(client secret) & encode(token secret)`, §3.4.2) is set up once, when
    /// the signer is made, so each signature costs one keyed hash over the base string.
    ///
    /// ```swift
    /// let signer = try OAuth1.Signer(client: client, token: token)
    /// let signed = try signer.sign(request, body: body, nonce: OAuth1.Nonce.random(), timestamp: now)
    /// ```
    public struct Signer: Sendable, CustomStringConvertible, CustomReflectable {
        /// What a signer holds, shared by its copies: copying a signer (into a closure, a task,
        /// a transport) costs one reference count, not one per string and key.
        private final class Storage: Sendable {
            let client: ClientCredentials
            let token: TokenCredentials?
            let signatureMethod: SignatureMethod
            let privateKey: RSAPrivateKey?
            let hmacSHA1: KeyedHMAC<Insecure.SHA1>?
            let hmacSHA256: KeyedHMAC<SHA256>?
            let plaintextSignature: String
            let verbatim: (consumerKey: Bool, token: Bool, signatureMethod: Bool)

            init(
                client: ClientCredentials, token: TokenCredentials?, signatureMethod: SignatureMethod,
                privateKey: RSAPrivateKey?, hmacSHA1: KeyedHMAC<Insecure.SHA1>?, hmacSHA256: KeyedHMAC<SHA256>?,
                plaintextSignature: String, verbatim: (consumerKey: Bool, token: Bool, signatureMethod: Bool)
            ) {
                self.client = client
                self.token = token
                self.signatureMethod = signatureMethod
                self.privateKey = privateKey
                self.hmacSHA1 = hmacSHA1
                self.hmacSHA256 = hmacSHA256
                self.plaintextSignature = plaintextSignature
                self.verbatim = verbatim
            }
        }

        private let storage: Storage

        /// The client credentials that sign.
        public var client: ClientCredentials { storage.client }
        /// The token credentials that sign, if any.
        public var token: TokenCredentials? { storage.token }
        /// The signature method.
        public var signatureMethod: SignatureMethod { storage.signatureMethod }
        var privateKey: RSAPrivateKey? { storage.privateKey }
        var hmacSHA1: KeyedHMAC<Insecure.SHA1>? { storage.hmacSHA1 }
        var hmacSHA256: KeyedHMAC<SHA256>? { storage.hmacSHA256 }
        var plaintextSignature: String { storage.plaintextSignature }
        /// Whether the consumer key, the token and the method name are all unreserved (§3.6),
        /// as they nearly always are: then they are copied as they are, never re-encoded.
        var verbatim: (consumerKey: Bool, token: Bool, signatureMethod: Bool) { storage.verbatim }

        /// - Throws: ``OAuth1Error/Code-swift.struct/unsupportedSignatureMethod`` for a method this
        ///   library does not implement; ``OAuth1Error/Code-swift.struct/missingKey`` for RSA-SHA1
        ///   without a private key.
        public init(
            client: ClientCredentials,
            token: TokenCredentials? = nil,
            signatureMethod: SignatureMethod = .hmacSHA1,
            privateKey: RSAPrivateKey? = nil
        ) throws {
            let key = Self.signingKey(clientSecret: client.secret, tokenSecret: token?.secret)
            let verbatim = (
                client.key.utf8.allSatisfy(PercentOctets.isUnreserved),
                token?.token.utf8.allSatisfy(PercentOctets.isUnreserved) ?? true,
                signatureMethod.rawValue.utf8.allSatisfy(PercentOctets.isUnreserved)
            )
            var hmacSHA1: KeyedHMAC<Insecure.SHA1>?
            var hmacSHA256: KeyedHMAC<SHA256>?
            switch signatureMethod {
            case .hmacSHA1:
                hmacSHA1 = KeyedHMAC(key: key)
            case .hmacSHA256:
                hmacSHA256 = KeyedHMAC(key: key)
            case .rsaSHA1:
                guard privateKey != nil else {
                    throw OAuth1Error(.missingKey, "RSA-SHA1 needs the client's RSA private key")
                }
            case .plaintext:
                break
            default:
                throw OAuth1Error(
                    .unsupportedSignatureMethod,
                    "'\(signatureMethod.rawValue)' is not one of HMAC-SHA1, HMAC-SHA256, RSA-SHA1, PLAINTEXT"
                )
            }
            storage = Storage(
                client: client, token: token, signatureMethod: signatureMethod, privateKey: privateKey,
                hmacSHA1: hmacSHA1, hmacSHA256: hmacSHA256, plaintextSignature: String(decoding: key, as: UTF8.self),
                verbatim: verbatim
            )
        }

        public var description: String {
            "Signer(\(client), token: \(token.map(\.description) ?? "none"), method: \(signatureMethod))"
        }
        /// The key material stays out of `dump` and test output.
        public var customMirror: Mirror {
            Mirror(
                self,
                children: ["client": client, "token": token as Any, "signatureMethod": signatureMethod],
                displayStyle: .struct
            )
        }

        /// The HMAC key and the PLAINTEXT signature: the encoded client secret, `&`, the encoded
        /// token secret (empty when there is no token).
        /// [RFC 5849 §3.4.2](https://www.rfc-editor.org/rfc/rfc5849#section-3.4.2),
        /// [§3.4.4](https://www.rfc-editor.org/rfc/rfc5849#section-3.4.4)
        static func signingKey(clientSecret: Secret, tokenSecret: Secret?) -> [UInt8] {
            var key: [UInt8] = []
            clientSecret.withRevealedUTF8 { PercentEncoding.append(encoding: $0, to: &key) }
            key.append(UInt8(ascii: "&"))
            tokenSecret?.withRevealedUTF8 { PercentEncoding.append(encoding: $0, to: &key) }
            return key
        }

        /// Signs `request`, whose parameters come from its query and, when its `Content-Type` is
        /// `application/x-www-form-urlencoded`, from `body` (§3.4.1.3.1).
        ///
        /// - Parameters:
        ///   - nonce: `oauth_nonce` (§3.3), unique per timestamp; ``Nonce/random()`` makes one.
        ///     `nil` omits it, which only PLAINTEXT allows.
        ///   - timestamp: `oauth_timestamp`, seconds since 1970-01-01 UTC in decimal (§3.3), such
        ///     as `String(Int(Date().timeIntervalSince1970))`; `nil` omits it, which only PLAINTEXT
        ///     allows. It is signed as given.
        ///   - request: the request to sign.
        ///   - body: its body; signed when it is a form (`application/x-www-form-urlencoded`).
        ///   - options: the placement, realm, callback and verifier.
        public func sign(
            _ request: HTTPRequest,
            body: [UInt8]? = nil,
            options: SigningOptions = SigningOptions(),
            nonce: String?,
            timestamp: String?
        ) throws -> SignedRequest {
            let computed = try compute(request, body: body, options: options, nonce: nonce, timestamp: timestamp)
            let protocolParameters = computed.values.parameters
            let isForm = computed.isForm
            let signature = computed.values.signature
            let baseString = computed.baseString
            let authorization = Self.authorizationHeader(computed.values, realm: options.realm)
            var signedRequest = request
            var signedBody = body
            switch options.placement {
            case .header:
                signedRequest.headerFields.append(HTTPField(name: .authorization, value: authorization))
            case .query:
                var extended = Array((request.path ?? "/").utf8)
                let mark = extended.firstIndex(of: UInt8(ascii: "?"))
                var separator = mark == nil ? UInt8(ascii: "?") : UInt8(ascii: "&")
                if let mark, mark == extended.count - 1 { separator = 0 }
                for parameter in protocolParameters {
                    if separator != 0 { extended.append(separator) }
                    separator = UInt8(ascii: "&")
                    Self.appendFormPair(parameter, to: &extended)
                }
                signedRequest.path = String(decoding: extended, as: UTF8.self)
            case .body:
                // §3.5.2: the parameters go in a form entity-body (a non-form body is refused in
                // `compute`); GET and HEAD have no body a server must read (RFC 9110 §9.3.1, §9.3.2).
                if request.method == .get || request.method == .head {
                    throw OAuth1Error(
                        .malformedRequest,
                        "body placement (RFC 5849 §3.5.2) needs a request with a body, not \(request.method.rawValue): use header or query placement"
                    )
                }
                var extended = body ?? []
                for parameter in protocolParameters {
                    if !extended.isEmpty { extended.append(UInt8(ascii: "&")) }
                    Self.appendFormPair(parameter, to: &extended)
                }
                if !isForm {
                    signedRequest.headerFields[.contentType] = FormURLEncoding.mediaType
                }
                signedBody = extended
            }
            return SignedRequest(
                request: signedRequest,
                body: signedBody,
                signatureBaseStringBytes: baseString,
                signature: signature,
                protocolParameters: protocolParameters,
                authorization: authorization
            )
        }

        /// ``sign(_:body:options:nonce:timestamp:)-(_,_,_,_,String?)`` with the time as the rest of the OAuth 1.0a
        /// API takes it: `Int64` seconds since 1970-01-01 UTC (§3.3), from the caller's clock.
        public func sign(
            _ request: HTTPRequest,
            body: [UInt8]? = nil,
            options: SigningOptions = SigningOptions(),
            nonce: String?,
            timestamp: Int64
        ) throws -> SignedRequest {
            try sign(request, body: body, options: options, nonce: nonce, timestamp: String(timestamp))
        }

        /// The `Authorization` value for `request` (§3.5.1), and nothing else: what
        /// ``sign(_:body:options:nonce:timestamp:)-(_,_,_,_,String?)`` puts in the header, without building the
        /// signed request around it.
        public func authorization(
            for request: HTTPRequest,
            body: [UInt8]? = nil,
            options: SigningOptions = SigningOptions(),
            nonce: String?,
            timestamp: String?
        ) throws -> String {
            let computed = try compute(
                request,
                body: body,
                options: options,
                nonce: nonce,
                timestamp: timestamp,
                keepingBaseString: false
            )
            return Self.authorizationHeader(computed.values, realm: options.realm)
        }

        struct Computed {
            var values: ProtocolValues
            var baseString: [UInt8]?
            var isForm: Bool
        }

        /// Collects the parameters (§3.4.1.3), builds the base string (§3.4.1) and signs it (§3.4).
        ///
        /// The request's parameters are decoded from the query and the form body and encoded
        /// twice in the same pass (once per §3.6, once more for §3.4.1.1 step 5), into one
        /// buffer sized up front; they are sorted by index, and the base string is copied out of
        /// that buffer in its final form.
        func compute(
            _ request: HTTPRequest,
            body: [UInt8]?,
            options: SigningOptions,
            nonce: String?,
            timestamp: String?,
            keepingBaseString: Bool = true
        ) throws -> Computed {
            guard let scheme = request.scheme, let authority = request.authority else {
                throw OAuth1Error(.malformedRequest, "the request has no scheme or authority")
            }
            let path = request.path ?? "/"
            // Protocol parameters (§3.1); `oauth_signature` is filled in last. Only the values are
            // taken from `options` (the closures below capture them, not a copy of the options).
            let storage = storage
            var values = ProtocolValues(
                callback: options.callback,
                consumerKey: storage.client.key,
                nonce: nonce,
                signature: "",
                signatureMethod: storage.signatureMethod.rawValue,
                timestamp: timestamp,
                token: storage.token?.token,
                verifier: options.verifier,
                includeVersion: options.includeVersion,
                verbatim: storage.verbatim
            )
            let placement = options.placement
            let (baseString, isForm) = try SignatureBaseString.withBaseStringURI(
                scheme: scheme,
                authority: authority,
                path: path
            ) {
                try compute(
                    request,
                    baseStringURI: $0,
                    path: path,
                    body: body,
                    placement: placement,
                    values: &values,
                    keepingBaseString: keepingBaseString
                )
            }
            return Computed(values: consume values, baseString: baseString, isForm: isForm)
        }

        /// ``compute(_:body:options:nonce:timestamp:keepingBaseString:)`` once the base string
        /// URI is known: fills in `values.signature`, returns the base string (when
        /// `keepingBaseString` is set; else it is signed from a temporary buffer) and whether the
        /// body is a form.
        @inline(__always)
        private func compute(
            _ request: HTTPRequest,
            baseStringURI: UnsafeBufferPointer<UInt8>,
            path: String,
            body: [UInt8]?,
            placement: Placement,
            values: inout ProtocolValues,
            keepingBaseString: Bool
        ) throws -> (baseString: [UInt8]?, isForm: Bool) {
            var path = path

            // Request parameters (§3.4.1.3.1): the query, then a form body.
            let isForm = FormURLEncoding.isFormEncoded(request.headerFields)
            var pairs = EncodedPairs(
                capacity: path.utf8.count + (body?.count ?? 0) + values.byteCount,
                form: .twice
            )
            try path.withUTF8 { path in
                if let mark = path.firstIndex(of: UInt8(ascii: "?")) {
                    try pairs.appendForm(UnsafeBufferPointer(rebasing: path[(mark + 1)...]))
                }
            }
            if placement == .body {
                guard isForm || (body ?? []).isEmpty else {
                    throw OAuth1Error(
                        .malformedRequest,
                        "body placement needs an application/x-www-form-urlencoded body (§3.5.2)"
                    )
                }
            }
            if isForm, let body, !body.isEmpty { try body.withUnsafeBufferPointer { try pairs.appendForm($0) } }
            for index in 0..<pairs.count where values.isSent(encodedName: pairs.name(at: index)) {
                // The name equals an unreserved `oauth_…` name, so its encoding is the name itself.
                let name = String(decoding: pairs.name(at: index), as: UTF8.self)
                throw OAuth1Error(.duplicateParameter, "the request already carries '\(name)'", parameter: name)
            }
            pairs.markProtocolParameters()
            values.forEach(withSignature: false) { name, value, verbatim in
                pairs.append(name: name, value: value, verbatim: verbatim)
            }

            // Signature (§3.4).
            var baseString: [UInt8]? = nil
            switch signatureMethod {
            case .plaintext:
                values.signature = plaintextSignature
            default:
                pairs.sort()
                if keepingBaseString {
                    let bytes = pairs.baseString(method: request.method.rawValue, baseStringURI: baseStringURI)
                    baseString = bytes
                    values.signature = try sign(baseString: bytes)
                } else {
                    values.signature = try pairs.withBaseString(
                        method: request.method.rawValue,
                        baseStringURI: baseStringURI
                    ) { try sign(baseStringBuffer: $0) }
                }
            }
            return (baseString, isForm)
        }

        /// Signs a base string with this signer's method and key, returning `oauth_signature`
        /// before its final encoding: Base64 of the HMAC (§3.4.2) or RSA (§3.4.3) signature.
        public func sign(baseString: [UInt8]) throws -> String {
            try baseString.withUnsafeBufferPointer { try sign(baseStringBuffer: $0) }
        }

        func sign(baseStringBuffer baseString: UnsafeBufferPointer<UInt8>) throws -> String {
            let baseString = UnsafeRawBufferPointer(baseString)
            switch signatureMethod {
            case .hmacSHA1:
                return hmacSHA1!.withAuthenticationCode(for: baseString) { RemoteAuthBase64.encode($0) }
            case .hmacSHA256:
                return hmacSHA256!.withAuthenticationCode(for: baseString) { RemoteAuthBase64.encode($0) }
            case .rsaSHA1:
                return RemoteAuthBase64.encode(try privateKey!.sign(Array(baseString)))
            default:
                return plaintextSignature
            }
        }

        static func appendFormPair(_ parameter: Parameter, to output: inout [UInt8]) {
            PercentEncoding.append(encoding: parameter.name.utf8, to: &output)
            output.append(UInt8(ascii: "="))
            PercentEncoding.append(encoding: parameter.value.utf8, to: &output)
        }

        /// `OAuth realm="…", name="value", …`: [RFC 5849 §3.5.1](https://www.rfc-editor.org/rfc/rfc5849#section-3.5.1),
        /// in the exact form Twitter documents (names in order, values encoded per §3.6 and
        /// quoted, separated by `", "`). The realm is a quoted-string (RFC 2617), not encoded.
        public static func authorizationHeader(_ protocolParameters: [Parameter], realm: String? = nil) -> String {
            var capacity = 6 + (realm.map { $0.utf8.count * 2 + 10 } ?? 0)
            for parameter in protocolParameters {
                capacity += (parameter.name.utf8.count + parameter.value.utf8.count) * 3 + 5
            }
            return String(writingAtMost: capacity) { out in
                var first = writeScheme(realm: realm, to: &out)
                for parameter in protocolParameters {
                    writeParameter(parameter.name, parameter.value, first: &first, to: &out)
                }
            }
        }

        /// ``authorizationHeader(_:realm:)`` straight from the values, without an array of them.
        static func authorizationHeader(_ values: borrowing ProtocolValues, realm: String?) -> String {
            let capacity = 6 + (realm.map { $0.utf8.count * 2 + 10 } ?? 0) + values.byteCount * 3 + 9 * 5
            return String(writingAtMost: capacity) { out in
                var first = writeScheme(realm: realm, to: &out)
                values.forEach(withSignature: true) { name, value, verbatim in
                    if !first { out.write(", ") }
                    first = false
                    out.write(name)  // unreserved
                    out.write("=\"")
                    if verbatim { out.write(contentsOf: value) } else { out.writeEncoded(value) }
                    out.write(UInt8(ascii: "\""))
                }
            }
        }

        /// `OAuth ` and the realm; returns whether no parameter has been written yet.
        @inline(__always)
        private static func writeScheme(realm: String?, to out: inout ByteWriter) -> Bool {
            out.write("OAuth ")
            guard let realm else { return true }
            out.write("realm=\"")
            for octet in realm.utf8 {
                if octet == UInt8(ascii: "\"") || octet == UInt8(ascii: "\\") { out.write(UInt8(ascii: "\\")) }
                out.write(octet)
            }
            out.write(UInt8(ascii: "\""))
            return false
        }

        @inline(__always)
        private static func writeParameter(_ name: String, _ value: String, first: inout Bool, to out: inout ByteWriter) {
            if !first { out.write(", ") }
            first = false
            out.writeEncoded(name)
            out.write("=\"")
            out.writeEncoded(value)
            out.write(UInt8(ascii: "\""))
        }
    }
}
