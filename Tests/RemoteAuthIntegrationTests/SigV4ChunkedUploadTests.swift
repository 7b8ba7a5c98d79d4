import HTTPTypes
import RemoteAuth
import RemoteAuthAsyncHTTPClient
import RemoteAuthSandbox
import Testing

/// A transport that records each request sent and can flip one octet of its body, the way a
/// corrupting middlebox would.
final class TamperingTransport: HTTPTransport {
    let inner: any HTTPTransport
    let flipAt: Int?
    private let sent = Locked<[(HTTPRequest, [UInt8])]>([])

    init(_ inner: any HTTPTransport, flipAt: Int? = nil) {
        self.inner = inner
        self.flipAt = flipAt
    }

    var requests: [(HTTPRequest, [UInt8])] { sent.withLock { $0 } }

    func send(_ request: HTTPRequest, body: [UInt8]?) async throws -> (HTTPResponse, [UInt8]) {
        var bytes = body ?? []
        if let flipAt, flipAt < bytes.count { bytes[flipAt] ^= 0x01 }
        sent.withLock { $0.append((request, bytes)) }
        return try await inner.send(request, body: bytes)
    }

    func stream(_ request: HTTPRequest, body: RequestBody?) async throws -> (HTTPResponse, ResponseBody) {
        let bytes = try await body?.collect(upTo: 1 << 20)
        let (response, received) = try await send(request, body: bytes)
        return (response, ResponseBody(bytes: received))
    }
}

