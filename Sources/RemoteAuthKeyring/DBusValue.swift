/// A D-Bus value of any type this client reads or writes; `description` never shows the bytes
/// of an `ay` (a secret travels as one).
indirect enum DBusValue: Hashable, Sendable {
    case byte(UInt8)
    case boolean(Bool)
    case int16(Int16)
    case uint16(UInt16)
    case int32(Int32)
    case uint32(UInt32)
    case int64(Int64)
    case uint64(UInt64)
    /// An IEEE 754 double, kept as its bits so that values compare exactly.
    case double(UInt64)
    case string(String)
    case objectPath(String)
    case signature(String)
    /// An `ay`, kept whole rather than as an array of `.byte`.
    case bytes([UInt8])
    /// An array of `element`s (an empty one still has its element type on the wire).
    case array(DBusType, [DBusValue])
    case dictEntry(DBusValue, DBusValue)
    case structure([DBusValue])
    case variant(DBusValue)

    /// The value's type.
    var type: DBusType {
        switch self {
        case .byte: .byte
        case .boolean: .boolean
        case .int16: .int16
        case .uint16: .uint16
        case .int32: .int32
        case .uint32: .uint32
        case .int64: .int64
        case .uint64: .uint64
        case .double: .double
        case .string: .string
        case .objectPath: .objectPath
        case .signature: .signature
        case .bytes: .array(.byte)
        case .array(let element, _): .array(element)
        case .dictEntry(let key, let value): .dictEntry(key.type, value.type)
        case .structure(let fields): .structure(fields.map(\.type))
        case .variant: .variant
        }
    }

    /// An `a{ss}`.
    static func stringDictionary(_ dictionary: [String: String]) -> DBusValue {
        .array(
            .dictEntry(.string, .string),
            dictionary.keys.sorted().map { .dictEntry(.string($0), .string(dictionary[$0]!)) }
        )
    }

    /// An `a{sv}`, its entries in the order given.
    static func properties(_ entries: [(String, DBusValue)]) -> DBusValue {
        .array(.dictEntry(.string, .variant), entries.map { .dictEntry(.string($0.0), .variant($0.1)) })
    }

    /// The string of an `s`, else `nil`.
    var string: String? {
        guard case .string(let value) = self else { return nil }
        return value
    }

    /// The path of an `o`, else `nil`.
    var objectPath: String? {
        guard case .objectPath(let value) = self else { return nil }
        return value
    }

    /// The paths of an `ao`, else `nil`.
    var objectPaths: [String]? {
        guard case .array(.objectPath, let values) = self else { return nil }
        return values.compactMap(\.objectPath)
    }

    /// The entries of an `a{ss}`, else `nil` (a key given twice keeps its last value).
    var stringDictionary: [String: String]? {
        guard case .array(.dictEntry(.string, .string), let entries) = self else { return nil }
        var dictionary: [String: String] = [:]
        for case .dictEntry(.string(let key), .string(let value)) in entries { dictionary[key] = value }
        return dictionary
    }

    /// The value inside a `v`, else the value itself.
    var unwrapped: DBusValue {
        guard case .variant(let inner) = self else { return self }
        return inner
    }
}

extension DBusValue: CustomStringConvertible {
    var description: String {
        switch self {
        case .byte(let value): "\(value)"
        case .boolean(let value): "\(value)"
        case .int16(let value): "\(value)"
        case .uint16(let value): "\(value)"
        case .int32(let value): "\(value)"
        case .uint32(let value): "\(value)"
        case .int64(let value): "\(value)"
        case .uint64(let value): "\(value)"
        case .double(let bits): "\(Double(bitPattern: bits))"
        case .string(let value): "\"\(value)\""
        case .objectPath(let value): value
        case .signature(let value): "g\"\(value)\""
        case .bytes(let value): "<\(value.count) bytes>"
        case .array(_, let values): "[\(values.map(\.description).joined(separator: ", "))]"
        case .dictEntry(let key, let value): "\(key): \(value)"
        case .structure(let fields): "(\(fields.map(\.description).joined(separator: ", ")))"
        case .variant(let value): "<\(value.type)> \(value)"
        }
    }
}
