/// Writes values in the D-Bus wire format, little-endian:
/// [Marshaling (Wire Format)](https://dbus.freedesktop.org/doc/dbus-specification.html#marshaling).
/// Each value starts at a multiple of its type's alignment, counted from the start of the
/// message, the gap filled with zero bytes; a message's body starts at a multiple of 8, so a body
/// encoded from offset 0 has the same padding as inside its message.
struct DBusEncoder {
    private(set) var bytes: [UInt8] = []

    init() {}

    mutating func pad(to alignment: Int) {
        while bytes.count % alignment != 0 { bytes.append(0) }
    }

    private mutating func append<T: FixedWidthInteger>(_ value: T) {
        pad(to: MemoryLayout<T>.size)
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    /// Writes `value`.
    ///
    /// - Throws: ``DBusError/Code-swift.struct/invalidArgument`` for a string with a NUL byte,
    ///   an object path or signature that is not valid, an array element of another type than
    ///   the array's, an array longer than 64 MiB.
    mutating func write(_ value: DBusValue) throws {
        switch value {
        case .byte(let value): bytes.append(value)
        case .boolean(let value): append(UInt32(value ? 1 : 0))
        case .int16(let value): append(value)
        case .uint16(let value): append(value)
        case .int32(let value): append(value)
        case .uint32(let value): append(value)
        case .int64(let value): append(value)
        case .uint64(let value): append(value)
        case .double(let bits): append(bits)
        case .string(let value):
            guard !value.utf8.contains(0) else { throw DBusError.invalid("a string holds a NUL byte") }
            writeString(value)
        case .objectPath(let value):
            guard DBusNames.isObjectPath(value) else { throw DBusError.invalid("'\(value)' is not an object path") }
            writeString(value)
        case .signature(let value):
            _ = try DBusError.asInvalid { try DBusType.parse(signature: value) }
            writeSignature(value)
        case .bytes(let value):
            try writeArray(of: .byte, count: value.count) { $0.bytes.append(contentsOf: value) }
        case .array(let element, let values):
            for value in values where value.type != element {
                throw DBusError.invalid("an element of type \(value.type) in an array of \(element)")
            }
            try writeArray(of: element, count: values.count) { encoder in
                for value in values { try encoder.write(value) }
            }
        case .dictEntry(let key, let value):
            pad(to: 8)
            try write(key)
            try write(value)
        case .structure(let fields):
            pad(to: 8)
            for field in fields { try write(field) }
        case .variant(let inner):
            writeSignature(inner.type.description)
            try write(inner)
        }
    }

    private mutating func writeString(_ value: String) {
        append(UInt32(value.utf8.count))
        bytes.append(contentsOf: value.utf8)
        bytes.append(0)
    }

    private mutating func writeSignature(_ value: String) {
        bytes.append(UInt8(value.utf8.count))
        bytes.append(contentsOf: value.utf8)
        bytes.append(0)
    }

    /// The length (in bytes, from the first element, after the padding to its alignment), the
    /// padding, then the elements: an empty array still has the padding.
    private mutating func writeArray(
        of element: DBusType,
        count: Int,
        _ body: (inout DBusEncoder) throws -> Void
    ) throws {
        append(UInt32(0))
        let lengthAt = bytes.count - 4
        pad(to: element.alignment)
        let start = bytes.count
        try body(&self)
        let length = bytes.count - start
        guard length <= DBusLimits.maximumArrayLength else { throw DBusError.invalid("an array longer than 64 MiB") }
        withUnsafeBytes(of: UInt32(length).littleEndian) { raw in
            for (index, byte) in raw.enumerated() { bytes[lengthAt + index] = byte }
        }
    }
}

/// Reads values in the D-Bus wire format, strictly: padding must be zero bytes, a boolean 0 or 1,
/// a string valid UTF-8 without NUL and ending in one, an object path and a signature valid, an
/// array no longer than 64 MiB and ending exactly where its length says, containers nested at
/// most 64 deep ([Marshaling](https://dbus.freedesktop.org/doc/dbus-specification.html#marshaling),
/// [Valid Signatures](https://dbus.freedesktop.org/doc/dbus-specification.html#message-protocol-signatures)).
/// Offsets and alignment count from the start of the message.
struct DBusDecoder {
    let bytes: [UInt8]
    let bigEndian: Bool
    private(set) var offset: Int
    /// Reading stops here: the end of the message (or of the part being read).
    var limit: Int

    init(_ bytes: [UInt8], bigEndian: Bool = false, offset: Int = 0) {
        self.bytes = bytes
        self.bigEndian = bigEndian
        self.offset = offset
        self.limit = bytes.count
    }

    mutating func align(_ alignment: Int) throws {
        let padded = (offset + alignment - 1) / alignment * alignment
        guard padded <= limit else { throw DBusError.malformed("the message ends inside padding") }
        for index in offset..<padded where bytes[index] != 0 {
            throw DBusError.malformed("a padding byte that is not zero at offset \(index)")
        }
        offset = padded
    }

