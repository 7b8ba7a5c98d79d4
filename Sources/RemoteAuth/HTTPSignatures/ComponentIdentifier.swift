public import HTTPTypes
import RawStructuredFieldValues

extension HTTPMessageSignatures {
    /// A component identifier: a string item naming a header field (lowercased) or a derived
    /// component (`@method`, …), with its parameters.
    /// [RFC 9421 §2](https://www.rfc-editor.org/rfc/rfc9421#section-2)
    ///
    /// Two identifiers are equal when they have the same name and the same parameters, in any
    /// order: the rule that refuses a component covered twice (§2.5).
    public struct ComponentIdentifier: Sendable, Hashable, CustomStringConvertible {
        /// A parameter of a component identifier: [RFC 9421 §2.1](https://www.rfc-editor.org/rfc/rfc9421#section-2.1)
        /// (fields) and §2.2.8 (`name`).
        public enum Parameter: Sendable, Hashable {
            /// `sf`: the field's value re-serialized as a structured field (§2.1.1).
            case structuredField
            /// `key="…"`: one member of a dictionary field (§2.1.2).
            case key(String)
            /// `bs`: each field line as a byte sequence (§2.1.3).
            case byteSequence
            /// `req`: the component of the request this response answers (§2.4).
            case request
            /// `tr`: the field from the trailers (§2.1.4).
            case trailer
            /// `name="…"`: the query parameter of `@query-param` (§2.2.8).
            case name(String)

            var sfName: String {
                switch self {
                case .structuredField: "sf"
                case .key: "key"
                case .byteSequence: "bs"
                case .request: "req"
                case .trailer: "tr"
                case .name: "name"
                }
            }
        }

        /// The component name: a lowercased field name, or a derived component's name with its `@`.
        public let name: String
        /// The parameters, in the order they are serialized.
        public let parameters: [Parameter]

        /// An identifier as it is; ``HTTPMessageSignatures/signatureBase(for:input:)`` checks it.
        public init(name: String, parameters: [Parameter] = []) {
            self.name = name
            self.parameters = parameters
        }

        /// A header field, by name (lowercased, §2.1).
        public static func field(
            _ name: HTTPField.Name,
            structured: Bool = false,
            key: String? = nil,
            byteSequence: Bool = false,
            trailer: Bool = false,
            request: Bool = false
        ) -> ComponentIdentifier {
            var parameters: [Parameter] = []
            if structured { parameters.append(.structuredField) }
            if let key { parameters.append(.key(key)) }
            if byteSequence { parameters.append(.byteSequence) }
            if trailer { parameters.append(.trailer) }
            if request { parameters.append(.request) }
            return ComponentIdentifier(name: name.canonicalName, parameters: parameters)
        }

        /// `@method`: [RFC 9421 §2.2.1](https://www.rfc-editor.org/rfc/rfc9421#section-2.2.1).
        public static let method = Self(name: "@method")
        /// `@target-uri`: [§2.2.2](https://www.rfc-editor.org/rfc/rfc9421#section-2.2.2).
        public static let targetURI = Self(name: "@target-uri")
        /// `@authority`: [§2.2.3](https://www.rfc-editor.org/rfc/rfc9421#section-2.2.3).
        public static let authority = Self(name: "@authority")
        /// `@scheme`: [§2.2.4](https://www.rfc-editor.org/rfc/rfc9421#section-2.2.4).
        public static let scheme = Self(name: "@scheme")
        /// `@request-target`: [§2.2.5](https://www.rfc-editor.org/rfc/rfc9421#section-2.2.5).
        public static let requestTarget = Self(name: "@request-target")
        /// `@path`: [§2.2.6](https://www.rfc-editor.org/rfc/rfc9421#section-2.2.6).
        public static let path = Self(name: "@path")
        /// `@query`: [§2.2.7](https://www.rfc-editor.org/rfc/rfc9421#section-2.2.7).
        public static let query = Self(name: "@query")
        /// `@status`: [§2.2.9](https://www.rfc-editor.org/rfc/rfc9421#section-2.2.9).
        public static let status = Self(name: "@status")

        /// `@query-param;name="…"`: [§2.2.8](https://www.rfc-editor.org/rfc/rfc9421#section-2.2.8).
        /// `name` is given as it appears in the signature: percent-encoded as §2.2.8 encodes.
        public static func queryParameter(_ name: String) -> ComponentIdentifier {
            ComponentIdentifier(name: "@query-param", parameters: [.name(name)])
        }

        /// This identifier with `req` added: the same component of the request (§2.4).
        public var ofRequest: ComponentIdentifier {
            isRequestBound ? self : ComponentIdentifier(name: name, parameters: parameters + [.request])
        }

        /// Whether the name is a derived component's (`@…`).
        public var isDerived: Bool { name.hasPrefix("@") }

        var isRequestBound: Bool { parameters.contains(.request) }
        var isTrailer: Bool { parameters.contains(.trailer) }

