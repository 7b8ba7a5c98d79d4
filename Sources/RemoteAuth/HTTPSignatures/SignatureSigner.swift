public import HTTPTypes

extension HTTPMessageSignatures {
    /// Signs requests and responses: builds the signature input (the covered components, then
    /// `created`, `expires`, `nonce`, `keyid`, `alg`, `tag`), the signature base (§2.5), the
    /// signature (§3.1), and appends `Signature-Input` and `Signature` under ``label``, leaving
    /// other signatures in place (§4).
    /// [RFC 9421 §3.1](https://www.rfc-editor.org/rfc/rfc9421#section-3.1)
    ///
    /// The clock and the nonce source are parameters (no clock or randomness of its own).
    /// `description` and `dump` show the label, key id and algorithm only.
    public struct Signer: Sendable, CustomStringConvertible, CustomReflectable {
        /// The key that signs, with its algorithm and key id.
        public let key: SigningKey
        /// The signature's label in `Signature-Input` and `Signature` (§4.1).
        public var label: String {
            didSet { labelIsKey = MessageSignatures.isKey(label) }
        }
        /// Whether ``label`` is a structured field key (RFC 8941 §3.2), checked once.
        private var labelIsKey: Bool
        /// The covered components, in order.
        public var components: [ComponentIdentifier] {
            didSet { serializedComponents = Self.serialize(components) }
        }
        /// ``components``' identifiers serialized (§2.5 step 2.2), once; `nil` when one cannot be.
        private var serializedComponents: [String]?
        /// Send `alg` (§2.3). The verifier's allow-list decides in any case.
        public var includesAlgorithm = true {
            didSet { serializedTail = Self.serializeTail(tailParameters) }
        }
        /// Seconds after `created` when the signature expires (`expires`, §2.3); `nil` sends none.
        public var lifetime: Int64? = 300
        /// `tag` (§2.3): the application or profile the signature is for.
        public var tag: String? {
            didSet { serializedTail = Self.serializeTail(tailParameters) }
        }
        /// The parameters that are the same in every signature (`keyid`, `alg`, `tag`: the last
        /// ones ``signatureInput(created:)`` writes), serialized once; `nil` when they cannot be.
        private var serializedTail: (count: Int, text: String)?
        /// Where `nonce` values come from (§2.3, §7.2.2); `nil` sends none.
        public var nonceSource: RandomSource?
        /// A `nonce` given (§2.3), such as the one an `Accept-Signature` asks for (§5.1); it
        /// takes the place of ``nonceSource``'s.
        public var nonce: String?
        let now: @Sendable () -> Int64

        /// - Parameter now: the clock, seconds since 1970 (`created`).
        /// - Parameter key: the key that signs, with its algorithm and key id.
        /// - Parameter label: the signature's label in `Signature-Input` and `Signature`.
        /// - Parameter components: the covered components, in order.
        public init(
            key: SigningKey,
            label: String = "sig1",
            components: [ComponentIdentifier],
            now: @escaping @Sendable () -> Int64 = UnixTime.now
        ) {
            self.key = key
            self.label = label
            self.labelIsKey = MessageSignatures.isKey(label)
            self.components = components
            self.serializedComponents = Self.serialize(components)
            self.now = now
            self.serializedTail = Self.serializeTail(tailParameters)
        }

        private static func serialize(_ components: [ComponentIdentifier]) -> [String]? {
            try? components.map { try $0.serialized() }
        }

        /// `keyid`, `alg` (with ``includesAlgorithm``) and `tag` (when set), in that order.
        private var tailParameters: [SignatureParameter] {
            var parameters: [SignatureParameter] = [.keyID(key.keyID)]
            if includesAlgorithm { parameters.append(.algorithm(key.algorithm)) }
            if let tag { parameters.append(.tag(tag)) }
            return parameters
        }

        private static func serializeTail(_ parameters: [SignatureParameter]) -> (count: Int, text: String)? {
            (try? SignatureInput.serialize(parameters: parameters)).map { (parameters.count, $0) }
        }

