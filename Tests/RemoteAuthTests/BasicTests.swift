import RemoteAuth
import Testing

struct BasicVector: Decodable, Sendable, CustomTestStringConvertible {
    let name, username, password, encoding: String
    let expectedCredentials, expectedHeader: String
    var testDescription: String { name }

    enum CodingKeys: String, CodingKey {
        case name, username, password, encoding
        case expectedCredentials = "expected_credentials"
        case expectedHeader = "expected_header"
    }

    var basicEncoding: BasicCredentials.Encoding {
        get throws {
            switch encoding {
            case "UTF-8": return .utf8
            case "ISO-8859-1": return .isoLatin1
            default: throw Vectors.Missing(description: "unknown encoding \(encoding) in \(name)")
            }
        }
    }
}

@Suite struct BasicVectorTests {
    @Test(arguments: try Vectors.load("http_basic", as: BasicVector.self))
    func authorizationHeader(_ v: BasicVector) throws {
        let credentials = try BasicCredentials(user: v.username, password: v.password, encoding: v.basicEncoding)
        #expect(credentials.encodedCredentials == v.expectedCredentials)
        #expect(credentials.authorization == v.expectedHeader)
    }

    @Test(arguments: try Vectors.load("http_basic", as: BasicVector.self))
    func serverParsesHeader(_ v: BasicVector) throws {
        let parsed = try BasicCredentials(authorization: v.expectedHeader, encoding: v.basicEncoding)
        #expect(parsed.user == v.username)
        #expect(parsed.hasPassword(v.password))
        #expect(!parsed.hasPassword(v.password + "x"))
        #expect(!parsed.hasPassword("wrong"))
    }

    /// The other encoding gives different bytes for non-ASCII credentials: the Latin-1 vector
    /// must not come out of the UTF-8 encoder, and the reverse.
    @Test(arguments: try Vectors.load("http_basic", as: BasicVector.self))
    func otherEncodingDiffersForNonASCII(_ v: BasicVector) throws {
        let isASCII = (v.username + v.password).utf8.allSatisfy { $0 < 0x80 }
        let other: BasicCredentials.Encoding = try v.basicEncoding == .utf8 ? .isoLatin1 : .utf8
        guard let credentials = try? BasicCredentials(user: v.username, password: v.password, encoding: other) else {
            return  // not representable in Latin-1: covered by unencodableCharacter below.
        }
        #expect((credentials.authorization == v.expectedHeader) == isASCII)
    }
}