    private mutating func take(_ count: Int) throws -> ArraySlice<UInt8> {
        guard count >= 0, count <= limit - offset else { throw DBusError.malformed("the message ends inside a value") }
        defer { offset += count }
        return bytes[offset..<offset + count]
    }

    private mutating func integer<T: FixedWidthInteger>(_: T.Type) throws -> T {
        try align(MemoryLayout<T>.size)
        var value: T = 0
        for byte in (try take(MemoryLayout<T>.size)).reversed() { value = value << 8 | T(truncatingIfNeeded: byte) }
        // Read as little-endian above; a big-endian message has the bytes the other way.
        return bigEndian ? value.byteSwapped : value
    }

    mutating func readUInt32() throws -> UInt32 { try integer(UInt32.self) }

    mutating func readByte() throws -> UInt8 { try take(1).first! }

    private mutating func readString(maximum: Int = DBusLimits.maximumArrayLength) throws -> String {
        let length = Int(try integer(UInt32.self))
        guard length <= maximum else { throw DBusError.malformed("a string longer than \(maximum) bytes") }
        return try terminated(length)
    }

    private mutating func terminated(_ length: Int) throws -> String {
        let content = try take(length)
        guard try take(1).first == 0 else { throw DBusError.malformed("a string not ended by a NUL byte") }
        guard !content.contains(0) else { throw DBusError.malformed("a string holds a NUL byte") }
        guard let string = String(validating: content, as: UTF8.self) else {
            throw DBusError.malformed("a string that is not valid UTF-8")
        }
        return string
    }

    mutating func readSignature() throws -> String {
        let length = Int(try readByte())
        let signature = try terminated(length)
        _ = try DBusType.parse(signature: signature)
        return signature
    }

    /// Reads one value of `type`.
    mutating func read(_ type: DBusType, depth: Int = 0) throws -> DBusValue {
        guard depth <= 64 else { throw DBusError.malformed("containers nested more than 64 deep") }
        switch type {
        case .byte: return .byte(try readByte())
        case .boolean:
            switch try integer(UInt32.self) {
            case 0: return .boolean(false)
            case 1: return .boolean(true)
            case let other: throw DBusError.malformed("a boolean of \(other), not 0 or 1")
            }
        case .int16: return .int16(try integer(Int16.self))
        case .uint16: return .uint16(try integer(UInt16.self))
        case .int32: return .int32(try integer(Int32.self))
        case .uint32: return .uint32(try integer(UInt32.self))
        case .int64: return .int64(try integer(Int64.self))
        case .uint64: return .uint64(try integer(UInt64.self))
        case .double: return .double(try integer(UInt64.self))
        case .string: return .string(try readString())
        case .objectPath:
            let path = try readString()
            guard DBusNames.isObjectPath(path) else { throw DBusError.malformed("'\(path)' is not an object path") }
            return .objectPath(path)
        case .signature: return .signature(try readSignature())
        case .array(let element):
            let length = Int(try integer(UInt32.self))
            guard length <= DBusLimits.maximumArrayLength else {
                throw DBusError.malformed("an array of \(length) bytes, longer than 64 MiB")
            }
            try align(element.alignment)
            guard length <= limit - offset else { throw DBusError.malformed("an array runs past the message") }
            if element == .byte { return .bytes(Array(try take(length))) }
            let end = offset + length
            var values: [DBusValue] = []
            while offset < end {
                values.append(try read(element, depth: depth + 1))
            }
            guard offset == end else { throw DBusError.malformed("an array's elements run past its length") }
            return .array(element, values)
        case .dictEntry(let key, let value):
            try align(8)
            return .dictEntry(try read(key, depth: depth + 1), try read(value, depth: depth + 1))
        case .structure(let fields):
            try align(8)
            return .structure(try fields.map { try read($0, depth: depth + 1) })
        case .variant:
            let inner = try DBusType.parseSingle(signature: try readSignature())
            return .variant(try read(inner, depth: depth + 1))
        }
    }
}

/// The limits of the D-Bus Specification ([Marshaling](https://dbus.freedesktop.org/doc/dbus-specification.html#marshaling)).
enum DBusLimits {
    /// An array's length in bytes: 2^26.
    static let maximumArrayLength = 67_108_864
    /// A whole message: 2^27 bytes (this client reads far smaller ones, see ``DBusConnection``).
    static let maximumMessageLength = 134_217_728
}

/// Valid names: [Valid Object Paths](https://dbus.freedesktop.org/doc/dbus-specification.html#message-protocol-marshaling-object-path).
enum DBusNames {
    /// `/`, or `/` followed by elements of `[A-Za-z0-9_]`, none empty, separated by `/`, with
    /// no `/` at the end.
    static func isObjectPath(_ path: String) -> Bool {
        let bytes = Array(path.utf8)
        guard bytes.first == UInt8(ascii: "/") else { return false }
        if bytes.count == 1 { return true }
        var previousSlash = true
        for byte in bytes.dropFirst() {
            if byte == UInt8(ascii: "/") {
                if previousSlash { return false }
                previousSlash = true
                continue
            }
            let isElement =
                (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "_")
            guard isElement else { return false }
            previousSlash = false
        }
        return !previousSlash
    }
}
