/// A D-Bus type, as a signature spells it: the [Type System](https://dbus.freedesktop.org/doc/dbus-specification.html#type-system)
/// of the D-Bus Specification. Every basic type but `h` (a Unix file descriptor, which this client
/// never passes) and every container (array, struct, dict entry, variant).
indirect enum DBusType: Hashable, Sendable, CustomStringConvertible {
    case byte, boolean, int16, uint16, int32, uint32, int64, uint64, double
    case string, objectPath, signature
    case array(DBusType)
    /// A `{KV}`: only as an array's element (`a{KV}`), its key a basic type.
    case dictEntry(DBusType, DBusType)
    case structure([DBusType])
    case variant

    /// The alignment of its values on the wire, in bytes: the table of
    /// [Marshaling (Wire Format)](https://dbus.freedesktop.org/doc/dbus-specification.html#marshaling).
    var alignment: Int {
        switch self {
        case .byte, .signature, .variant: 1
        case .int16, .uint16: 2
        case .boolean, .int32, .uint32, .string, .objectPath, .array: 4
        case .int64, .uint64, .double, .structure, .dictEntry: 8
        }
    }

    /// Whether it is a basic type, which a dict entry's key must be.
    var isBasic: Bool {
        switch self {
        case .array, .dictEntry, .structure, .variant: false
        default: true
        }
    }

    /// Its signature: `s`, `a{sv}`, `(oayays)`.
    var description: String {
        switch self {
        case .byte: "y"
        case .boolean: "b"
        case .int16: "n"
        case .uint16: "q"
        case .int32: "i"
        case .uint32: "u"
        case .int64: "x"
        case .uint64: "t"
        case .double: "d"
        case .string: "s"
        case .objectPath: "o"
        case .signature: "g"
        case .array(let element): "a\(element)"
        case .dictEntry(let key, let value): "{\(key)\(value)}"
        case .structure(let fields): "(\(fields.map(\.description).joined()))"
        case .variant: "v"
        }
    }

    /// The complete types of a signature, in order.
    ///
    /// A signature is at most 255 bytes; arrays and structs nest at most 32 deep each; a struct
    /// has at least one field; a dict entry appears only as an array's element and has a basic
    /// key and exactly one value ([Valid Signatures](https://dbus.freedesktop.org/doc/dbus-specification.html#message-protocol-signatures)).
    ///
    /// - Throws: ``DBusError/Code-swift.struct/malformedMessage`` for anything else.
    static func parse(signature: String) throws -> [DBusType] {
        let bytes = Array(signature.utf8)
        guard bytes.count <= 255 else { throw DBusError.malformed("a signature longer than 255 bytes") }
        var index = 0
        var types: [DBusType] = []
        while index < bytes.count {
            types.append(try parseOne(bytes, &index, arrays: 0, structs: 0))
        }
        return types
    }

    /// The single complete type of a variant's signature.
    static func parseSingle(signature: String) throws -> DBusType {
        let types = try parse(signature: signature)
        guard types.count == 1 else {
            throw DBusError.malformed("a variant's signature must hold one complete type, not '\(signature)'")
        }
        return types[0]
    }

    private static func parseOne(_ bytes: [UInt8], _ index: inout Int, arrays: Int, structs: Int) throws -> DBusType {
        guard index < bytes.count else { throw DBusError.malformed("a signature ends inside a type") }
        let code = bytes[index]
        index += 1
        switch code {
        case UInt8(ascii: "y"): return .byte
        case UInt8(ascii: "b"): return .boolean
        case UInt8(ascii: "n"): return .int16
        case UInt8(ascii: "q"): return .uint16
        case UInt8(ascii: "i"): return .int32
        case UInt8(ascii: "u"): return .uint32
        case UInt8(ascii: "x"): return .int64
        case UInt8(ascii: "t"): return .uint64
        case UInt8(ascii: "d"): return .double
        case UInt8(ascii: "s"): return .string
        case UInt8(ascii: "o"): return .objectPath
        case UInt8(ascii: "g"): return .signature
        case UInt8(ascii: "v"): return .variant
        case UInt8(ascii: "a"):
            guard arrays < 32 else { throw DBusError.malformed("arrays nested more than 32 deep") }
            if index < bytes.count, bytes[index] == UInt8(ascii: "{") {
                index += 1
                let key = try parseOne(bytes, &index, arrays: arrays + 1, structs: structs)
                guard key.isBasic else { throw DBusError.malformed("a dict entry's key must be a basic type") }
                let value = try parseOne(bytes, &index, arrays: arrays + 1, structs: structs)
                guard index < bytes.count, bytes[index] == UInt8(ascii: "}") else {
                    throw DBusError.malformed("a dict entry must hold exactly a key and a value")
                }
                index += 1
                return .array(.dictEntry(key, value))
            }
            return .array(try parseOne(bytes, &index, arrays: arrays + 1, structs: structs))
        case UInt8(ascii: "("):
            guard structs < 32 else { throw DBusError.malformed("structs nested more than 32 deep") }
            var fields: [DBusType] = []
            while index < bytes.count, bytes[index] != UInt8(ascii: ")") {
                fields.append(try parseOne(bytes, &index, arrays: arrays, structs: structs + 1))
            }
            guard index < bytes.count else { throw DBusError.malformed("a struct is not closed") }
            guard !fields.isEmpty else { throw DBusError.malformed("an empty struct") }
            index += 1
            return .structure(fields)
        default:
            throw DBusError.malformed(
                "an unknown type code '\(Unicode.Scalar(code).escaped(asASCII: true))' in a signature"
            )
        }
    }
}
