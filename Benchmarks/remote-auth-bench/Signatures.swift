import Crypto
import HTTPTypes
import RemoteAuth

/// AWS Signature Version 4 and RFC 9421 request signatures against their cryptographic floors,
/// set up once (fixed keys and dates, so that the instruction-count mode's set-up is the same in
/// both runs):
/// - `sigv4-header`: the signed request (`Authorization`) from a new `AWS.SigV4Signer`, so the
///   day's key is derived each time, beside `sigv4-floor`: the 4 HMAC-SHA256 of the key
///   derivation, 1 HMAC-SHA256 of the string to sign and 1 SHA-256 of the canonical request, of
///   the same lengths. Target: within 1.3x.
/// - `sigv4-header-cached`: the same from one signer, its day's key cached, beside
///   `sigv4-floor-cached` (1 HMAC-SHA256 with the derived key and 1 SHA-256). Target: within 1.3x.
/// - `http-signature-ed25519`: an RFC 9421 `ed25519` signature of a request (`@method`,
///   `@target-uri`, `content-type`, `x-amz-target`; `created`, `expires`, `keyid`, `alg`), its
///   fields appended, beside `ed25519-sign-raw`: one Ed25519 signature of a base of the same
///   length. Target: within 1.3x.
/// The payload's hash is given (a client hashes its body once, whatever it signs with).
enum SignatureWorkload {
    static let credentials = AWS.Credentials(
        accessKeyID: "AKIDEXAMPLE",
        secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"
    )
    static let request = try! HTTPRequest(
        method: .post,
        absoluteURL: "https://dynamodb.us-east-1.amazonaws.com/",
        headerFields: [
            .contentType: "application/x-amz-json-1.0",
            HTTPField.Name("X-Amz-Target")!: "DynamoDB_20120810.GetItem",
        ]
    )
    static let payloadHash = Hex.encode(Array(SHA256.hash(data: Array(#"{"TableName":"Music"}"#.utf8))))
    static let date = "20261127T123456Z"
    static let signer = AWS.SigV4Signer(credentials: credentials, region: "us-east-1", service: "dynamodb")
    static let sample = try! signer.sign(request, body: nil, payloadHash: payloadHash, date: date)
    static let canonicalRequest = Array(sample.canonicalRequest.utf8)
    static let stringToSign = Array(sample.stringToSign.utf8)
    static let derivationInputs = ["20261127", "us-east-1", "dynamodb", "aws4_request"].map { Array($0.utf8) }
    static let secretKey = Array("AWS4wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY".utf8)
    static let signingKey: SymmetricKey = {
        var key = secretKey
        for part in derivationInputs {
            key = Array(HMAC<SHA256>.authenticationCode(for: part, using: SymmetricKey(data: key)))
        }
        return SymmetricKey(data: key)
    }()

    /// The signed request from a new signer: the day's key derived, then the signature.
    static func sigV4Header() throws -> Int {
        let fresh = AWS.SigV4Signer(credentials: credentials, region: "us-east-1", service: "dynamodb")
        return try fresh.sign(request, body: nil, payloadHash: payloadHash, date: date).signature.utf8.count
    }

    /// The signed request from the shared signer, the day's key cached.
    static func sigV4HeaderCached() throws -> Int {
        try signer.sign(request, body: nil, payloadHash: payloadHash, date: date).signature.utf8.count
    }

    /// The floor with the key derived: 4 HMAC-SHA256 of the derivation, 1 of the string to
    /// sign, 1 SHA-256 of the canonical request.
    static func sigV4Floor() -> Int {
        var key = secretKey
        for part in derivationInputs {
            key = Array(HMAC<SHA256>.authenticationCode(for: part, using: SymmetricKey(data: key)))
        }
        let hash = SHA256.hash(data: canonicalRequest)
        let mac = HMAC<SHA256>.authenticationCode(for: stringToSign, using: SymmetricKey(data: key))
        return hash.withUnsafeBytes { Int($0[0]) } &+ mac.withUnsafeBytes { Int($0[0]) }
    }

    /// The floor with the key in hand: 1 SHA-256 of the canonical request, 1 HMAC-SHA256.
    static func sigV4FloorCached() -> Int {
        let hash = SHA256.hash(data: canonicalRequest)
        let mac = HMAC<SHA256>.authenticationCode(for: stringToSign, using: signingKey)
        return hash.withUnsafeBytes { Int($0[0]) } &+ mac.withUnsafeBytes { Int($0[0]) }
    }

    static let ed25519Key = try! Curve25519.Signing.PrivateKey(rawRepresentation: [UInt8](repeating: 7, count: 32))
    static let messageSigner = HTTPMessageSignatures.Signer(
        key: .ed25519(ed25519Key, keyID: "bench-ed25519"),
        components: [.method, .targetURI, .field(.contentType), .field(HTTPField.Name("x-amz-target")!)],
        now: { 1_700_000_000 }
    )
    static let signatureBase: [UInt8] = {
        var copy = request
        return Array(try! messageSigner.sign(&copy).signatureBase.utf8)
    }()

    /// An RFC 9421 signature of the request, `Signature-Input` and `Signature` appended.
    static func httpSignatureEd25519() throws -> Int {
        var copy = request
        return try messageSigner.sign(&copy).signature.count
    }

    /// One raw Ed25519 signature of a base of the same length.
    static func ed25519SignRaw() throws -> Int {
        try ed25519Key.signature(for: signatureBase).count
    }
}

/// The timed lines and their ratios (see ``SignatureWorkload``).
func signatureBenchmarks(iterations: Int) throws {
    if wanted("sigv4-header") || wanted("sigv4-floor") {
        let (header, floor) = try measurePair(
            iterations: iterations,
            SignatureWorkload.sigV4Header,
            SignatureWorkload.sigV4Floor
        )
        report("sigv4-header", header)
        report("sigv4-floor", floor)
        print("ratio sigv4-header/sigv4-floor: \(format2(header / floor))x (target < 1.3x)")
        let (cached, cachedFloor) = try measurePair(
            iterations: iterations,
            SignatureWorkload.sigV4HeaderCached,
            SignatureWorkload.sigV4FloorCached
        )
        report("sigv4-header-cached", cached)
        report("sigv4-floor-cached", cachedFloor)
        print("ratio sigv4-header-cached/sigv4-floor-cached: \(format2(cached / cachedFloor))x (target < 1.3x)")
    }
    if wanted("http-signature-ed25519") || wanted("ed25519-sign-raw") {
        let (signature, raw) = try measurePair(
            iterations: max(1, iterations / 10),
            SignatureWorkload.httpSignatureEd25519,
            SignatureWorkload.ed25519SignRaw
        )
        report("http-signature-ed25519", signature)
        report("ed25519-sign-raw", raw)
        print("ratio http-signature-ed25519/ed25519-sign-raw: \(format2(signature / raw))x (target < 1.3x)")
    }
}
