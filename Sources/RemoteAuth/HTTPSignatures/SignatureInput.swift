public import HTTPTypes
import RawStructuredFieldValues

extension HTTPMessageSignatures {
    /// A signature parameter: [RFC 9421 §2.3](https://www.rfc-editor.org/rfc/rfc9421#section-2.3).
    /// The six of the registry have constructors; others received in a `Signature-Input` are
    /// kept (they are covered by `@signature-params`).
    public struct SignatureParameter: Sendable, Hashable, CustomStringConvertible {
        /// A parameter's value: the bare item types RFC 9421's parameters use.
        public enum Value: Sendable, Hashable {
            /// An integer, such as `created` or `expires`.
            case integer(Int64)
            /// A string, such as `nonce`, `alg`, `keyid` or `tag`.
            case string(String)
            /// A token (an unquoted bare item).
            case token(String)
            /// A boolean.
            case boolean(Bool)
        }

        /// The parameter's name (`created`, `keyid`, …).
        public let name: String
        /// The parameter's value.
        public let value: Value

        /// A parameter named `name` with `value`.
        public init(name: String, value: Value) {
            self.name = name
            self.value = value
        }

        /// `created`: when the signature was made, seconds since 1970.
        public static func created(_ seconds: Int64) -> Self { Self(name: "created", value: .integer(seconds)) }
        /// `expires`: when the signature stops being valid, seconds since 1970.
        public static func expires(_ seconds: Int64) -> Self { Self(name: "expires", value: .integer(seconds)) }
        /// `nonce`: a value the verifier may remember to refuse replays.
        public static func nonce(_ value: String) -> Self { Self(name: "nonce", value: .string(value)) }
        /// `alg`: the algorithm.
        public static func algorithm(_ algorithm: Algorithm) -> Self {
            Self(name: "alg", value: .string(algorithm.rawValue))
        }
        /// `keyid`: names the key.
        public static func keyID(_ value: String) -> Self { Self(name: "keyid", value: .string(value)) }
        /// `tag`: names the application or profile the signature is for.
        public static func tag(_ value: String) -> Self { Self(name: "tag", value: .string(value)) }

        var bareItem: RFC9651BareItem {
            switch value {
            case .integer(let value): .integer(value)
            case .string(let value): .string(value)
            case .token(let value): .token(value)
            case .boolean(let value): .bool(value)
            }
        }

        public var description: String { "\(name)=\(value)" }
    }

    /// A signature's covered components and parameters: one member of `Signature-Input`, and
    /// the value of `@signature-params`.
    /// [RFC 9421 §2.3](https://www.rfc-editor.org/rfc/rfc9421#section-2.3),
    /// [§4.1](https://www.rfc-editor.org/rfc/rfc9421#section-4.1)
    public struct SignatureInput: Sendable, Hashable, CustomStringConvertible {
        /// The covered components, in order.
        public var components: [ComponentIdentifier]
        /// The parameters, in the order they are serialized.
        public var parameters: [SignatureParameter]

        /// A signature input covering `components`, in order, with `parameters`, in serialization order.
        public init(components: [ComponentIdentifier], parameters: [SignatureParameter]) {
            self.components = components
            self.parameters = parameters
        }

        /// `created`, when present as an integer.
        public var created: Int64? { integer("created") }
        /// `expires`, when present as an integer.
        public var expires: Int64? { integer("expires") }
        /// `nonce`, when present as a string.
        public var nonce: String? { string("nonce") }
        /// `alg`, when present as a string.
        public var algorithm: Algorithm? { string("alg").map(Algorithm.init(rawValue:)) }
        /// `keyid`, when present as a string.
        public var keyID: String? { string("keyid") }
        /// `tag`, when present as a string.
        public var tag: String? { string("tag") }

        private func integer(_ name: String) -> Int64? {
            guard case .integer(let value)? = parameters.first(where: { $0.name == name })?.value else { return nil }
            return value
        }

        private func string(_ name: String) -> String? {
            guard case .string(let value)? = parameters.first(where: { $0.name == name })?.value else { return nil }
            return value
        }

        /// The inner list: `("@method" "@path");created=1618884473;keyid="test-key-rsa-pss"`.
        var innerList: InnerList {
            var items = BareInnerList()
            for component in components { items.append(component.item) }
            var map = OrderedMap<String, RFC9651BareItem>()
            for parameter in parameters { map[parameter.name] = parameter.bareItem }
            return InnerList(bareInnerList: items, parameters: map)
        }

        /// The serialized value of `@signature-params` and of this signature's member of
        /// `Signature-Input` (§2.3).
        public func serialized() throws -> String {
            do {
                return try StructuredFields.serialize([.innerList(innerList)])
            } catch {
                throw Error(.malformedSignatureInput, "a component or parameter cannot be serialized: \(error)")
            }
        }

