// Benchmarks for RemoteAuth's hot paths. Run with `swift run -c release remote-auth-bench`.
//
// Prints one line per operation, `NAME: N ns/op`, the median of several timed runs, so scripts
// can compare runs. Targets are ratios measured in the same run (absolute times drift on a
// shared machine): the signed header below one raw one-shot HMAC-SHA1 over the same base
// string, and the Digest response within 2x its raw hashes.
//
// `remote-auth-bench count NAME N` runs one operation N times and nothing else, for an
// instruction counter (`scripts/count-instructions.sh`); see Count.swift.

import RemoteAuth

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// `remote-auth-bench count NAME N`: one operation N times and nothing else, for callgrind.
if CommandLine.arguments.dropFirst().first == "count" {
    try runCount(CommandLine.arguments.dropFirst(2))
    exit(0)
}

let iterations = Int(CommandLine.arguments.dropFirst().first ?? "") ?? 20_000

// The Twitter documentation request and RFC 7616 §3.9.1's Digest example (see `Workload`).
guard try Workload.digestResponse().response == "753927fa0e85d155564e2e272a28d1802ca10daf4496794697cf8db5856cb6c1" else {
    fatalError("the Digest benchmark no longer gives RFC 7616 §3.9.1's response")
}
_ = Workload.signed  // checks the Twitter documentation's signature

let (header, raw) =
    !(wanted("oauth1-header") || wanted("hmac-sha1-raw"))
    ? (1, 1)
    : try measurePair(iterations: iterations, Workload.oauth1Header, Workload.hmacSHA1Raw)
if wanted("oauth1-header") { report("oauth1-header-hmac-sha1", header) }
if wanted("hmac-sha1-raw") { report("hmac-sha1-raw", raw) }
// The floor of a signature: one HMAC-SHA1 with the key set up once.
if wanted("hmac-sha1-keyed") {
    report("hmac-sha1-keyed", measure(iterations: iterations, Workload.hmacSHA1Keyed))
}

// The whole signed request (a copy of the request with its Authorization field, validated by
// swift-http-types), for scale.
if wanted("oauth1-sign-request") {
    report("oauth1-sign-request-hmac-sha1", try measure(iterations: iterations, Workload.oauth1SignRequest))
}

if wanted("oauth1-verify") {
    report("oauth1-verify-hmac-sha1", try measure(iterations: iterations, Workload.oauth1Verify))
}

// Digest SHA-256 (RFC 7616 §3.9.1): the client response, against its three raw hashes
// (HA1, HA2, response, each a one-shot SHA-256 written as hex).
let (digestResponse, digestRaw) =
    !(wanted("digest-sha256-response") || wanted("digest-sha256-raw"))
    ? (1, 1)
    : try measurePair(
        iterations: iterations,
        { try Workload.digestResponse().response.utf8.count },
        Workload.digestRaw
    )
if wanted("digest-sha256-response") { report("digest-sha256-response", digestResponse) }
// With the Authorization value built as well: what the client pays per request.
if wanted("digest-sha256-authorization") {
    report(
        "digest-sha256-authorization",
        try measure(iterations: iterations) { try Workload.digestResponse().authorization.utf8.count }
    )
}
if wanted("digest-sha256-raw") { report("digest-sha256-raw", digestRaw) }

if only == nil { print("ratio oauth1-header-hmac-sha1/hmac-sha1-raw: \(format2(header / raw))x (target < 1x)") }
if only == nil {
    print("ratio digest-sha256-response/digest-sha256-raw: \(format2(digestResponse / digestRaw))x (target < 2x)")
}

// The asynchronous benchmarks run on the global executor while the main thread waits (see
// `runAsynchronously`).
runAsynchronously { [iterations] in
    try await oauth2Benchmarks()
    try dpopBenchmarks(iterations: iterations)
    try signatureBenchmarks(iterations: iterations)
    try await oidcBenchmarks(iterations: iterations)
    // The network benchmarks need the sandbox; `remote-auth-bench N pure` skips them.
    if only != "pure" {
        try await networkBenchmarks(iterations: iterations)
        try await openAPIBenchmarks(iterations: iterations)
    }
    if only != "pure" || wanted("tls-evaluate") {
        try await tlsBenchmarks(iterations: iterations)
    }
}
