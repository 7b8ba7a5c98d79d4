import Testing

@testable import RemoteAuthKeyring

/// The D-Bus wire format, byte for byte: messages captured on a real bus (``Captured``) are read
/// into the values their senders wrote and written back to the same bytes, and the rules of
/// [Marshaling](https://dbus.freedesktop.org/doc/dbus-specification.html#marshaling) are held
/// strictly on hostile input.
@Suite("Keyring: D-Bus marshaling")
struct DBusMarshalingTests {
    private static let service = "org.freedesktop.Secret.Service"

    /// Decodes `bytes`, checks it is `expected`, and encodes it back to the same bytes.
    private func roundTrip(_ bytes: [UInt8], _ expected: DBusMessage) throws {
        let decoded = try DBusMessage.decode(bytes)
        #expect(decoded == expected)
        #expect(try expected.encoded() == bytes)
    }

    @Test func helloFromLibdbus() throws {
        try roundTrip(
            Captured.hello,
            DBusMessage(
                kind: .methodCall,
                serial: 1,
                fields: [
                    .path("/org/freedesktop/DBus"), .destination("org.freedesktop.DBus"),
                    .interface("org.freedesktop.DBus"), .member("Hello"), .sender(":1.2"),
                ]
            )
        )
    }

    @Test func searchItemsWithAStringDictionary() throws {
        let attributes = DBusValue.array(
            .dictEntry(.string, .string),
            [.dictEntry(.string("service"), .string("remote-auth")), .dictEntry(.string("account"), .string("a1"))]
        )
        let expected = DBusMessage(
            kind: .methodCall,
            serial: 2,
            fields: [
                .path("/org/freedesktop/secrets"), .interface(Self.service), .member("SearchItems"),
                .destination("org.freedesktop.secrets"), .signature("a{ss}"), .sender(":1.3"),
            ],
            body: [attributes]
        )
        try roundTrip(Captured.searchItems, expected)
        // Flags: NO_AUTO_START (0x2) is not set; the body is 0x3b bytes at offset 0xb0.
        #expect(Captured.searchItems[2] == 0 && Captured.searchItems[4] == 0x3b)
        // dbus-send's order is ours: methodCall writes the same fields (less the bus's SENDER).
        var ours = DBusMessage.methodCall(
            destination: "org.freedesktop.secrets",
            path: "/org/freedesktop/secrets",
            interface: Self.service,
            member: "SearchItems",
            body: [attributes],
            serial: 2
        )
        ours.fields.append(.sender(":1.3"))
        #expect(try ours.encoded() == Captured.searchItems)
    }

    @Test func openSessionWithAVariant() throws {
        try roundTrip(
            Captured.openSession,
            DBusMessage(
                kind: .methodCall,
                serial: 2,
                fields: [
                    .path("/org/freedesktop/secrets"), .interface(Self.service), .member("OpenSession"),
                    .destination("org.freedesktop.secrets"), .signature("sv"), .sender(":1.4"),
                ],
                body: [.string("plain"), .variant(.string(""))]
            )
        )
    }

    @Test func openSessionReplyFromGnomeKeyring() throws {
        try roundTrip(
            Captured.openSessionReply,
            DBusMessage(
                kind: .methodReturn,
                flags: DBusMessage.noReplyExpected,
                serial: 7,
                fields: [.destination(":1.4"), .signature("vo"), .replySerial(2), .sender(":1.0")],
                body: [.variant(.string("")), .objectPath("/org/freedesktop/secrets/session/s1")]
            )
        )
    }

    @Test func propertiesHoldingAnArrayOfPaths() throws {
        let collections = DBusValue.array(
            .objectPath,
            [
                .objectPath("/org/freedesktop/secrets/collection/login"),
                .objectPath("/org/freedesktop/secrets/collection/session"),
            ]
        )
        try roundTrip(
            Captured.getAllReply,
            DBusMessage(
                kind: .methodReturn,
                flags: DBusMessage.noReplyExpected,
                serial: 8,
                fields: [.destination(":1.5"), .signature("a{sv}"), .replySerial(8), .sender(":1.0")],
                body: [.properties([("Collections", collections)])]
            )
        )
    }

    @Test func createItemFromLibsecret() throws {
        let properties = DBusValue.properties([
            (
                "org.freedesktop.Secret.Item.Attributes",
                .array(
                    .dictEntry(.string, .string),
                    [
                        .dictEntry(.string("account"), .string("a1")),
                        .dictEntry(.string("service"), .string("remote-auth")),
                    ]
                )
            ),
            ("org.freedesktop.Secret.Item.Label", .string("remote-auth: a1")),
        ])
        let secret = DBusValue.structure([
            .objectPath("/org/freedesktop/secrets/session/s2"),
            .bytes(Captured.hex("f110e125c46d73e5cf8d26b68bc9df82")),
            .bytes(Captured.hex("4e460d5133a53af05280596bd2613815")),
            .string("text/plain"),
        ])
        try roundTrip(
            Captured.createItem,
            DBusMessage(
                kind: .methodCall,
                serial: 10,
                fields: [
                    .path("/org/freedesktop/secrets/aliases/default"), .interface("org.freedesktop.Secret.Collection"),
                    .destination("org.freedesktop.secrets"), .signature("a{sv}(oayays)b"), .member("CreateItem"),
                    .sender(":1.5"),
                ],
                body: [properties, secret, .boolean(true)]
            )
        )
    }

