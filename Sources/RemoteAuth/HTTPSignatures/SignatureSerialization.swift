extension HTTPMessageSignatures.SignatureInput {
    /// The signature parameters (the inner list of §2.3, as `@signature-params` and the member of
    /// `Signature-Input` carry it) serialized straight into one string, when the components'
    /// identifiers are already serialized (a signer's) and every parameter is an integer, a
    /// string or a boolean under its own valid key; `nil` otherwise, for the general serializer
    /// to write (or to refuse).
    ///
    /// The output is what that serializer writes: `(` the identifiers joined with a space `)`,
    /// then `;key` for `true` and `;key=value` for the rest
    /// ([RFC 8941 §4.1.1.1](https://www.rfc-editor.org/rfc/rfc8941#section-4.1.1.1) inner
    /// lists, [§4.1.1.2](https://www.rfc-editor.org/rfc/rfc8941#section-4.1.1.2) parameters,
    /// [§4.1.4](https://www.rfc-editor.org/rfc/rfc8941#section-4.1.4) integers,
    /// [§4.1.6](https://www.rfc-editor.org/rfc/rfc8941#section-4.1.6) strings,
    /// [§4.1.9](https://www.rfc-editor.org/rfc/rfc8941#section-4.1.9) booleans).
    func serializedDirectly(serializedComponents: [String]?) -> String? {
        guard let serializedComponents, serializedComponents.count == components.count else { return nil }
        // Room for every part at its longest: an integer's 16 characters, a string escaped.
        var capacity = 2 + serializedComponents.count
        for identifier in serializedComponents { capacity += identifier.utf8.count }
        for (index, parameter) in parameters.enumerated() {
            guard StructuredFieldText.isKey(parameter.name) else { return nil }
            // A repeated key keeps its first place with its last value (RFC 8941 §3.1.2): rare,
            // and the general serializer's to write.
            for earlier in parameters[..<index] where earlier.name == parameter.name { return nil }
            capacity += 2 + parameter.name.utf8.count
            switch parameter.value {
            case .integer(let value):
                guard StructuredFieldText.integers.contains(value) else { return nil }
                capacity += 20
            case .string(let value):
                guard StructuredFieldText.isString(value) else { return nil }
                capacity += 2 + 2 * value.utf8.count
            case .boolean:
                capacity += 2
            case .token:
                return nil
            }
        }
        return String(writingAtMost: capacity) { writer in
            writer.write(UInt8(ascii: "("))
            for (index, identifier) in serializedComponents.enumerated() {
                if index > 0 { writer.write(UInt8(ascii: " ")) }
                writer.write(contentsOf: identifier)
            }
            writer.write(UInt8(ascii: ")"))
            for parameter in parameters {
                writer.write(UInt8(ascii: ";"))
                writer.write(contentsOf: parameter.name)
                switch parameter.value {
                case .boolean(true):
                    break
                case .boolean(false):
                    writer.write("=?0")
                case .integer(let value):
                    writer.write(UInt8(ascii: "="))
                    writer.write(contentsOf: String(value))
                case .string(let value):
                    writer.write(UInt8(ascii: "="))
                    StructuredFieldText.writeString(value, to: &writer)
                case .token:
                    break
                }
            }
        }
    }
}

/// The pieces of RFC 8941 serialization the signature fields write directly, each the same
/// rule as swift-http-structured-headers' serializer (which writes everything else).
enum StructuredFieldText {
    /// [RFC 8941 §4.1.4](https://www.rfc-editor.org/rfc/rfc8941#section-4.1.4): at most 15 digits.
    static let integers: ClosedRange<Int64> = -999_999_999_999_999...999_999_999_999_999

    /// A key ([RFC 8941 §3.1.2](https://www.rfc-editor.org/rfc/rfc8941#section-3.1.2)):
    /// `( lcalpha / "*" ) *( lcalpha / DIGIT / "_" / "-" / "." / "*" )`, here not empty.
    static func isKey(_ key: String) -> Bool {
        var first = true
        for octet in key.utf8 {
            switch octet {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "*"): break
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "-"), UInt8(ascii: "."):
                if first { return false }
            default: return false
            }
            first = false
        }
        return !first
    }

    /// Whether `text` can be a string ([RFC 8941 §3.3.3](https://www.rfc-editor.org/rfc/rfc8941#section-3.3.3)):
    /// printable ASCII only (0x20–0x7E).
    static func isString(_ text: String) -> Bool {
        text.utf8.allSatisfy { (0x20...0x7E).contains($0) }
    }

    /// Writes `text` as a string: in double quotes, `"` and `\` escaped with `\` (§4.1.6).
    static func writeString(_ text: String, to writer: inout ByteWriter) {
        writer.write(UInt8(ascii: "\""))
        for octet in text.utf8 {
            if octet == UInt8(ascii: "\"") || octet == UInt8(ascii: "\\") { writer.write(UInt8(ascii: "\\")) }
            writer.write(octet)
        }
        writer.write(UInt8(ascii: "\""))
    }
}
