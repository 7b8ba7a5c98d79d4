/// A D-Bus message: [Message Format](https://dbus.freedesktop.org/doc/dbus-specification.html#message-protocol-messages).
/// A 12-byte fixed header (endianness `l` or `B`, type, flags, version 1, body length, serial),
/// the header fields as an `a(yv)`, padding to 8, then the body, whose signature is the
/// `SIGNATURE` field.
struct DBusMessage: Hashable, Sendable {
    /// The message type (the second byte).
    enum Kind: UInt8, Sendable {
        case methodCall = 1
        case methodReturn = 2
        case error = 3
        case signal = 4
    }

    /// A header field: its code and its value (the content of its variant).
    struct Field: Hashable, Sendable {
        var code: UInt8
        var value: DBusValue

        static func path(_ path: String) -> Field { Field(code: 1, value: .objectPath(path)) }
        static func interface(_ name: String) -> Field { Field(code: 2, value: .string(name)) }
        static func member(_ name: String) -> Field { Field(code: 3, value: .string(name)) }
        static func errorName(_ name: String) -> Field { Field(code: 4, value: .string(name)) }
        static func replySerial(_ serial: UInt32) -> Field { Field(code: 5, value: .uint32(serial)) }
        static func destination(_ name: String) -> Field { Field(code: 6, value: .string(name)) }
        static func sender(_ name: String) -> Field { Field(code: 7, value: .string(name)) }
        static func signature(_ signature: String) -> Field { Field(code: 8, value: .signature(signature)) }

        /// The type each field code must have; codes not listed are ignored, as the
        /// specification requires.
        static let types: [UInt8: DBusType] = [
            1: .objectPath, 2: .string, 3: .string, 4: .string, 5: .uint32, 6: .string, 7: .string, 8: .signature,
            9: .uint32,
        ]
    }

    /// `NO_REPLY_EXPECTED`.
    static let noReplyExpected: UInt8 = 0x1

    var kind: Kind
    var flags: UInt8
    var serial: UInt32
    /// In the order they are written.
    var fields: [Field]
    var body: [DBusValue]

    init(kind: Kind, flags: UInt8 = 0, serial: UInt32, fields: [Field], body: [DBusValue] = []) {
        self.kind = kind
        self.flags = flags
        self.serial = serial
        self.fields = fields
        self.body = body
    }

    /// A method call, its fields in the order `dbus-send` writes them: path, interface, member,
    /// destination, signature (when there is a body).
    static func methodCall(
        destination: String,
        path: String,
        interface: String,
        member: String,
        body: [DBusValue] = [],
        serial: UInt32 = 0
    ) -> DBusMessage {
        var fields: [Field] = [.path(path), .interface(interface), .member(member), .destination(destination)]
        if !body.isEmpty { fields.append(.signature(body.map(\.type.description).joined())) }
        return DBusMessage(kind: .methodCall, serial: serial, fields: fields, body: body)
    }

    private func field(_ code: UInt8) -> DBusValue? { fields.last { $0.code == code }?.value }
    var path: String? { field(1)?.objectPath }
    var interface: String? { field(2)?.string }
    var member: String? { field(3)?.string }
    var errorName: String? { field(4)?.string }
    var replySerial: UInt32? {
        guard case .uint32(let serial) = field(5) else { return nil }
        return serial
    }
    var sender: String? { field(7)?.string }
    var signature: String {
        guard case .signature(let signature) = field(8) else { return "" }
        return signature
    }

    /// The message's bytes, little-endian.
    ///
    /// - Throws: ``DBusError/Code-swift.struct/invalidArgument`` when a value cannot be sent, or
    ///   the `SIGNATURE` field does not spell the body's types.
    func encoded() throws -> [UInt8] {
        let bodySignature = body.map(\.type.description).joined()
        guard signature == bodySignature else {
            throw DBusError.invalid("a body of signature '\(bodySignature)' under a SIGNATURE field of '\(signature)'")
        }
        var bodyEncoder = DBusEncoder()
        for value in body { try bodyEncoder.write(value) }
        var encoder = DBusEncoder()
        for byte in [UInt8(ascii: "l"), kind.rawValue, flags, 1] { try encoder.write(.byte(byte)) }
        try encoder.write(.uint32(UInt32(bodyEncoder.bytes.count)))
        try encoder.write(.uint32(serial))
        let headerFields = DBusValue.array(
            .structure([.byte, .variant]),
            fields.map { .structure([.byte($0.code), .variant($0.value)]) }
        )
        try encoder.write(headerFields)
        encoder.pad(to: 8)
        return encoder.bytes + bodyEncoder.bytes
    }