        /// ``serialized()``, given the components' identifiers already serialized (a signer's,
        /// serialized once, one per component, in order) and, optionally, its last parameters
        /// already serialized (`tail`: how many, and their serialization, such as
        /// `;keyid="k";alg="ed25519"`).
        ///
        /// [RFC 8941 §4.1.1.1](https://www.rfc-editor.org/rfc/rfc8941#section-4.1.1.1): an inner
        /// list is "(", its members serialized and separated by a space, ")", then its parameters
        /// serialized, which [§4.1.1.2](https://www.rfc-editor.org/rfc/rfc8941#section-4.1.1.2)
        /// writes one after the other, each ";" and its key (and "=" and its value). The other
        /// parameters are serialized by swift-http-structured-headers, as those of an empty inner
        /// list, whose serialization is "()" followed by them; the members and the tail are taken
        /// as given.
        func serialized(components serializedComponents: [String], tail: (count: Int, text: String)? = nil) throws
            -> String
        {
            precondition(serializedComponents.count == components.count, "one identifier per component")
            let tailCount = tail?.count ?? 0
            precondition(tailCount <= parameters.count, "a tail of the parameters")
            var serializedHead = ""
            if parameters.count > tailCount {
                let map = StructuredFields.parameters(parameters.dropLast(tailCount).map { ($0.name, $0.bareItem) })
                do {
                    serializedHead = try StructuredFields.serialize(
                        [.innerList(InnerList(bareInnerList: BareInnerList(), parameters: map))]
                    )
                } catch {
                    throw Error(.malformedSignatureInput, "a parameter cannot be serialized: \(error)")
                }
            }
            let head = serializedHead.utf8.dropFirst(2)  // "()"
            let tailText = tail?.text ?? ""
            var length = 2 + head.count + tailText.utf8.count + max(0, serializedComponents.count - 1)
            for component in serializedComponents { length += component.utf8.count }
            return String(writingAtMost: length) { writer in
                writer.write(UInt8(ascii: "("))
                for (index, component) in serializedComponents.enumerated() {
                    if index > 0 { writer.write(UInt8(ascii: " ")) }
                    writer.write(contentsOf: component)
                }
                writer.write(UInt8(ascii: ")"))
                writer.write(head)
                writer.write(contentsOf: tailText)
            }
        }

        /// `parameters` serialized by swift-http-structured-headers (RFC 8941 §4.1.1.2), as those
        /// of an empty inner list without its "()": `;keyid="k";alg="ed25519"`.
        static func serialize(parameters: [SignatureParameter]) throws -> String {
            let map = StructuredFields.parameters(parameters.map { ($0.name, $0.bareItem) })
            do {
                let list = try StructuredFields.serialize([.innerList(InnerList(bareInnerList: BareInnerList(), parameters: map))])
                return String(list.dropFirst(2))
            } catch {
                throw Error(.malformedSignatureInput, "a parameter cannot be serialized: \(error)")
            }
        }

        public var description: String { (try? serialized()) ?? "SignatureInput(<unserializable>)" }

        /// Reads one member of `Signature-Input`.
        /// - Throws: ``Error/Code/malformedSignatureInput`` for anything but an inner list of
        ///   strings, a known parameter of the wrong type (§2.3: `created` and `expires` are
        ///   integers, `nonce`, `alg`, `keyid` and `tag` strings), or a parameter repeated.
        init(member: ItemOrInnerList, label: String) throws {
            guard case .innerList(let list) = member else {
                throw Error(.malformedSignatureInput, "the member '\(label)' is not an inner list")
            }
            components = try list.bareInnerList.map { try ComponentIdentifier(item: $0) }
            var parameters: [SignatureParameter] = []
            for (name, item) in list.rfc9651Parameters {
                let value: SignatureParameter.Value
                switch item {
                case .integer(let number): value = .integer(number)
                case .string(let text): value = .string(text)
                case .token(let text): value = .token(text)
                case .bool(let flag): value = .boolean(flag)
                default:
                    throw Error(
                        .malformedSignatureInput,
                        "the parameter '\(name)' of '\(label)' has a type RFC 9421 does not use"
                    )
                }
                switch (name, value) {
                case ("created", .integer), ("expires", .integer): break
                case ("nonce", .string), ("alg", .string), ("keyid", .string), ("tag", .string): break
                case ("created", _), ("expires", _):
                    throw Error(.malformedSignatureInput, "'\(name)' of '\(label)' is not an integer (RFC 9421 §2.3)")
                case ("nonce", _), ("alg", _), ("keyid", _), ("tag", _):
                    throw Error(.malformedSignatureInput, "'\(name)' of '\(label)' is not a string (RFC 9421 §2.3)")
                default: break
                }
                parameters.append(SignatureParameter(name: name, value: value))
            }
            self.parameters = parameters
        }
    }