        /// What was signed: the signature input, the signature base, and the signature.
        public struct Signed: Sendable, Hashable {
            /// The signature's label.
            public let label: String
            /// The covered components and parameters (`Signature-Input`).
            public let input: SignatureInput
            /// The signature base (§2.5), for comparing with what the verifier says it expected.
            public let signatureBase: String
            /// The signature's bytes (`Signature`).
            public let signature: [UInt8]
        }

        /// The signature input this signer sends at `created`.
        public func signatureInput(created: Int64) -> SignatureInput {
            var parameters: [SignatureParameter] = []
            parameters.reserveCapacity(6)
            parameters.append(.created(created))
            if let lifetime { parameters.append(.expires(created + lifetime)) }
            if let nonce {
                parameters.append(.nonce(nonce))
            } else if let nonceSource {
                parameters.append(.nonce(RemoteAuthBase64URL.encode(nonceSource.bytes(16))))
            }
            parameters.append(contentsOf: tailParameters)
            return SignatureInput(components: components, parameters: parameters)
        }

        /// Signs `request` and appends its `Signature-Input` and `Signature`.
        /// - Throws: ``Error`` (a §2.5 rule, ``Error/Code/duplicateLabel``).
        @discardableResult
        public func sign(_ request: inout HTTPRequest, trailerFields: HTTPFields? = nil) throws -> Signed {
            let (signed, parameters) = try sign(
                .request(request, trailerFields: trailerFields),
                input: signatureInput(created: now()),
                serializedComponents: serializedComponents,
                tail: serializedTail
            )
            try MessageSignatures.append(
                label: label,
                input: signed.input,
                signature: signed.signature,
                to: &request.headerFields,
                serializedInput: parameters,
                checkedLabel: labelIsKey
            )
            return signed
        }

        /// Signs `response` (with `request` for `req` components, §2.4) and appends its
        /// `Signature-Input` and `Signature`.
        /// - Throws: ``Error`` (a §2.5 rule, ``Error/Code/duplicateLabel``).
        @discardableResult
        public func sign(_ response: inout HTTPResponse, for request: HTTPRequest? = nil) throws -> Signed {
            let (signed, parameters) = try sign(
                .response(response, for: request),
                input: signatureInput(created: now()),
                serializedComponents: serializedComponents,
                tail: serializedTail
            )
            try MessageSignatures.append(
                label: label,
                input: signed.input,
                signature: signed.signature,
                to: &response.headerFields,
                serializedInput: parameters,
                checkedLabel: labelIsKey
            )
            return signed
        }

        /// Signs `message` with an explicit `input` (its parameters as given, in order), without
        /// writing any field.
        public func sign(_ message: Message, input: SignatureInput) throws -> Signed {
            // The signer's serialized identifiers stand for the input's only when they are the
            // same identifiers written the same way (`==` ignores the parameters' order).
            let same = input.components.elementsEqual(components) {
                $0.name == $1.name && $0.parameters == $1.parameters
            }
            return try sign(message, input: input, serializedComponents: same ? serializedComponents : nil).signed
        }

        /// The signature, and the serialized signature parameters. `tail` (the signer's own
        /// last parameters, serialized) only with an input from ``signatureInput(created:)``.
        private func sign(
            _ message: Message,
            input: SignatureInput,
            serializedComponents: [String]?,
            tail: (count: Int, text: String)? = nil
        ) throws -> (signed: Signed, parameters: String) {
            let (base, parameters) = try HTTPMessageSignatures.signatureBase(
                for: message,
                input: input,
                serializedComponents: serializedComponents,
                tail: tail
            )
            let signature = try key.signature(for: base)
            let text = String(decoding: base, as: UTF8.self)
            return (Signed(label: label, input: input, signatureBase: text, signature: signature), parameters)
        }

        public var description: String { "HTTPMessageSignatures.Signer(\(label), \(key))" }

        public var customMirror: Mirror {
            Mirror(
                self,
                children: ["label": label, "keyID": key.keyID, "algorithm": key.algorithm.rawValue],
                displayStyle: .struct
            )
        }
    }
}
