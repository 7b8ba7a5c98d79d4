import Crypto
import HTTPTypes
import RemoteAuth

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The shared workload, set up once: Twitter's documented request (POST statuses/update with a
/// `status` form parameter and the `include_entities` query) and RFC 7616 §3.9.1's Digest
/// SHA-256 example. Both the timed mode and the instruction-count mode use it.
enum Workload {
    static let client = OAuth1.ClientCredentials(
        key: "xvz1evFS4wEEPTGEFPHBog",
        secret: "kAcSOqF21Fu85e7zjz7ZN2U4ZRhfV3WpwPAoE3Z7kBw"
    )
    static let token = OAuth1.TokenCredentials(
        token: "370773112-GmHxMAgYyLbNEtIKZeRNFsMKPR9EyMZeS9weJAEb",
        secret: "LswwdoUaIvS8ltyTt5jkRh4J50vUPVVHtR2YPi5kE"
    )
    static let request = try! HTTPRequest(
        method: .post,
        absoluteURL: "https://api.twitter.com/1.1/statuses/update.json?include_entities=true",
        headerFields: [.contentType: "application/x-www-form-urlencoded"]
    )
    static let body = Array("status=Hello%20Ladies%20%2B%20Gentlemen%2C%20a%20signed%20OAuth%20request%21".utf8)
    static let nonce = "kYjzVBB8Y0ZFabxSWbWovY3uYSQ2pTgmZeNu2VS4cg"
    static let timestamp = "1318622958"
    static let signer = try! OAuth1.Signer(client: client, token: token)
    /// The signed request, checked against the Twitter documentation's signature.
    static let signed: OAuth1.SignedRequest = {
        let signed = try! signer.sign(request, body: body, nonce: nonce, timestamp: timestamp)
        guard signed.signature == "hCtSmYh+iHYCEqBWrE7C7hYmtUk=" else {
            fatalError("the benchmark request no longer signs to the Twitter documentation's signature")
        }
        return signed
    }()
    static let baseString = signed.signatureBaseStringBytes!
    static let keyBytes = Array(
        "kAcSOqF21Fu85e7zjz7ZN2U4ZRhfV3WpwPAoE3Z7kBw&LswwdoUaIvS8ltyTt5jkRh4J50vUPVVHtR2YPi5kE".utf8
    )

    static let challenge = try! DigestChallenge(
        headerValue:
            "Digest realm=\"http-auth@example.org\", qop=\"auth, auth-int\", algorithm=SHA-256, nonce=\"7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v\", opaque=\"FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS\""
    )
    static let digestCredentials = DigestCredentials(username: "Mufasa", password: "Circle of Life")
    static let cnonce = "f2/wE4q74E6zIJEtWaHKaf5wv/H5QzzpXusqGemxURZJ"

    /// One signed `Authorization` value for the Twitter request.
    static func oauth1Header() throws -> Int {
        try signer.authorization(for: request, body: body, nonce: nonce, timestamp: timestamp).utf8.count
    }

    /// The whole signed request (a copy of the request with its `Authorization` field).
    static func oauth1SignRequest() throws -> Int {
        try signer.sign(request, body: body, nonce: nonce, timestamp: timestamp).authorization.utf8.count
    }

    /// One one-shot HMAC-SHA1 of the base string: the key set up, then the hash.
    static func hmacSHA1Raw() -> Int {
        let mac = HMAC<Insecure.SHA1>.authenticationCode(for: baseString, using: SymmetricKey(data: keyBytes))
        return mac.withUnsafeBytes { Int($0[0]) }
    }

    static let keyedHMAC = HMAC<Insecure.SHA1>(key: SymmetricKey(data: keyBytes))

    /// One HMAC-SHA1 of the base string with the key set up once: the floor of a signature.
    static func hmacSHA1Keyed() -> Int {
        var hmac = keyedHMAC
        hmac.update(data: baseString)
        return hmac.finalize().withUnsafeBytes { Int($0[0]) }
    }

    /// The server side: the signed request parsed, its base string rebuilt and verified.
    static func oauth1Verify() throws -> Int {
        let parsed = try OAuth1.ReceivedRequest(signed.request, body: body)
        try parsed.verify(clientSecret: client.secret, tokenSecret: token.secret)
        return parsed.signature.utf8.count
    }

    static func digestResponse() throws -> DigestResponse {
        try DigestResponse(
            challenge: challenge,
            credentials: digestCredentials,
            method: .get,
            uri: "/dir/index.html",
            cnonce: cnonce
        )
    }

    /// Lowercase hex, written straight into the string's storage (the cheapest form we know).
    static func hex(_ digest: SHA256.Digest) -> String {
        digest.withUnsafeBytes { bytes in
            String(unsafeUninitializedCapacity: bytes.count * 2) { buffer in
                for (index, byte) in bytes.enumerated() {
                    let high = byte >> 4
                    let low = byte & 0x0F
                    buffer[2 * index] = high < 10 ? high + 48 : high + 87
                    buffer[2 * index + 1] = low < 10 ? low + 48 : low + 87
                }
                return bytes.count * 2
            }
        }
    }

    /// Digest's three raw hashes (HA1, HA2, response, each a one-shot SHA-256 written as hex).
    static func digestRaw() -> Int {
        let ha1 = hex(SHA256.hash(data: Array("Mufasa:http-auth@example.org:Circle of Life".utf8)))
        let ha2 = hex(SHA256.hash(data: Array("GET:/dir/index.html".utf8)))
        let response = hex(
            SHA256.hash(
                data: Array(
                    (ha1 + ":7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v:00000001:" + cnonce + ":auth:" + ha2).utf8
                )
            )
        )
        return response.utf8.count
    }
}

/// The operations of `remote-auth-bench count NAME N`, by name.
let countedOperations: [(name: String, run: @Sendable () throws -> Int)] = [
    ("oauth1-header", Workload.oauth1Header),
    ("oauth1-sign-request", Workload.oauth1SignRequest),
    ("hmac-sha1-raw", Workload.hmacSHA1Raw),
    ("hmac-sha1-keyed", Workload.hmacSHA1Keyed),
    ("oauth1-verify", Workload.oauth1Verify),
    ("digest-sha256-response", { try Workload.digestResponse().response.utf8.count }),
    ("digest-sha256-authorization", { try Workload.digestResponse().authorization.utf8.count }),
    ("digest-sha256-raw", Workload.digestRaw),
    ("nothing", { 0 }),
]

/// `remote-auth-bench count NAME N`: runs the operation `NAME` `N` times and nothing else (no
/// warm-up, no other operation, no thread, no sandbox), for an instruction counter such as
/// `valgrind --tool=callgrind`. The instructions of one operation are the difference between
/// two runs with different `N`, divided by the difference in `N` (start-up and the one-time
/// set-up cancel out); `scripts/count-instructions.sh` does that. `count list` prints the names.
func runCount(_ arguments: ArraySlice<String>) throws {
    let names = countedOperations.map(\.name)
    guard let name = arguments.first, name != "list" else {
        print(names.joined(separator: "\n"))
        return
    }
    guard let operation = countedOperations.first(where: { $0.name == name }),
        let count = arguments.dropFirst().first.flatMap({ Int($0) }), count >= 0
    else {
        print("usage: remote-auth-bench count NAME N   (NAME: \(names.joined(separator: ", ")))")
        exit(2)
    }
    for _ in 0..<count { consume(try operation.run()) }
}