    /// The signatures a message carries: the members of its `Signature-Input` and `Signature`
    /// fields, by label, in the order of `Signature-Input`.
    /// [RFC 9421 §4](https://www.rfc-editor.org/rfc/rfc9421#section-4)
    public struct MessageSignatures: Sendable, Hashable {
        /// One labelled signature.
        public struct Entry: Sendable, Hashable {
            /// The signature's label, its key in `Signature-Input` and `Signature`.
            public let label: String
            /// The covered components and parameters, from `Signature-Input`.
            public let input: SignatureInput
            /// The signature's octets.
            public let signature: [UInt8]
        }

        /// The labelled signatures, in the order of `Signature-Input`.
        public let entries: [Entry]

        /// The labels, in order.
        public var labels: [String] { entries.map(\.label) }

        /// The signature labelled `label`, or `nil` when the message has none by that label.
        public subscript(label: String) -> Entry? { entries.first { $0.label == label } }

        /// Reads `Signature-Input` and `Signature` of `fields`: each field's lines combined
        /// (RFC 9110 §5.3), parsed as dictionaries.
        /// - Throws: ``Error/Code/malformedSignatureInput``, ``Error/Code/malformedSignature``;
        ///   ``Error/Code/duplicateLabel`` when two field lines of either field use one label
        ///   (within one line, RFC 8941 §4.2.2 keeps the last, as the parser does);
        ///   ``Error/Code/signatureNotFound`` when a label is in one field and not the other.
        public init(_ fields: HTTPFields) throws {
            let inputs = try Self.dictionary(
                fields,
                HTTPMessageSignatures.signatureInputField,
                code: .malformedSignatureInput
            )
            let signatures = try Self.dictionary(
                fields,
                HTTPMessageSignatures.signatureField,
                code: .malformedSignature
            )
            var entries: [Entry] = []
            for (label, member) in inputs {
                guard let signatureMember = signatures[label] else {
                    throw Error(
                        .signatureNotFound,
                        "'\(label)' is in Signature-Input but not in Signature (RFC 9421 §4.2)"
                    )
                }
                guard case .item(let item) = signatureMember,
                    case .undecodedByteSequence(let base64) = item.rfc9651BareItem,
                    let octets = RemoteAuthBase64.decode(base64)
                else {
                    throw Error(
                        .malformedSignature,
                        "the member '\(label)' of Signature is not a byte sequence (RFC 9421 §4.2)"
                    )
                }
                entries.append(
                    Entry(label: label, input: try SignatureInput(member: member, label: label), signature: octets)
                )
            }
            for (label, _) in signatures where inputs[label] == nil {
                throw Error(.signatureNotFound, "'\(label)' is in Signature but not in Signature-Input (RFC 9421 §4.1)")
            }
            self.entries = entries
        }

        /// Parses every line of `name` on its own (to find a label used twice), then merges them.
        static func dictionary(
            _ fields: HTTPFields,
            _ name: HTTPField.Name,
            code: Error.Code
        ) throws
            -> StructuredFields.Dictionary
        {
            var merged = StructuredFields.Dictionary()
            for line in fields[values: name] {
                let dictionary: StructuredFields.Dictionary
                do { dictionary = try StructuredFields.parseDictionary(line) } catch {
                    throw Error(code, "\(name) is not a structured dictionary (RFC 8941 §3.2): \(error)")
                }
                for (label, member) in dictionary {
                    guard merged[label] == nil else {
                        throw Error(.duplicateLabel, "the label '\(label)' appears in two \(name) field lines")
                    }
                    merged[label] = member
                }
            }
            return merged
        }

        /// The labels `fields` already uses in `Signature-Input` or `Signature`.
        static func labels(in fields: HTTPFields) throws -> Set<String> {
            var labels = Set<String>()
            for name in [HTTPMessageSignatures.signatureInputField, HTTPMessageSignatures.signatureField] {
                for line in fields[values: name] {
                    guard let dictionary = try? StructuredFields.parseDictionary(line) else {
                        throw Error(
                            name == HTTPMessageSignatures.signatureField
                                ? .malformedSignature : .malformedSignatureInput,
                            "the message's \(name) is not a structured dictionary: a signature cannot be added to it"
                        )
                    }
                    for (label, _) in dictionary { labels.insert(label) }
                }
            }
            return labels
        }

