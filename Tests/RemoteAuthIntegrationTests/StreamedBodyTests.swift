import Crypto
import HTTPTypes
import RemoteAuth
import RemoteAuthAsyncHTTPClient
import RemoteAuthSandbox
import Testing

/// Streamed request and response bodies through the authenticated client over AsyncHTTPClient,
/// against the sandbox: the body is made afresh for each send, hashed by a pass of its own, and
/// the response's limit holds while it is read.
/// How many passes were made over a body.
final class Passes: Sendable {
    private let made = Locked(0)
    func count() { made.withLock { $0 += 1 } }
    var total: Int { made.withLock { $0 } }
}

@Suite(.timeLimit(.minutes(5))) struct StreamedBodyTests {
    /// A form body in chunks of 7 bytes; counts how many passes were made.
    static func form(_ text: String, passes: Passes, knownLength: Bool) -> RequestBody {
        let bytes = Array(text.utf8)
        return RequestBody.stream(length: knownLength ? bytes.count : nil) {
            passes.count()
            return AsyncThrowingStream { continuation in
                var offset = 0
                while offset < bytes.count {
                    continuation.yield(Array(bytes[offset..<min(offset + 7, bytes.count)]))
                    offset += 7
                }
                continuation.finish()
            }
        }
    }

    /// SigV4 over a streamed form body: the payload hash comes from a pass of its own, the sandbox
    /// hashes what arrived and accepts the signature; known length (Content-Length) and unknown
    /// (chunked).
    @Test(arguments: [true, false]) func sigV4HashesTheStream(knownLength: Bool) async throws {
        try await Sandbox.withSandbox { sandbox in
            try await AsyncHTTPClientTransport.withTransport { ahc in
                let client = AuthenticatingClient(
                    transport: ahc,
                    authenticators: [
                        ScopedAuthenticator(
                            AWS.SigV4Authenticator(signer: SigV4AuthenticatorTests.signer()),
                            for: try AuthScope(url: sandbox.baseURL)
                        )
                    ]
                )
                var request = try HTTPRequest(method: .post, absoluteURL: sandbox.baseURL + "/1.1/statuses/update.json")
                request.headerFields[.contentType] = "application/x-www-form-urlencoded"
                let passes = Passes()
                let text =
                    "status=streamed%20" + (knownLength ? "with%20length" : "chunked") + "%20"
                    + String(repeating: "x", count: 100)
                let (response, body) = try await client.stream(
                    request,
                    body: Self.form(text, passes: passes, knownLength: knownLength)
                )
                let received = String(decoding: try await body.collect(upTo: 1 << 20), as: UTF8.self)
                #expect(response.status == .ok, "\(received)")
                #expect(received.contains("\"text\":\"streamed " + (knownLength ? "with length" : "chunked") + " "))
                #expect(passes.total == 2)  // one to hash, one to send
            }
        }
    }

    /// Digest (qop auth) over a streamed body: the 401 is read, the body sent again from a new
    /// pass with the answer.
    @Test func digestChallengeResendsTheStream() async throws {
        try await Sandbox.withSandbox { sandbox in
            try await AsyncHTTPClientTransport.withTransport { ahc in
                let recording = RecordingTransport(ahc)
                let client = AuthenticatingClient(
                    transport: recording,
                    authenticators: [
                        ScopedAuthenticator(
                            DigestAuthenticator(user: "alice", password: "wonderland"),
                            for: try AuthScope(url: sandbox.baseURL)
                        )
                    ]
                )
                let passes = Passes()
                let (response, body) = try await client.stream(
                    try HTTPRequest(method: .post, absoluteURL: sandbox.baseURL + "/digest/SHA-256/auth/"),
                    body: Self.form("a=1&b=2", passes: passes, knownLength: true)
                )
                #expect(response.status == .ok)
                #expect(String(decoding: try await body.collect(upTo: 1 << 16), as: UTF8.self) == aliceJSON)
                #expect(recording.hops.map(\.status) == [401, 200])
                #expect(passes.total == 2)

                // auth-int hashes the body: a stream is refused, not sent with a wrong hash.
                let error = await #expect(throws: ClientError.self) {
                    _ = try await client.stream(
                        try HTTPRequest(method: .post, absoluteURL: sandbox.baseURL + "/digest/SHA-256/auth-int/"),
                        body: Self.form("a=1", passes: passes, knownLength: true)
                    )
                }
                #expect(error?.code == .invalidBody)
            }
        }
    }

    /// A stream that yields fewer or more bytes than its declared length fails the request
    /// with `invalidBody`, over the wire too: AsyncHTTPClient is not left to frame it.
    @Test(arguments: ["short", "long"]) func aStreamOfTheWrongLengthFails(_ kind: String) async throws {
        try await Sandbox.withSandbox { sandbox in
            try await AsyncHTTPClientTransport.withTransport { ahc in
                let bytes = Array("status=wrong%20length".utf8)
                let body = RequestBody.stream(length: kind == "short" ? bytes.count + 5 : bytes.count - 5) {
                    AsyncThrowingStream { continuation in
                        continuation.yield(bytes)
                        continuation.finish()
                    }
                }
                var request = try HTTPRequest(method: .post, absoluteURL: sandbox.baseURL + "/digest/SHA-256/auth/")
                request.headerFields[.contentType] = "application/x-www-form-urlencoded"
                let error = await #expect(throws: ClientError.self) {
                    _ = try await AuthenticatingClient(transport: ahc).stream(request, body: body)
                }
                #expect(error?.code == .invalidBody)
            }
        }
    }

    /// A response larger than the transport's limit fails while it is read, with
    /// `responseTooLarge`; below it, it arrives whole.
    @Test func responseLimitHoldsWhileStreaming() async throws {
        try await Sandbox.withSandbox { sandbox in
            try await AsyncHTTPClientTransport.withTransport(maximumResponseBytes: 20) { small in
                let client = AuthenticatingClient(transport: small)
                let (response, body) = try await client.stream(
                    try HTTPRequest(
                        method: .get,
                        absoluteURL: sandbox.baseURL + "/.well-known/oauth-authorization-server"
                    )
                )
                #expect(response.status == .ok)
                let error = await #expect(throws: TransportError.self) { _ = try await body.collect(upTo: 1 << 20) }
                #expect(error?.code == .responseTooLarge)
            }
        }
    }
}
