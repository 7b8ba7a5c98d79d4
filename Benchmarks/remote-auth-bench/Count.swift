import Crypto
import Dispatch
import CryptoExtras
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
    ("dpop-proof-es256", JOSEWorkload.dpopProof),
    ("dpop-p256-sign-raw", JOSEWorkload.p256SignRaw),
    ("sigv4-header", SignatureWorkload.sigV4Header),
    ("sigv4-floor", { SignatureWorkload.sigV4Floor() }),
    ("sigv4-header-cached", SignatureWorkload.sigV4HeaderCached),
    ("sigv4-floor-cached", { SignatureWorkload.sigV4FloorCached() }),
    ("http-signature-ed25519", SignatureWorkload.httpSignatureEd25519),
    ("ed25519-sign-raw", SignatureWorkload.ed25519SignRaw),
    ("nothing", { 0 }),
]

/// The operations that await (an ID token validation is `async`), counted the same way.
let asyncCountedOperations: [(name: String, run: @Sendable () async throws -> Int)] = [
    ("id-token-validate-rs256", JOSEWorkload.validateIDToken),
    ("rsa2048-verify-raw", { JOSEWorkload.rsaVerifyRaw() }),
]

/// OpenID Connect and DPoP, set up once. The RSA key is fixed (a key generated at start-up
/// would make the set-up's instruction count differ between two runs by more than an
/// operation costs); it signs nothing but this benchmark's tokens.
enum JOSEWorkload {
    static let now: Int64 = 1_700_000_000
    static let rsaKey = try! _RSA.Signing.PrivateKey(pemRepresentation: """
        -----BEGIN PRIVATE KEY-----
        MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQDfstMwWa633a0+
        4V5WAXkZUekUuuAqE5TJ1WhYm4Q65jTwww2uW4+4asgnpTuO66VPsdUeEzpHtgzb
        /GGfkJLofHbKHyXWO886mY90HzcAK+MPG3Wj/nJi8DtpnZpfj3gUg634bUcyHlfF
        Bo/2SYDX/PXpLvoh7VbSVKHC1BoqhHEqQQMoR6Jy/oEdehXfgewUDrQVd12bxOdm
        KGLWOU81voZJ1t8IT3Vq5XZeX8lpT3aBE+Y3ekU7WHb/sULPS21o8RFM1ttlbp4i
        mem9PVxpDtaKkuQAVXanUoj/4PXR6mIgX6LC4Qd+TXdwS5Lso8PIr9nom2uXEjON
        zDmvbh1LAgMBAAECggEAGSFGDP92MPJL8m1voz/Px+K7dCMOPbaCF4PMO3AKacd6
        GQtV2nQvcBXm3bVNPIqya9fcIOB4wpzr/ZFGXPOT3V7mGrdnERXE+532pKKWaNmF
        TNQr4hFv7jdzT95u/N8+1nx4gG5eT34NzsokRWm6egkmjbHuUv4OVoXqv4VZBH+I
        oJ4Q8ocFsJp/sj18mCa+kqPAPAaQnGZUApzOObAneJPYPW+JMs3XfV4Uhfj9rIzT
        G3xNpf3d+tdCCi+ytXgHrH/Ri5QmlO/LYdrA6teO1iDrsgPSh4qTPn6kvm79eed1
        o1KTRHJhZsgAvrOGCw7uXjiXzDgpV15jQdpnVR0vCQKBgQD2dyDjfPTnihypvJo5
        us0jJekjxY+Ui65x0K0HolqjvrywCILBD7VKMRas21d20RepHB6Z/R6QBTT/o+Kc
        /4eryJX7GvAqpSoxeE34+PoQCERmuheIwGLyqtp1hcgiW0FbO5uBz6uf3SuQuGKJ
        t+TM8VIxH45tXt2+DpDTJ2DZ3QKBgQDoWjmmS7bFoeI2oHoW2bQlOU/H4ohWpHLY
        QZKls3H06Wr7IGJuuNpY08ea1b9xLL6ufqzFa3vxLe+OcW7DTb1Xgh9HLJ1l34l7
        OTnvzp6wczR5GcMp/S6nmfoFUn1jesEDFoFYxO2kOw1bKslJa6aztxlj9KrWJ+UW
        pLFcyfvlRwKBgGtsrywYadKF00p0RzCEaCc6vex2jsdrPoSjNNfP/vvCBhIgE4W8
        qAMHdF+xVuUV698sv3XU6r5RVrFaKErP4b2RNzX0ntunk8VuL2YmdzAHunCgCeP0
        HuywZXm17u5yogD28SfacW7DgtqYU3K9cX+Wa4G3xGeNYs8VIDC4yDENAoGAHCHo
        fwEF1TH/kLunbKLZU/R3e20rMspgeVyfI97xOkUUxekq4dsR3NVvgojE0DApujju
        NE0KSa5VJfsH/S+pcDH6FYUKXa5OGBRatnVe82BPhyYeYjQcdQCIrCJLukK/od8U
        tCnL2CmqOVKZ4oDdQz81HMwf7yQPcclpDCIMlLsCgYEAwMpFKofCTYQ996OCke3c
        nOx5iCfMf720z+4j7FGXXRU3DqB5afvbuXaWTFBhB9AX0yJAr7yiONKNtxhHUiRp
        52PDGgS59vvd92q8Vjmzn53vQxmd2//UTvGXPUEJKaFla0XzPkCVwb5TkEm1yW+U
        l8ZfluqJIuWzsY7JqD1GohQ=
        -----END PRIVATE KEY-----
        """)
    static let rsaPublicKey = rsaKey.publicKey
    static let accessToken = "bench-access-token"
    static let nonce = "bench-nonce-0123456789abcdef"
    static let idToken: String = {
        let key = try! JOSE.SigningKey.rsa(rsaKey, keyID: "bench-rsa")
        return try! JOSE.JWS.sign(
            claims: [
                "iss": "https://op.example", "sub": "alice", "aud": "bench-client", "exp": .integer(now + 300),
                "iat": .integer(now), "nonce": .string(nonce), "auth_time": .integer(now),
                "at_hash": .string(OpenIDConnect.IDTokenValidator.halfHash(accessToken, algorithm: .rs256)),
                "name": "Alice",
            ],
            with: key
        )
    }()
    static let validator = try! OpenIDConnect.IDTokenValidator(
        issuer: "https://op.example",
        clientID: "bench-client",
        keys: .keys([try! JOSE.VerificationKey(jwk: JOSE.SigningKey.rsa(rsaKey, keyID: "bench-rsa").publicJWK!)])
    )
    static let expectation = OpenIDConnect.IDTokenValidator.Expectation(
        nonce: Secret(nonce),
        accessToken: Secret(accessToken)
    )
    static let secretToken = Secret(idToken)
    static let signingInput = Array(idToken.utf8[..<idToken.utf8.lastIndex(of: UInt8(ascii: "."))!])
    static let rsaSignature = _RSA.Signing.RSASignature(
        rawRepresentation: RemoteAuthBase64URL.decode(idToken.split(separator: ".")[2])!
    )