    @Test func getSecretsReplyWithAStructOfByteArrays() throws {
        let secret = DBusValue.structure([
            .objectPath("/org/freedesktop/secrets/session/s3"),
            .bytes(Captured.hex("c46d106816147373ea7eaa63b2d22b32")),
            .bytes(Captured.hex("e16cc6336c66c41106b7d03e570f1bb3")),
            .string("text/plain"),
        ])
        try roundTrip(
            Captured.getSecretsReply,
            DBusMessage(
                kind: .methodReturn,
                flags: DBusMessage.noReplyExpected,
                serial: 16,
                fields: [.destination(":1.6"), .signature("a{o(oayays)}"), .replySerial(11), .sender(":1.0")],
                body: [
                    .array(
                        .dictEntry(.objectPath, secret.type),
                        [.dictEntry(.objectPath("/org/freedesktop/secrets/collection/login/1"), secret)]
                    )
                ]
            )
        )
        // The secret's description shows its length, never its bytes.
        #expect("\(secret)".contains("<16 bytes>"))
        #expect(!"\(secret)".contains("225"))
    }

    // MARK: The specification's alignment rules, by hand.

    private func encode(_ values: DBusValue...) throws -> [UInt8] {
        var encoder = DBusEncoder()
        for value in values { try encoder.write(value) }
        return encoder.bytes
    }

    /// "The array length … does not include the padding after the length", and the padding to
    /// the element's alignment is there even when the array is empty (Marshaling, ARRAY).
    @Test func emptyArrayOfStructsIsPaddedToEight() throws {
        #expect(try encode(.array(.structure([.byte]), [])) == [0, 0, 0, 0, 0, 0, 0, 0])
        #expect(try encode(.byte(7), .array(.int64, [])) == [7, 0, 0, 0, 0, 0, 0, 0])
        #expect(try encode(.array(.int64, [.int64(1)])) == [8, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0])
    }

    /// A BOOLEAN is a UINT32 of 0 or 1; a STRING a UINT32 length, the bytes and a NUL; a
    /// SIGNATURE a byte length, the bytes and a NUL; a VARIANT its signature then its value at
    /// the value's own alignment.
    @Test func basicTypesAndVariantAlignment() throws {
        #expect(try encode(.byte(1), .boolean(true)) == [1, 0, 0, 0, 1, 0, 0, 0])
        #expect(try encode(.string("ab")) == [2, 0, 0, 0, 0x61, 0x62, 0])
        #expect(try encode(.signature("a{sv}")) == [5] + Array("a{sv}".utf8) + [0])
        #expect(try encode(.variant(.uint32(3))) == [1, UInt8(ascii: "u"), 0, 0, 3, 0, 0, 0])
        #expect(try encode(.int16(-2), .uint64(1)) == [0xfe, 0xff, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0])
    }

    // MARK: Hostile input: a typed error, never a crash.

    private func decodeBody(_ signature: String, _ bytes: [UInt8]) throws -> [DBusValue] {
        var decoder = DBusDecoder(bytes)
        let values = try DBusType.parse(signature: signature).map { try decoder.read($0) }
        guard decoder.offset == bytes.count else { throw DBusError.malformed("bytes left") }
        return values
    }

    private func expectMalformed(_ signature: String, _ bytes: [UInt8]) {
        #expect(throws: DBusError(.malformedMessage, "")) { try decodeBody(signature, bytes) }
    }

    @Test func strictReading() throws {
        #expect(try decodeBody("yb", [1, 0, 0, 0, 1, 0, 0, 0]) == [.byte(1), .boolean(true)])
        expectMalformed("yb", [1, 9, 0, 0, 1, 0, 0, 0])  // padding not zero
        expectMalformed("b", [2, 0, 0, 0])  // a boolean of 2
        expectMalformed("s", [2, 0, 0, 0, 0x61, 0x62, 1])  // not NUL-terminated
        expectMalformed("s", [2, 0, 0, 0, 0x61, 0, 0])  // a NUL inside
        expectMalformed("s", [2, 0, 0, 0, 0xff, 0xfe, 0])  // not UTF-8
        expectMalformed("s", [0xff, 0xff, 0xff, 0x7f, 0])  // longer than the message
        expectMalformed("o", [2, 0, 0, 0, 0x61, 0x62, 0])  // not an object path
        expectMalformed("o", [2, 0, 0, 0, 0x2f, 0x2f, 0])  // an empty element
        expectMalformed("au", [4, 0, 0, 0, 1, 0])  // the array runs past the message
        expectMalformed("au", [2, 0, 0, 0, 1, 0, 0, 0])  // an element runs past the array
        expectMalformed("ay", [0, 0, 0, 5])  // longer than 64 MiB
        expectMalformed("v", [1, UInt8(ascii: "h"), 0, 0, 0, 0, 0])  // a type this client does not read
        expectMalformed("v", [2, UInt8(ascii: "u"), UInt8(ascii: "u"), 0])  // two types in a variant
        expectMalformed("g", [2, UInt8(ascii: "a"), UInt8(ascii: "{"), 0])  // a bad signature
    }