        /// The identifier as a structured field item, as it appears in the signature base and
        /// in `Signature-Input` (§2.5 step 2.1).
        var item: Item {
            var map = OrderedMap<String, RFC9651BareItem>()
            for parameter in parameters {
                switch parameter {
                case .key(let value), .name(let value): map[parameter.sfName] = .string(value)
                default: map[parameter.sfName] = .bool(true)
                }
            }
            return Item(bareItem: .string(name), parameters: map)
        }

        /// The serialized identifier: `"@query-param";name="Pet"` (§2.5 step 2.1).
        /// - Throws: ``Error/Code/invalidComponent`` when the name or a parameter value is not
        ///   a structured field string (printable ASCII, RFC 8941 §3.3.3).
        public func serialized() throws -> String {
            do { return try StructuredFields.serialize(item) } catch {
                throw Error(.invalidComponent, "a component name or parameter is not a structured field string")
            }
        }

        public var description: String { (try? serialized()) ?? "<unserializable component>" }

        /// Reads an identifier from a `Signature-Input` inner list's item.
        /// - Throws: ``Error/Code/malformedSignatureInput`` for an item that is not a string, or
        ///   has a parameter of the wrong type; ``Error/Code/invalidComponent`` for a parameter
        ///   this library does not know or a name that is not lowercase (§2.1, §2.5).
        init(item: Item) throws {
            guard case .string(let name) = item.rfc9651BareItem else {
                throw Error(.malformedSignatureInput, "a covered component is not a string")
            }
            var parameters: [Parameter] = []
            for (key, value) in item.rfc9651Parameters {
                switch (key, value) {
                case ("sf", .bool(true)): parameters.append(.structuredField)
                case ("bs", .bool(true)): parameters.append(.byteSequence)
                case ("req", .bool(true)): parameters.append(.request)
                case ("tr", .bool(true)): parameters.append(.trailer)
                case ("key", .string(let member)): parameters.append(.key(member))
                case ("name", .string(let query)): parameters.append(.name(query))
                case ("sf", _), ("bs", _), ("req", _), ("tr", _), ("key", _), ("name", _):
                    throw Error(.malformedSignatureInput, "the parameter '\(key)' of \"\(name)\" has the wrong type")
                default:
                    throw Error(.invalidComponent, "the parameter '\(key)' of \"\(name)\" is not one RFC 9421 defines")
                }
            }
            guard name == name.lowercased(), !name.isEmpty else {
                throw Error(.invalidComponent, "the component name \"\(name)\" is not lowercase (RFC 9421 §2.1)")
            }
            self.init(name: name, parameters: parameters)
        }

        /// Reads a list of identifiers written as in a `Signature-Input` inner list, separated by
        /// spaces, where a bare name stands for its quoted string: `@method @target-uri
        /// content-digest`, `"@query-param";name="id"`, `signature;req;key="sig1"`
        /// ([RFC 9421 §2](https://www.rfc-editor.org/rfc/rfc9421#section-2)).
        /// - Throws: ``Error/Code/malformedSignatureInput`` when the text is not such a list,
        ///   ``Error/Code/invalidComponent`` for a parameter RFC 9421 does not define or a name
        ///   that is not lowercase.
        public static func list(parsing text: String) throws -> [ComponentIdentifier] {
            // Quote each bare name (up to its first ';'), outside quoted strings.
            var quoted = ""
            var inString = false
            var escaped = false
            var atWordStart = true
            var inBareName = false
            for character in text {
                if inString {
                    quoted.append(character)
                    if escaped {
                        escaped = false
                    } else if character == "\\" {
                        escaped = true
                    } else if character == "\"" {
                        inString = false
                    }
                    continue
                }
                if character == " " {
                    if inBareName { quoted.append("\"") }
                    inBareName = false
                    atWordStart = true
                    quoted.append(character)
                    continue
                }
                if atWordStart {
                    atWordStart = false
                    if character != "\"" {
                        inBareName = true
                        quoted.append("\"")
                    }
                }
                if inBareName, character == ";" {
                    quoted.append("\"")
                    inBareName = false
                }
                if character == "\"" { inString = true }
                quoted.append(character)
            }
            if inBareName { quoted.append("\"") }
            let members: [ItemOrInnerList]
            do { members = try StructuredFields.parseList("(" + quoted + ")") } catch {
                throw Error(
                    .malformedSignatureInput,
                    "the components are not a list of names or structured strings (RFC 9421 §2)"
                )
            }
            guard members.count == 1, case .innerList(let list) = members[0] else {
                throw Error(.malformedSignatureInput, "the components are not one list (RFC 9421 §2)")
            }
            guard list.rfc9651Parameters.isEmpty else {
                throw Error(.malformedSignatureInput, "the components list has parameters of its own")
            }
            return try list.bareInnerList.map { try ComponentIdentifier(item: $0) }
        }

        public static func == (lhs: Self, rhs: Self) -> Bool {
            lhs.name == rhs.name && Set(lhs.parameters) == Set(rhs.parameters)
        }

        public func hash(into hasher: inout Hasher) {
            hasher.combine(name)
            hasher.combine(Set(parameters))
        }
    }
}