        /// Appends one `Signature-Input` and one `Signature` field line for `label`, leaving
        /// the other signatures' lines as they are (a dictionary may span lines, RFC 8941 §3.2).
        ///
        /// `serializedInput` is the signature's inner list already serialized (the value of
        /// `@signature-params`); `checkedLabel` says that `label` is already known to be a
        /// structured field key (``isKey(_:)``), so each line can be written as one dictionary
        /// member: the key, "=", and the value serialized (RFC 8941 §4.1.2).
        /// - Throws: ``Error/Code/duplicateLabel`` when `fields` already uses `label` (§4.1:
        ///   labels are unique within a message).
        static func append(
            label: String,
            input: SignatureInput,
            signature: [UInt8],
            to fields: inout HTTPFields,
            serializedInput: String? = nil,
            checkedLabel: Bool = false
        ) throws {
            guard !(try labels(in: fields)).contains(label) else {
                throw Error(.duplicateLabel, "the message already has a signature labelled '\(label)'")
            }
            guard checkedLabel || isKey(label) else {
                throw Error(
                    .malformedSignatureInput,
                    "the label '\(label)' is not a structured field key (RFC 8941 §3.2)"
                )
            }
            let inputLine: String
            let signatureLine: String
            do {
                let value = try StructuredFields.serialize(
                    Item(bareItem: RFC9651BareItem.undecodedByteSequence(RemoteAuthBase64.encode(signature)), parameters: [:])
                )
                signatureLine = member(label, value)
                inputLine = member(label, try serializedInput ?? StructuredFields.serialize([.innerList(input.innerList)]))
            } catch {
                throw Error(.malformedSignatureInput, "the signature input cannot be serialized: \(error)")
            }
            fields.append(HTTPField(name: HTTPMessageSignatures.signatureInputField, value: inputLine))
            fields.append(HTTPField(name: HTTPMessageSignatures.signatureField, value: signatureLine))
        }

        /// One dictionary member: its key (a checked label), "=", and its value serialized
        /// ([RFC 8941 §4.1.2](https://www.rfc-editor.org/rfc/rfc8941#section-4.1.2)).
        private static func member(_ key: String, _ value: String) -> String {
            String(writingAtMost: key.utf8.count + value.utf8.count + 1) { writer in
                writer.write(contentsOf: key)
                writer.write(UInt8(ascii: "="))
                writer.write(contentsOf: value)
            }
        }

        /// Whether `label` is a structured field key (RFC 8941 §3.2), as swift-http-structured-
        /// headers judges it: a dictionary with that key serializes.
        static func isKey(_ label: String) -> Bool {
            let probe: StructuredFields.Dictionary = [label: .item(Item(bareItem: RFC9651BareItem.integer(1), parameters: [:]))]
            return (try? StructuredFields.serialize(probe)) != nil
        }
    }

    /// `Accept-Signature`: the signatures a party asks the other to send, by label, each an
    /// inner list of components with parameters (no `created` or signature yet).
    /// [RFC 9421 §5.1](https://www.rfc-editor.org/rfc/rfc9421#section-5.1)
    public struct AcceptSignature: Sendable, Hashable {
        /// The signatures asked for, by label, in order.
        public var requests: [(label: String, input: SignatureInput)] {
            get { entries.map { ($0.label, $0.input) } }
            set { entries = newValue.map { Entry(label: $0.label, input: $0.input) } }
        }

        struct Entry: Sendable, Hashable {
            let label: String
            let input: SignatureInput
        }

        private var entries: [Entry]

        /// An `Accept-Signature` asking for `requests`, by label, in order.
        public init(_ requests: [(label: String, input: SignatureInput)]) {
            entries = requests.map { Entry(label: $0.label, input: $0.input) }
        }

        /// Reads the `Accept-Signature` lines of `fields`.
        /// - Throws: ``Error/Code/malformedSignatureInput`` (its members have the shape of
        ///   `Signature-Input`'s), ``Error/Code/duplicateLabel``.
        public init(_ fields: HTTPFields) throws {
            let dictionary = try MessageSignatures.dictionary(
                fields,
                HTTPMessageSignatures.acceptSignatureField,
                code: .malformedSignatureInput
            )
            entries = try dictionary.map { label, member in
                Entry(label: label, input: try SignatureInput(member: member, label: label))
            }
        }

        /// The field value.
        public func fieldValue() throws -> String {
            var dictionary = StructuredFields.Dictionary()
            for entry in entries { dictionary[entry.label] = .innerList(entry.input.innerList) }
            do { return try StructuredFields.serialize(dictionary) } catch {
                throw Error(.malformedSignatureInput, "Accept-Signature cannot be serialized: \(error)")
            }
        }
    }
}