    /// The length of the whole message whose first 16 bytes are `prefix`, or `nil` when fewer
    /// are there yet.
    ///
    /// - Throws: ``DBusError/Code-swift.struct/malformedMessage`` for an endianness byte other
    ///   than `l` or `B`; ``DBusError/Code-swift.struct/messageTooLarge`` past `maximum`.
    static func length(ofMessageStartingWith prefix: some Collection<UInt8>, maximum: Int) throws -> Int? {
        guard prefix.count >= 16 else { return nil }
        let bytes = Array(prefix.prefix(16))
        let bigEndian: Bool
        switch bytes[0] {
        case UInt8(ascii: "l"): bigEndian = false
        case UInt8(ascii: "B"): bigEndian = true
        default: throw DBusError.malformed("a message whose endianness byte is \(bytes[0]), neither 'l' nor 'B'")
        }
        var decoder = DBusDecoder(bytes, bigEndian: bigEndian, offset: 4)
        let bodyLength = Int(try decoder.readUInt32())
        _ = try decoder.readUInt32()
        let fieldsLength = Int(try decoder.readUInt32())
        let total = (16 + fieldsLength + 7) / 8 * 8 + bodyLength
        guard total <= maximum else {
            throw DBusError(
                .messageTooLarge,
                "the bus sent a message of \(total) bytes; this client reads at most \(maximum)"
            )
        }
        return total
    }

    /// Reads one whole message (exactly `bytes`).
    ///
    /// - Throws: ``DBusError/Code-swift.struct/malformedMessage`` for a message that breaks the
    ///   specification: another protocol version, serial 0, an unknown type, a field of the wrong
    ///   type, a required field missing (a method call's `PATH` and `MEMBER`, a reply's
    ///   `REPLY_SERIAL`, an error's `ERROR_NAME`, a signal's `INTERFACE`), a body that is not
    ///   what `SIGNATURE` says, or bytes after it.
    static func decode(_ bytes: [UInt8]) throws -> DBusMessage {
        guard let length = try length(ofMessageStartingWith: bytes, maximum: DBusLimits.maximumMessageLength),
            length == bytes.count
        else { throw DBusError.malformed("a message whose length is not what its header says") }
        let bigEndian = bytes[0] == UInt8(ascii: "B")
        guard let kind = Kind(rawValue: bytes[1]) else {
            throw DBusError.malformed("a message of unknown type \(bytes[1])")
        }
        guard bytes[3] == 1 else { throw DBusError.malformed("a message of protocol version \(bytes[3]), not 1") }
        var decoder = DBusDecoder(bytes, bigEndian: bigEndian, offset: 4)
        let bodyLength = Int(try decoder.readUInt32())
        let serial = try decoder.readUInt32()
        guard serial != 0 else { throw DBusError.malformed("a message of serial 0") }
        decoder.limit = bytes.count - bodyLength
        guard case .array(_, let entries) = try decoder.read(.array(.structure([.byte, .variant]))) else {
            throw DBusError.malformed("no header fields")
        }
        var fields: [Field] = []
        for case .structure(let parts) in entries {
            guard case .byte(let code) = parts[0], case .variant(let value) = parts[1] else { continue }
            if let expected = Field.types[code] {
                guard value.type == expected else {
                    throw DBusError.malformed("header field \(code) of type \(value.type), not \(expected)")
                }
                guard !fields.contains(where: { $0.code == code }) else {
                    throw DBusError.malformed("header field \(code) twice")
                }
            }
            fields.append(Field(code: code, value: value))
        }
        try decoder.align(8)
        decoder.limit = bytes.count
        var message = DBusMessage(kind: kind, flags: bytes[2], serial: serial, fields: fields)
        let required: [UInt8] =
            switch kind {
            case .methodCall: [1, 3]
            case .methodReturn: [5]
            case .error: [4, 5]
            case .signal: [1, 2, 3]
            }
        for code in required where !fields.contains(where: { $0.code == code }) {
            throw DBusError.malformed("a \(kind) message without header field \(code)")
        }
        for type in try DBusType.parse(signature: message.signature) {
            message.body.append(try decoder.read(type))
        }
        guard decoder.offset == bytes.count else { throw DBusError.malformed("bytes after a message's body") }
        return message
    }
}
