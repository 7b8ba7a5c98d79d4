import Foundation
import HTTPTypes
import RemoteAuth
import Testing

/// `application/x-www-form-urlencoded`: exact bytes both ways, and the inputs it refuses.
/// Decoding: WHATWG URL Standard §5.1 (https://url.spec.whatwg.org/#urlencoded-parsing);
/// encoding: RFC 3986 §2.3 unreserved kept, everything else `%XY` (RFC 5849 §3.6).
@Suite struct FormURLEncodingTests {
    struct Pair: Hashable, CustomStringConvertible {
        let name, value: String
        var description: String { "\(name)=\(value)" }
    }

    func pairs(_ decoded: [(name: String, value: String)]) -> [Pair] {
        decoded.map { Pair(name: $0.name, value: $0.value) }
    }

    @Test(arguments: [
        ([("a", "b")], "a=b"),
        ([("a", "b c"), ("x", "*+/~")], "a=b%20c&x=%2A%2B%2F~"),
        ([("k", "")], "k="),
        ([("", "v")], "=v"),
        ([("é", "ü😀")], "%C3%A9=%C3%BC%F0%9F%98%80"),
        ([("a", "1"), ("a", "2")], "a=1&a=2"),
        ([("q", "a&b=c%d")], "q=a%26b%3Dc%25d"),
        ([], ""),
    ])
    func encode(_ input: [(String, String)], _ expected: String) {
        #expect(FormURLEncoding.encode(input.map { (name: $0.0, value: $0.1) }) == expected)
    }

    @Test(arguments: [
        ("a=&b&&c=1=2&d+e=f+g&=v", [("a", ""), ("b", ""), ("c", "1=2"), ("d e", "f g"), ("", "v")]),
        ("%41%62=%c3%a9%C3%A9", [("Ab", "éé")]),
        ("x=%2B+%20", [("x", "+  ")]),
        ("a=1&a=2", [("a", "1"), ("a", "2")]),
        ("", []),
        ("&&", []),
        ("=", [("", "")]),
        ("emoji=%F0%9F%98%80", [("emoji", "😀")]),
    ])
    func decode(_ input: String, _ expected: [(String, String)]) throws {
        #expect(pairs(try FormURLEncoding.decode(input)) == expected.map { Pair(name: $0.0, value: $0.1) })
        #expect(
            pairs(try FormURLEncoding.decode(bytes: Array(input.utf8)))
                == expected.map { Pair(name: $0.0, value: $0.1) }
        )
    }

    @Test(arguments: ["a=%", "a=%4", "a=%G1", "%zz=1", "a=b&c=%%", "a=%4-"])
    func malformedPercentEncoding(_ input: String) {
        #expect(throws: FormURLEncodingError(.malformedPercentEncoding, "")) { try FormURLEncoding.decode(input) }
    }

    @Test(arguments: ["a=%FF", "a=%C3", "%C3%28=x", "a=%ED%A0%80"])
    func invalidUTF8(_ input: String) {
        #expect(throws: FormURLEncodingError(.invalidUTF8, "")) { try FormURLEncoding.decode(input) }
    }

    @Test func rawBytesThatAreNotUTF8() {
        #expect(throws: FormURLEncodingError(.invalidUTF8, "")) {
            try FormURLEncoding.decode(bytes: [UInt8(ascii: "a"), UInt8(ascii: "="), 0xFF])
        }
    }

    @Test func firstValue() throws {
        #expect(try FormURLEncoding.firstValue(named: "b", in: "a=1&b=2&b=3") == "2")
        #expect(try FormURLEncoding.firstValue(named: "c", in: "a=1") == nil)
    }

    @Test func roundTrip() throws {
        var generator = SplitMix64(seed: 11)
        let alphabet = Array("aZ09-._~ !*'()+/&=%?#é😀\u{0}\t")
        for _ in 0..<200 {
            let input = (0..<Int.random(in: 0...4, using: &generator)).map { _ in
                (
                    name: String(
                        (0..<Int.random(in: 0...6, using: &generator)).map { _ in
                            alphabet.randomElement(using: &generator)!
                        }
                    ),
                    value: String(
                        (0..<Int.random(in: 0...6, using: &generator)).map { _ in
                            alphabet.randomElement(using: &generator)!
                        }
                    )
                )
            }
            let decoded = try FormURLEncoding.decode(FormURLEncoding.encode(input))
            // Empty pairs ("=" with both empty) survive; only a pair that encodes to nothing would not.
            #expect(pairs(decoded) == pairs(input))
        }
    }

    @Test func contentType() {
        func fields(_ values: String...) -> HTTPFields {
            HTTPFields(values.map { HTTPField(name: .contentType, value: $0) })
        }
        #expect(FormURLEncoding.mediaType == "application/x-www-form-urlencoded")
        for yes in [
            "application/x-www-form-urlencoded", "Application/X-WWW-Form-URLEncoded; charset=utf-8",
            " application/x-www-form-urlencoded\t;x=y",
        ] {
            #expect(FormURLEncoding.isFormEncoded(fields(yes)), "\(yes)")
        }
        for no in ["application/json", "application/x-www-form-urlencoded2", "", "multipart/form-data"] {
            #expect(!FormURLEncoding.isFormEncoded(fields(no)), "\(no)")
        }
        #expect(!FormURLEncoding.isFormEncoded([:]))
        #expect(!FormURLEncoding.isFormEncoded(fields("text/plain", "application/x-www-form-urlencoded")))
    }
}

