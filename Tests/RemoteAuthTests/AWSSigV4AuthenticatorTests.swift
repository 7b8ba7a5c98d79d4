import HTTPTypes
import RemoteAuth
import Testing

/// `AWS.SigV4Authenticator` on its own, against published values: the AWS test suite's
/// `get-vanilla` with a field left unsigned and the date the request carries, and the S3
/// documentation's chunked upload framed by the authenticator, from a body in memory and from a
/// stream whose chunks are not the upload's.
@Suite struct AWSSigV4AuthenticatorTests {
    static let suiteSigner = AWS.SigV4Signer(
        credentials: .init(accessKeyID: "AKIDEXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"),
        region: "us-east-1",
        service: "service"
    )

    /// `get-vanilla` (AWS SigV4 test suite): `Accept` set aside is sent but not signed, so the
    /// signature is the suite's; the request's own `X-Amz-Date` is the time signed at.
    @Test func unsignedFieldsAndTheRequestsDate() async throws {
        var request = try HTTPRequest(method: .get, absoluteURL: "https://example.amazonaws.com/")
        request.headerFields[.accept] = "*/*"
        request.headerFields[HTTPField.Name("X-Amz-Date")!] = "20150830T123600Z"
        var authenticator = AWS.SigV4Authenticator(signer: Self.suiteSigner)
        authenticator.unsignedFields = [.accept]
        var attempt = AuthenticationAttempt(request: request, body: nil)
        try await authenticator.authenticate(&attempt)
        #expect(
            attempt.request.headerFields[.authorization]
                == "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, SignedHeaders=host;x-amz-date, Signature=5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31"
        )
        #expect(attempt.request.headerFields[.accept] == "*/*")
        #expect(attempt.request.headerFields[values: HTTPField.Name("X-Amz-Date")!] == ["20150830T123600Z"])

        // Signed, Accept changes the signature.
        var signedAccept = AuthenticationAttempt(request: request, body: nil)
        try await AWS.SigV4Authenticator(signer: Self.suiteSigner).authenticate(&signedAccept)
        #expect(
            signedAccept.request.headerFields[.authorization]?.contains("SignedHeaders=accept;host;x-amz-date,") == true
        )

        request.headerFields[HTTPField.Name("X-Amz-Date")!] = "2015-08-30T12:36:00Z"
        var malformed = AuthenticationAttempt(request: request, body: nil)
        let error = await #expect(throws: AWS.SigV4Error.self) { try await authenticator.authenticate(&malformed) }
        #expect(error?.code == .invalidRequest)
    }

    /// The S3 example (`Tests/Vectors/sigv4_streaming.json`) through the authenticator: the
    /// seed signature in `Authorization`, and the framed body holding the three documented chunk
    /// signatures, whether the body is in memory or streamed in pieces of 1000 octets.
    @Test(arguments: try Vectors.load("sigv4_streaming", as: AWSSigV4StreamingTests.Vector.self), [false, true])
    func theDocumentedChunkedUpload(_ vector: AWSSigV4StreamingTests.Vector, streamed: Bool) async throws {
        let (signer, request, payload) = try vector.inputs()
        var prepared = request
        prepared.headerFields[HTTPField.Name("X-Amz-Date")!] = vector.date
        let body: RequestBody =
            streamed
            ? .stream(length: payload.count) {
                AsyncThrowingStream { continuation in
                    for start in stride(from: 0, to: payload.count, by: 1000) {
                        continuation.yield(Array(payload[start..<min(start + 1000, payload.count)]))
                    }
                    continuation.finish()
                }
            } : .bytes(payload)
        var attempt = AuthenticationAttempt(request: prepared, requestBody: body)
        let authenticator = AWS.SigV4Authenticator(signer: signer, payload: .streaming(chunkSize: vector.chunk_size))
        try await authenticator.authenticate(&attempt)
        #expect(attempt.request.headerFields[.authorization]?.hasSuffix("Signature=\(vector.seed_signature)") == true)
        #expect(attempt.request.headerFields[.contentLength] == String(vector.content_length))
        let framed: [UInt8]
        if streamed {
            #expect(attempt.body == nil)
            let sent = try #require(attempt.streamedBody)
            #expect(sent.length == vector.content_length)
            framed = try await sent.collect(upTo: 1 << 20)
            // A second pass signs the same chain again.
            #expect(try await sent.collect(upTo: 1 << 20) == framed)
        } else {
            framed = try #require(attempt.body)
        }
        #expect(framed.count == vector.content_length)
        let text = String(decoding: framed, as: UTF8.self)
        let headers = vector.chunks.map { String($0.size, radix: 16) + ";chunk-signature=" + $0.signature + "\r\n" }
        #expect(text.hasPrefix(headers[0]))
        #expect(text.contains("\r\n" + headers[1]))
        #expect(text.hasSuffix("\r\n" + headers[2] + "\r\n"))
    }
}