@Suite struct BasicCredentialsTests {
    @Test func userWithColonIsRejected() {
        #expect(throws: BasicError(.invalidUserID, "")) {
            try BasicCredentials(user: "al:addin", password: "open sesame")
        }
    }

    @Test(arguments: ["a\u{0}b", "tab\there", "new\nline", "del\u{7F}"])
    func controlCharactersAreRejected(_ text: String) {
        #expect(throws: BasicError(.invalidUserID, "")) { try BasicCredentials(user: text, password: "p") }
        #expect(throws: BasicError(.invalidPassword, "")) { try BasicCredentials(user: "u", password: text) }
    }

    @Test func latin1RejectsCharactersOutsideLatin1() {
        #expect(throws: BasicError(.unencodableCharacter, "")) {
            try BasicCredentials(user: "u", password: "€uro", encoding: .isoLatin1)
        }
        #expect(throws: BasicError(.unencodableCharacter, "")) {
            try BasicCredentials(user: "☃", password: "p", encoding: .isoLatin1)
        }
    }

    @Test func emptyPasswordAndColonsInPasswordRoundTrip() throws {
        for (user, password) in [("user", ""), ("user", "pa:ss:word"), ("", "x")] {
            let header = try BasicCredentials(user: user, password: password).authorization
            let parsed = try BasicCredentials(authorization: header)
            #expect(parsed.user == user)
            #expect(parsed.password == Secret(password))
            #expect(parsed.password.reveal() == password)
        }
    }

    @Test func schemeIsCaseInsensitiveAndSpacesAreAllowed() throws {
        for header in ["basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==", "BASIC   QWxhZGRpbjpvcGVuIHNlc2FtZQ==  "] {
            let parsed = try BasicCredentials(authorization: header)
            #expect(parsed.user == "Aladdin")
            #expect(parsed.hasPassword("open sesame"))
        }
    }

    @Test(arguments: [
        ("Bearer QWxhZGRpbjpvcGVuIHNlc2FtZQ==", BasicError.Code.wrongScheme),
        ("Basically QWxhZGRpbjpvcGVuIHNlc2FtZQ==", .wrongScheme),
        ("", .wrongScheme),
        ("Basic", .malformedCredentials),
        ("Basic ", .malformedCredentials),
        ("Basic\tQWxhZGRpbjpvcGVuIHNlc2FtZQ==", .malformedCredentials),
        ("Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ", .malformedCredentials),  // missing padding
        ("Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ=a", .malformedCredentials),  // padding inside
        ("Basic QWxh ZGRpbjpvcGVuIHNlc2FtZQ==", .malformedCredentials),
        ("Basic QWxhZGRpbg==", .malformedCredentials),  // "Aladdin": no colon
        ("Basic /w==", .malformedCredentials),  // 0xFF: not UTF-8
        ("Basic dXNlcjpwYXNzCg==", .invalidPassword),  // "user:pass\n"
    ])
    func malformedAuthorization(_ header: String, _ code: BasicError.Code) {
        #expect(throws: BasicError(code, "")) { try BasicCredentials(authorization: header) }
    }

    @Test func descriptionsAndErrorsNeverShowThePassword() throws {
        let password = "s3cr3t-Pa55"
        let credentials = try BasicCredentials(user: "alice", password: password)
        for text in [
            credentials.description, credentials.debugDescription, String(describing: credentials),
            String(reflecting: credentials), "\(credentials)",
        ] {
            #expect(!text.contains(password))
            #expect(text.contains("alice"))
        }
        let errors: [any Error] = [
            #expect(throws: BasicError.self) { try BasicCredentials(user: "a:b", password: password) },
            #expect(throws: BasicError.self) { try BasicCredentials(user: "a", password: password + "\n") },
            #expect(throws: BasicError.self) {
                try BasicCredentials(user: "a", password: password + "€", encoding: .isoLatin1)
            },
            #expect(throws: BasicError.self) {
                try BasicCredentials(
                    authorization: "Basic " + RemoteAuthBase64.encode(Array("a:\(password)\u{1}".utf8))
                )
            },
        ].compactMap { $0 }
        #expect(errors.count == 4)
        for error in errors {
            #expect(!String(describing: error).contains(password))
            #expect(!String(reflecting: error).contains(password))
        }
    }
}

@Suite struct Base64Tests {
    /// RFC 4648 §10 test vectors.
    @Test(arguments: [
        ("", ""), ("f", "Zg=="), ("fo", "Zm8="), ("foo", "Zm9v"), ("foob", "Zm9vYg=="), ("fooba", "Zm9vYmE="),
        ("foobar", "Zm9vYmFy"),
    ])
    func rfc4648Section10(_ plain: String, _ encoded: String) {
        #expect(RemoteAuthBase64.encode(Array(plain.utf8)) == encoded)
        #expect(RemoteAuthBase64.decode(encoded) == Array(plain.utf8))
    }

    @Test func allByteValuesRoundTrip() {
        var generator = SplitMix64(seed: 7)
        for length in 0..<70 {
            let bytes = (0..<length).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
            #expect(RemoteAuthBase64.decode(RemoteAuthBase64.encode(bytes)) == bytes)
        }
        let all = (0...255).map(UInt8.init)
        #expect(RemoteAuthBase64.decode(RemoteAuthBase64.encode(all)) == all)
        #expect(RemoteAuthBase64.encode([0xFB, 0xFF]) == "+/8=")
    }

    @Test(arguments: [
        "Zg", "Zg=", "Zg===", "=Zg=", "Z===", "Zh==", "Zm9=", "Zm 9v", "Zm9v\n", "Zm-_", "Zg==Zg==", "é123",
    ])
    func rejectsNonCanonicalOrInvalid(_ text: String) {
        #expect(RemoteAuthBase64.decode(text) == nil)
    }
}