@Suite struct RandomSourceTests {
    /// SplitMix64 from seed 0 starts 0xE220A8397B1DCDAF (Steele, Lea, Flood 2014; the reference
    /// `splitmix64.c`); bytes come out least significant first.
    @Test func seededKnownAnswer() {
        #expect(RandomSource.seeded(0).bytes(8) == [0xAF, 0xCD, 0x1D, 0x7B, 0x39, 0xA8, 0x20, 0xE2])
    }

    @Test func seededIsReproducibleAndAdvances() {
        let a = RandomSource.seeded(42)
        let b = RandomSource.seeded(42)
        let first = a.bytes(20)
        #expect(first == b.bytes(20))
        #expect(a.bytes(20) != first)
        #expect(RandomSource.seeded(43).bytes(20) != first)
    }

    @Test func repeatingAndHex() {
        #expect(RandomSource.repeating([1, 2, 3]).bytes(5) == [1, 2, 3, 1, 2])
        #expect(RandomSource.repeating([0xAB, 0x01]).hex(byteCount: 3) == "ab01ab")
        #expect(RandomSource.repeating([0xFF]).bytes(0) == [])
    }

    @Test func system() {
        let a = RandomSource.system.hex(byteCount: 16)
        let b = RandomSource.system.hex(byteCount: 16)
        #expect(a.utf8.count == 32)
        #expect(a.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) })
        #expect(a != b)
    }

    @Test func noncesAndCnoncesTakeTheSource() {
        #expect(OAuth1.Nonce.random(from: .repeating([0x0F])) == String(repeating: "0f", count: 16))
        #expect(DigestCnonceGenerator.random(.repeating([0xA0])).next() == String(repeating: "a0", count: 16))
        let seeded = DigestCnonceGenerator.random(.seeded(0)).next()
        #expect(seeded.hasPrefix("afcd1d7b39a820e2"))
    }
}

@Suite struct SecretTests {
    @Test func equalityIsByValue() {
        #expect(Secret("wonderland") == Secret("wonderland"))
        #expect(Secret("wonderland") != Secret("wonderlanD"))
        #expect(Secret("wonderland") != Secret("wonderlan"))
        #expect(Secret("") != Secret("\u{0}"))
        #expect(Secret("") == "")
        #expect(Secret("abc").matches("abc"))
        #expect(!Secret("abc").matches("abcd"))
        #expect(!Secret("abc").matches(""))
    }

    /// A constant hash: two different secrets hash alike, so a hash value says nothing.
    @Test func hashLeaksNothing() {
        #expect(Secret("a").hashValue == Secret("a completely different and longer secret").hashValue)
        #expect(Set([Secret("x"), Secret("x"), Secret("y")]).count == 2)
    }

    @Test func everyRenderingIsRedacted() {
        let secret: Secret = "s3cr3t-Pa55"
        var dumped = ""
        dump(secret, to: &dumped)
        let basic = try? BasicCredentials(user: "alice", password: secret)
        var dumpedBasic = ""
        dump(basic, to: &dumpedBasic)
        let client = OAuth1.ClientCredentials(key: "key", secret: secret)
        var dumpedClient = ""
        dump(client, to: &dumpedClient)
        let credential = Credential(user: "alice", password: secret)
        var dumpedCredential = ""
        dump(credential, to: &dumpedCredential)
        let digest = DigestCredentials(username: "alice", password: secret)
        var dumpedDigest = ""
        dump(digest, to: &dumpedDigest)
        for text in [
            secret.description, secret.debugDescription, "\(secret)", String(reflecting: secret), dumped,
            dumpedBasic, dumpedClient, dumpedCredential, dumpedDigest, String(reflecting: client),
            String(reflecting: basic as Any), "\(OAuth1.RequestToken(token: "t", secret: secret))",
        ] {
            #expect(!text.contains("s3cr3t"), "\(text)")
        }
        #expect(secret.description == "<redacted>")
        #expect(dumpedClient.contains("key"))
    }

    @Test func codableAsAPlainString() throws {
        let data = try JSONEncoder().encode([Secret("pa\"ss")])
        #expect(String(decoding: data, as: UTF8.self) == #"["pa\"ss"]"#)
        #expect(try JSONDecoder().decode([Secret].self, from: data) == [Secret("pa\"ss")])
        // Token credentials written before Secret existed.
        let old = #"{"token":"t","secret":"ts"}"#
        let token = try JSONDecoder().decode(OAuth1.TokenCredentials.self, from: Data(old.utf8))
        #expect(token.secret.reveal() == "ts")
    }