    /// A whole OpenID Connect Core §3.1.3.7 validation with the issuer's key in hand.
    static func validateIDToken() async throws -> Int {
        try await validator.validate(secretToken, expecting: expectation, now: now).subject.utf8.count
    }

    /// One raw RSA-2048 PKCS #1 v1.5 SHA-256 verification of the same signing input.
    static func rsaVerifyRaw() -> Int {
        rsaPublicKey.isValidSignature(rsaSignature, for: signingInput, padding: .insecurePKCS1v1_5) ? 1 : 0
    }

    static let p256Key = P256.Signing.PrivateKey()
    static let prover: OAuth2.DPoP.Prover = {
        let prover = try! OAuth2.DPoP.Prover(key: .p256(p256Key), now: { 1_700_000_000 }, random: .seeded(1))
        prover.update(from: [.dpopNonce: "eyJ7S_zG.eyJH0-Z.HX4w-7v"], for: "https://api.example")
        return prover
    }()
    static let dpopURL = "https://api.example/1.1/statuses/home_timeline.json?count=5"
    static let dpopToken: Secret = "Kz~8mXK1EalYznwH-LC-1fBAo.4Ljp~zsPE_NeO.gxU"
    static let dpopSigningInput: [UInt8] = {
        let sample = try! prover.proof(method: .get, url: dpopURL, accessToken: dpopToken)
        return Array(sample.utf8[..<sample.utf8.lastIndex(of: UInt8(ascii: "."))!])
    }()

    /// One resource-request DPoP proof (`ath`, a nonce).
    static func dpopProof() throws -> Int {
        try prover.proof(method: .get, url: dpopURL, accessToken: dpopToken).utf8.count
    }

    /// One raw P-256 signature over a signing input of the same length.
    static func p256SignRaw() throws -> Int {
        try p256Key.signature(for: dpopSigningInput).rawRepresentation.count
    }
}

/// `remote-auth-bench count NAME N`: runs the operation `NAME` `N` times and nothing else (no
/// warm-up, no other operation, no thread, no sandbox), for an instruction counter such as
/// `valgrind --tool=callgrind`. The instructions of one operation are the difference between
/// two runs with different `N`, divided by the difference in `N` (start-up and the one-time
/// set-up cancel out); `scripts/count-instructions.sh` does that. `count list` prints the names.
func runCount(_ arguments: ArraySlice<String>) throws {
    let names = countedOperations.map(\.name) + asyncCountedOperations.map(\.name)
    guard let name = arguments.first, name != "list" else {
        print(names.joined(separator: "\n"))
        return
    }
    guard names.contains(name), let count = arguments.dropFirst().first.flatMap({ Int($0) }), count >= 0 else {
        print("usage: remote-auth-bench count NAME N   (NAME: \(names.joined(separator: ", ")))")
        exit(2)
    }
    if let operation = countedOperations.first(where: { $0.name == name }) {
        _ = try operation.run()  // the one-time set-up, outside the loop
        for _ in 0..<count { consume(try operation.run()) }
    } else if let operation = asyncCountedOperations.first(where: { $0.name == name }) {
        // The whole loop in one task, waited for once: no task or thread hop per operation (a
        // top-level `await` would put the main thread under Dispatch, which valgrind 3.19 cannot run).
        let done = DispatchSemaphore(value: 0)
        Task {
            do {
                _ = try await operation.run()
                for _ in 0..<count { consume(try await operation.run()) }
            } catch {
                print("error: \(error)")
                exit(1)
            }
            done.signal()
        }
        done.wait()
    }
}
