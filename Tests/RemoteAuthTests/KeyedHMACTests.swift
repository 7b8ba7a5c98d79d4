import Crypto
import RemoteAuth
import Testing

/// `KeyedHMAC`, the HMAC the OAuth 1.0a signer and verifier run (RFC 2104): the known answers of
/// RFC 2202 §3 (HMAC-SHA1) and RFC 4231 §4 (HMAC-SHA256), a key shorter than, equal to and
/// longer than the block, and the same bytes as swift-crypto's `HMAC` for every key length
/// around the block size.
@Suite struct KeyedHMACTests {
    struct Vector: Sendable, CustomTestStringConvertible {
        let id: String
        let key: [UInt8]
        let data: String
        let sha1: String
        let sha256: String
        var testDescription: String { id }
    }

    static let vectors = [
        Vector(
            id: "case 1 (20-byte key)",
            key: Array(repeating: 0x0B, count: 20),
            data: "Hi There",
            sha1: "b617318655057264e28bc0b6fb378c8ef146be00",
            sha256: "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"
        ),
        Vector(
            id: "case 2 (Jefe)",
            key: Array("Jefe".utf8),
            data: "what do ya want for nothing?",
            sha1: "effcdf6ae5eb2fa2d27416d5f184df9c259a7c79",
            sha256: "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        ),
    ]

    static func hex(_ bytes: UnsafeRawBufferPointer) -> String {
        bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }

    @Test(arguments: vectors)
    func knownAnswers(_ v: Vector) {
        let data = Array(v.data.utf8)
        #expect(KeyedHMAC<Insecure.SHA1>(key: v.key).withAuthenticationCode(for: data, Self.hex) == v.sha1)
        #expect(KeyedHMAC<SHA256>(key: v.key).withAuthenticationCode(for: data, Self.hex) == v.sha256)
    }

    /// RFC 2202 case 6 (an 80-byte key) and RFC 4231 case 6 (131 bytes): hashed first.
    @Test func keysLongerThanTheBlock() {
        let data = Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8)
        #expect(
            KeyedHMAC<Insecure.SHA1>(key: Array(repeating: 0xAA, count: 80)).withAuthenticationCode(
                for: data,
                Self.hex
            ) == "aa4ae5e15272d00e95705637ce8a3b55ed402112"
        )
        #expect(
            KeyedHMAC<SHA256>(key: Array(repeating: 0xAA, count: 131)).withAuthenticationCode(for: data, Self.hex)
                == "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"
        )
    }

    @Test(arguments: [0, 1, 20, 63, 64, 65, 84, 128, 200])
    func sameAsSwiftCrypto(keyLength: Int) {
        let key = (0..<keyLength).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) }
        let message = Array("POST&https%3A%2F%2Fexample.com%2F&a%3D1".utf8)
        let sha1 = HMAC<Insecure.SHA1>.authenticationCode(for: message, using: SymmetricKey(data: key))
        let sha256 = HMAC<SHA256>.authenticationCode(for: message, using: SymmetricKey(data: key))
        #expect(KeyedHMAC<Insecure.SHA1>(key: key).withAuthenticationCode(for: message) { Array($0) } == Array(sha1))
        #expect(KeyedHMAC<SHA256>(key: key).withAuthenticationCode(for: message) { Array($0) } == Array(sha256))
    }

    @Test func validationComparesTheWholeCode() {
        let keyed = KeyedHMAC<Insecure.SHA1>(key: Array("Jefe".utf8))
        let data = Array("what do ya want for nothing?".utf8)
        let code = keyed.withAuthenticationCode(for: data) { Array($0) }
        #expect(keyed.isValidAuthenticationCode(code, for: data))
        var tampered = code
        tampered[19] ^= 1
        #expect(!keyed.isValidAuthenticationCode(tampered, for: data))
        #expect(!keyed.isValidAuthenticationCode(Array(code.dropLast()), for: data))
        #expect(!keyed.isValidAuthenticationCode(code, for: data + [0]))
    }
}