    @Test func revealIsTheOnlyWayOut() {
        let secret = Secret("é:x")
        #expect(secret.reveal() == "é:x")
        #expect(secret.withRevealedUTF8 { Array($0) } == Array("é:x".utf8))
        #expect(!secret.isEmpty)
        #expect(Secret("").isEmpty)
    }
}

/// Base64url without padding (RFC 4648 §5, RFC 7515 §2), canonical only: the decoder accepts a
/// string exactly when re-encoding what it decodes gives the string back (RFC 4648 §3.5: the pad
/// bits of the last group are zero), checked for every last group of 2 and 3 characters.
@Suite struct Base64URLTests {
    static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    @Test func acceptsExactlyTheCanonicalEncodings() {
        var accepted = 0
        for length in [2, 3] {
            let total = length == 2 ? 64 * 64 : 64 * 64 * 64
            for number in 0..<total {
                var digits: [UInt8] = []
                var rest = number
                for _ in 0..<length {
                    digits.append(Self.alphabet[rest % 64])
                    rest /= 64
                }
                let text = "AAAA" + String(decoding: digits, as: UTF8.self)
                let decoded = RemoteAuthBase64URL.decode(text)
                if let decoded {
                    accepted += 1
                    #expect(RemoteAuthBase64URL.encode(decoded) == text)
                    #expect(decoded.count == 3 + length - 1)
                }
            }
        }
        // 2 characters carry one octet (256 canonical strings), 3 carry two (65,536).
        #expect(accepted == 256 + 65_536)
    }

    /// Every octet outside the alphabet, at every position of a 2-, 3- and 4-character group
    /// (and after a full group), is refused: `=`, `+`, `/`, white space, controls, non-ASCII.
    @Test func refusesEveryOctetOutsideTheAlphabet() {
        let outside = (0...255).map(UInt8.init).filter { !Self.alphabet.contains($0) }
        #expect(outside.count == 192)
        for octet in outside {
            for length in [2, 3, 4, 6] {
                for position in 0..<length {
                    var bytes = [UInt8](repeating: UInt8(ascii: "A"), count: length)
                    bytes[position] = octet
                    let decoded = bytes.withUnsafeBufferPointer { RemoteAuthBase64URL.decode(bytes: $0) }
                    #expect(decoded == nil, "octet \(octet) at \(position) of \(length)")
                }
            }
        }
    }

    @Test func refusesWhatIsNotBase64URL() {
        for text in ["A", "AAAAA", "AA==", "AA=", "A+", "A/", "A A", "QQ\n", "é", "QR"] {
            #expect(RemoteAuthBase64URL.decode(text) == nil, "\(text)")
        }
        #expect(RemoteAuthBase64URL.decode("") == [])
        #expect(RemoteAuthBase64URL.decode("QQ") == [0x41])
        #expect(RemoteAuthBase64URL.decode("_-8") == [0xFF, 0xEF])
        // RFC 7515 Appendix C's example: [3, 236, 255, 224, 193] is "A-z_4ME".
        #expect(RemoteAuthBase64URL.decode("A-z_4ME") == [3, 236, 255, 224, 193])
        #expect(RemoteAuthBase64URL.encode([3, 236, 255, 224, 193]) == "A-z_4ME")
    }
}

/// The core's UTF-8 validation, which stands in for `String(validating:as:)` (macOS 15 / iOS 18):
/// the same answer as the standard library's on fixed cases (Unicode §3.9, Table 3-7) and on
/// random bytes.
@Suite struct UTF8ValidationTests {
    @Test func fixedCases() {
        #expect(String(validatingUTF8Bytes: Array("héllo €𝄞".utf8)) == "héllo €𝄞")
        #expect(String(validatingUTF8Bytes: [0xEF, 0xBF, 0xBD]) == "\u{FFFD}")  // U+FFFD itself is valid
        #expect(String(validatingUTF8Bytes: [UInt8]()) == "")
        for invalid: [UInt8] in [
            [0xC0, 0x80],  // overlong NUL
            [0xED, 0xA0, 0x80],  // a surrogate
            [0xE2, 0x82],  // truncated
            [0xF4, 0x90, 0x80, 0x80],  // above U+10FFFF
            [0x80],  // a lone continuation byte
            [0xFF],
        ] {
            #expect(String(validatingUTF8Bytes: invalid) == nil, "\(invalid)")
        }
    }

    @Test func agreesWithTheStandardLibrary() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<20_000 {
            let count = Int.random(in: 0...6, using: &generator)
            let bytes = (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
            #expect(String(validatingUTF8Bytes: bytes) == String(validating: bytes, as: UTF8.self), "\(bytes)")
        }
    }

    /// The lock serializes: 8 tasks × 1,000 increments end at 8,000.
    @Test func lockedSerializes() async {
        let counter = Locked(0)
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask { for _ in 0..<1_000 { counter.withLock { $0 += 1 } } }
            }
        }
        #expect(counter.withLock { $0 } == 8_000)
    }
}
