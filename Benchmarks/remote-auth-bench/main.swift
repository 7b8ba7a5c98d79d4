// Benchmarks for RemoteAuth's hot paths. Run with `swift run -c release remote-auth-bench`.
//
// Prints one line per operation, `NAME: N ns/op`, the median of several timed runs, so scripts
// can compare runs. Targets are ratios measured in the same run (absolute times drift on a
// shared machine): the signed header within 2x one raw one-shot HMAC-SHA1 over the same base
// string, and the Digest response within 2x its raw hashes.

import Crypto
import HTTPTypes
import RemoteAuth

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

let iterations = Int(CommandLine.arguments.dropFirst().first ?? "") ?? 20_000

// The Twitter documentation request: POST statuses/update with a `status` form parameter and
// the `include_entities` query.
let client = OAuth1.ClientCredentials(
    key: "xvz1evFS4wEEPTGEFPHBog",
    secret: "kAcSOqF21Fu85e7zjz7ZN2U4ZRhfV3WpwPAoE3Z7kBw"
)
let token = OAuth1.TokenCredentials(
    token: "370773112-GmHxMAgYyLbNEtIKZeRNFsMKPR9EyMZeS9weJAEb",
    secret: "LswwdoUaIvS8ltyTt5jkRh4J50vUPVVHtR2YPi5kE"
)
let request = try HTTPRequest(
    method: .post,
    absoluteURL: "https://api.twitter.com/1.1/statuses/update.json?include_entities=true",
    headerFields: [.contentType: "application/x-www-form-urlencoded"]
)
let body = Array("status=Hello%20Ladies%20%2B%20Gentlemen%2C%20a%20signed%20OAuth%20request%21".utf8)
let signer = try OAuth1.Signer(client: client, token: token)
let signed = try signer.sign(
    request,
    body: body,
    nonce: "kYjzVBB8Y0ZFabxSWbWovY3uYSQ2pTgmZeNu2VS4cg",
    timestamp: "1318622958"
)
guard signed.signature == "hCtSmYh+iHYCEqBWrE7C7hYmtUk=" else {
    fatalError("the benchmark request no longer signs to the Twitter documentation's signature")
}
let baseString = Array(signed.signatureBaseString!.utf8)
let keyBytes = Array("kAcSOqF21Fu85e7zjz7ZN2U4ZRhfV3WpwPAoE3Z7kBw&LswwdoUaIvS8ltyTt5jkRh4J50vUPVVHtR2YPi5kE".utf8)

let (header, raw) =
    !(wanted("oauth1-header") || wanted("hmac-sha1-raw"))
    ? (1, 1)
    : try measurePair(
        iterations: iterations,
        {
            try signer.authorization(
                for: request,
                body: body,
                nonce: "kYjzVBB8Y0ZFabxSWbWovY3uYSQ2pTgmZeNu2VS4cg",
                timestamp: "1318622958"
            )
            .utf8.count
        },
        {
            let mac = HMAC<Insecure.SHA1>.authenticationCode(for: baseString, using: SymmetricKey(data: keyBytes))
            return mac.withUnsafeBytes { Int($0[0]) }
        }
    )
if wanted("oauth1-header") { report("oauth1-header-hmac-sha1", header) }
if wanted("hmac-sha1-raw") { report("hmac-sha1-raw", raw) }

// The whole signed request (a copy of the request with its Authorization field, validated by
// swift-http-types), for scale.
if wanted("oauth1-sign-request") {
    report(
        "oauth1-sign-request-hmac-sha1",
        try measure(iterations: iterations) {
            try signer.sign(
                request,
                body: body,
                nonce: "kYjzVBB8Y0ZFabxSWbWovY3uYSQ2pTgmZeNu2VS4cg",
                timestamp: "1318622958"
            )
            .authorization.utf8.count
        }
    )
}

let received = signed.request
let verify =
    !wanted("oauth1-verify")
    ? 1
    : try measure(iterations: iterations) {
        let parsed = try OAuth1.ReceivedRequest(received, body: body)
        try parsed.verify(clientSecret: client.secret, tokenSecret: token.secret)
        return parsed.signature.utf8.count
    }
if wanted("oauth1-verify") { report("oauth1-verify-hmac-sha1", verify) }

// Digest SHA-256 (RFC 7616 §3.9.1): the client response, against its three raw hashes
// (HA1, HA2, response, each a one-shot SHA-256 written as hex).
let challenge = try DigestChallenge(
    headerValue:
        "Digest realm=\"http-auth@example.org\", qop=\"auth, auth-int\", algorithm=SHA-256, nonce=\"7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v\", opaque=\"FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS\""
)
let digestCredentials = DigestCredentials(username: "Mufasa", password: "Circle of Life")
let cnonce = "f2/wE4q74E6zIJEtWaHKaf5wv/H5QzzpXusqGemxURZJ"
let check = try DigestResponse(
    challenge: challenge,
    credentials: digestCredentials,
    method: .get,
    uri: "/dir/index.html",
    cnonce: cnonce
)
guard check.response == "753927fa0e85d155564e2e272a28d1802ca10daf4496794697cf8db5856cb6c1" else {
    fatalError("the Digest benchmark no longer gives RFC 7616 §3.9.1's response")
}
/// Lowercase hex, written straight into the string's storage (the cheapest form we know).
func hex(_ digest: SHA256.Digest) -> String {
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
let (digestResponse, digestRaw) =
    !(wanted("digest-sha256-response") || wanted("digest-sha256-raw"))
    ? (1, 1)
    : try measurePair(
        iterations: iterations,
        {
            try DigestResponse(
                challenge: challenge,
                credentials: digestCredentials,
                method: .get,
                uri: "/dir/index.html",
                cnonce: cnonce
            ).response.utf8.count
        },
        {
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
    )
if wanted("digest-sha256-response") { report("digest-sha256-response", digestResponse) }
// With the Authorization value built as well: what the client pays per request.
if wanted("digest-sha256-authorization") {
    report(
        "digest-sha256-authorization",
        try measure(iterations: iterations) {
            try DigestResponse(
                challenge: challenge,
                credentials: digestCredentials,
                method: .get,
                uri: "/dir/index.html",
                cnonce: cnonce
            ).authorization.utf8.count
        }
    )
}
if wanted("digest-sha256-raw") { report("digest-sha256-raw", digestRaw) }

if only == nil { print("ratio oauth1-header-hmac-sha1/hmac-sha1-raw: \(format2(header / raw))x (target < 2x)") }
if only == nil {
    print("ratio digest-sha256-response/digest-sha256-raw: \(format2(digestResponse / digestRaw))x (target < 2x)")
}

try await oauth2Benchmarks()
try dpopBenchmarks(iterations: iterations)
try await oidcBenchmarks(iterations: iterations)

// The network benchmarks need the sandbox; `remote-auth-bench N pure` skips them.
if only != "pure" {
    try await networkBenchmarks(iterations: iterations)
}
if only != "pure" || wanted("tls-evaluate") {
    try await tlsBenchmarks(iterations: iterations)
}