    @Test func signatureRules() throws {
        #expect(
            try DBusType.parse(signature: "a{o(oayays)}") == [
                .array(.dictEntry(.objectPath, .structure([.objectPath, .array(.byte), .array(.byte), .string])))
            ]
        )
        #expect(try DBusType.parse(signature: "a{sv}(oayays)b").map(\.description) == ["a{sv}", "(oayays)", "b"])
        for bad in ["a", "()", "(s", "{ss}", "a{vs}", "a{sss}", "z", String(repeating: "a", count: 33) + "y"] {
            #expect(throws: DBusError.self, "\(bad)") { try DBusType.parse(signature: bad) }
        }
        #expect(throws: DBusError.self) { try DBusType.parse(signature: String(repeating: "y", count: 256)) }
        #expect(try DBusType.parse(signature: String(repeating: "a", count: 32) + "y").count == 1)
    }

    @Test func messageRules() throws {
        var bytes = Captured.openSessionReply
        bytes[3] = 2  // protocol version 2
        #expect(throws: DBusError.self) { try DBusMessage.decode(bytes) }
        bytes = Captured.openSessionReply
        bytes[0] = UInt8(ascii: "x")
        #expect(throws: DBusError.self) { try DBusMessage.decode(bytes) }
        #expect(throws: DBusError.self) { try DBusMessage.decode(Array(Captured.openSessionReply.dropLast())) }
        #expect(throws: DBusError.self) { try DBusMessage.decode(Captured.openSessionReply + [0]) }
        // Too long for the reader's bound: refused from the first 16 bytes.
        #expect(throws: DBusError(.messageTooLarge, "")) {
            try DBusMessage.length(ofMessageStartingWith: Captured.createItem.prefix(16), maximum: 256)
        }
        #expect(
            try DBusMessage.length(ofMessageStartingWith: Captured.createItem.prefix(16), maximum: 1024)
                == Captured.createItem.count
        )
        #expect(try DBusMessage.length(ofMessageStartingWith: Captured.createItem.prefix(15), maximum: 1024) == nil)
        // A body that is not what SIGNATURE says is not sent.
        let wrong = DBusMessage(
            kind: .methodCall,
            serial: 1,
            fields: [.path("/"), .member("M"), .signature("u")],
            body: [.string("x")]
        )
        #expect(throws: DBusError(.invalidArgument, "")) { try wrong.encoded() }
        #expect(throws: DBusError(.invalidArgument, "")) {
            try DBusMessage.methodCall(
                destination: "d",
                path: "/",
                interface: "i",
                member: "m",
                body: [.string("a\0b")]
            ).encoded()
        }
    }

    /// A big-endian message (endianness byte `B`), made by hand from the specification's header
    /// layout: a method return, serial 7, REPLY_SERIAL 2, SIGNATURE `u`, body 5.
    @Test func bigEndianMessage() throws {
        let bytes = Captured.hex(
            "42020001" + "00000004" + "00000007" + "0000000f" + "05017500" + "00000002" + "08016700" + "017500" + "00"
                + "00000005"
        )
        #expect(try DBusMessage.length(ofMessageStartingWith: bytes, maximum: 1024) == 36)
        #expect(
            try DBusMessage.decode(bytes)
                == DBusMessage(
                    kind: .methodReturn,
                    serial: 7,
                    fields: [.replySerial(2), .signature("u")],
                    body: [.uint32(5)]
                )
        )
    }

    @Test func addresses() throws {
        #expect(
            try DBusAddress.parse("unix:path=/tmp/dbus-BpjAbN8Dcw,guid=9092d98c6483d80baa6930426b0ac61b") == [
                .path("/tmp/dbus-BpjAbN8Dcw")
            ]
        )
        #expect(
            try DBusAddress.parse("tcp:host=127.0.0.1,port=1;unix:abstract=/tmp/dbus-x%2cy") == [
                .abstract("/tmp/dbus-x,y")
            ]
        )
        #expect(throws: DBusError(.noBus, "")) { try DBusAddress.parse("") }
        #expect(throws: DBusError(.unsupportedAddress, "")) { try DBusAddress.parse("tcp:host=localhost,port=1") }
        #expect(throws: DBusError(.unsupportedAddress, "")) { try DBusAddress.parse("unix:path=/a%zz") }
        #expect(throws: DBusError(.unsupportedAddress, "")) { try DBusAddress.parse("nonsense") }
    }
}