/// `aws-chunked` uploads (`STREAMING-AWS4-HMAC-SHA256-PAYLOAD`) through the authenticated
/// client against the sandbox, which checks every chunk's signature and stores the decoded body.
@Suite(.timeLimit(.minutes(5))) struct SigV4ChunkedUploadTests {
    static func signer(secret: Secret = "sandbox-aws-secret") -> AWS.SigV4Signer {
        AWS.SigV4Signer(
            credentials: AWS.Credentials(accessKeyID: "AKIDSANDBOX", secretAccessKey: secret),
            region: "us-east-1",
            service: "s3"
        )
    }

    /// `status=TEXT&pad=…` of 20000 octets: with 8 KiB chunks, two full chunks, one of 3616
    /// octets, and the final empty one.
    static let form: [UInt8] = {
        let head = Array("status=chunked%20upload%20%C3%BC&pad=".utf8)
        return head + [UInt8](repeating: UInt8(ascii: "x"), count: 20000 - head.count)
    }()

    static func post(
        _ body: RequestBody,
        over transport: any HTTPTransport,
        signer: AWS.SigV4Signer = signer(),
        base: String
    ) async throws -> (HTTPResponse, String) {
        let client = AuthenticatingClient(
            transport: transport,
            authenticators: [
                ScopedAuthenticator(
                    AWS.SigV4Authenticator(signer: signer, payload: .streaming(chunkSize: 8192)),
                    for: try AuthScope(url: base)
                )
            ]
        )
        var request = try HTTPRequest(method: .post, absoluteURL: base + "/1.1/statuses/update.json")
        request.headerFields[.contentType] = "application/x-www-form-urlencoded"
        let (response, received) = try await client.stream(request, body: body)
        return (response, String(decoding: try await received.collect(upTo: 1 << 20), as: UTF8.self))
    }

    /// A streamed body, its length known, in source chunks of 7 octets: regrouped into 8 KiB
    /// chunks, signed in a chain, sent in one pass (no pass to hash it), and stored as sent.
    @Test func streamedBodyIsStoredAsDecoded() async throws {
        try await Sandbox.withSandbox { sandbox in
            try await AsyncHTTPClientTransport.withTransport { ahc in
                let passes = Passes()
                let bytes = Self.form
                let body = RequestBody.stream(length: bytes.count) {
                    passes.count()
                    return AsyncThrowingStream { continuation in
                        for start in stride(from: 0, to: bytes.count, by: 7) {
                            continuation.yield(Array(bytes[start..<min(start + 7, bytes.count)]))
                        }
                        continuation.finish()
                    }
                }
                let (response, text) = try await Self.post(body, over: ahc, base: sandbox.baseURL)
                #expect(response.status == .ok, "\(text)")
                #expect(text.contains("\"text\":\"chunked upload ü\""), "\(text)")
                #expect(passes.total == 1)
            }
        }
    }

    /// The wire: `Content-Encoding: aws-chunked`, the decoded and the framed lengths, the frames
    /// as the S3 documentation lays them out; a body in memory framed the same way.
    @Test func framingOnTheWire() async throws {
        try await Sandbox.withSandbox { sandbox in
            try await AsyncHTTPClientTransport.withTransport { ahc in
                let recording = TamperingTransport(ahc)
                let (response, text) = try await Self.post(.bytes(Self.form), over: recording, base: sandbox.baseURL)
                #expect(response.status == .ok, "\(text)")
                let (request, body) = try #require(recording.requests.first)
                #expect(request.headerFields[.contentEncoding] == "aws-chunked")
                #expect(request.headerFields[HTTPField.Name("x-amz-decoded-content-length")!] == "20000")
                #expect(
                    request.headerFields[HTTPField.Name("x-amz-content-sha256")!]
                        == "STREAMING-AWS4-HMAC-SHA256-PAYLOAD"
                )
                // Sizes 2000, 2000, e20 (hex) and 0, each frame 85 octets besides its data and
                // size: 20000 + 4 × 85 + 12.
                #expect(request.headerFields[.contentLength] == "20352")
                #expect(body.count == 20352)
                let lines = String(decoding: body, as: UTF8.self).split(
                    separator: "\r\n",
                    omittingEmptySubsequences: false
                )
                #expect(lines[0].hasPrefix("2000;chunk-signature=") && lines[0].count == 4 + 17 + 64)
                // The final frame: `0;chunk-signature=…`, CRLF, no data, CRLF.
                #expect(lines.suffix(3).map(String.init) == [lines[lines.count - 3].description, "", ""])
                #expect(
                    lines[lines.count - 3].hasPrefix("0;chunk-signature=")
                        && lines[lines.count - 3].count == 1 + 17 + 64
                )
            }
        }
    }

    /// One octet of the second chunk's data flipped on the way: the seed signature holds, the
    /// chunk's does not, and the sandbox refuses with S3's code; nothing is stored.
    @Test func aTamperedChunkIsRefused() async throws {
        try await Sandbox.withSandbox { sandbox in
            try await AsyncHTTPClientTransport.withTransport { ahc in
                let tampering = TamperingTransport(ahc, flipAt: 87 + 8192 + 2 + 87 + 100)
                let (response, text) = try await Self.post(.bytes(Self.form), over: tampering, base: sandbox.baseURL)
                #expect(response.status == .forbidden)
                #expect(text == #"{"error":"SignatureDoesNotMatch: a chunk's signature does not match"}"#)
                let reader = AuthenticatingClient(
                    transport: ahc,
                    authenticators: [
                        ScopedAuthenticator(
                            AWS.SigV4Authenticator(signer: Self.signer()),
                            for: try AuthScope(url: sandbox.baseURL)
                        )
                    ]
                )
                let (timeline, statuses) = try await reader.get(sandbox.baseURL + "/1.1/statuses/home_timeline.json")
                #expect(timeline.status == .ok)
                #expect(!String(decoding: statuses, as: UTF8.self).contains("chunked upload"))
            }
        }
    }

    /// A stream of unknown length cannot be sent `aws-chunked` (S3 needs its decoded length):
    /// a typed error before anything is sent.
    @Test func unknownLengthIsRefusedBeforeSending() async throws {
        try await Sandbox.withSandbox { sandbox in
            try await AsyncHTTPClientTransport.withTransport { ahc in
                let recording = TamperingTransport(ahc)
                let body = RequestBody.stream(length: nil) {
                    AsyncThrowingStream { continuation in
                        continuation.yield(Array("status=x".utf8))
                        continuation.finish()
                    }
                }
                let error = await #expect(throws: AWS.SigV4Error.self) {
                    try await Self.post(body, over: recording, base: sandbox.baseURL)
                }
                #expect(error?.code == .invalidRequest)
                #expect(recording.requests.isEmpty)
            }
        }
    }
}
