import Crypto
import RemoteAuth
import Testing

/// `RequestBody`: passes made afresh and checked against the declared length, hashed without
/// holding the stream, bounded when collected; authenticators that need a body in memory refuse
/// a stream with `invalidBody` rather than sign the wrong bytes.
@Suite struct RequestBodyTests {
    static func chunked(_ chunks: [[UInt8]], length: Int?) -> RequestBody {
        RequestBody.stream(length: length) {
            AsyncThrowingStream { continuation in
                for chunk in chunks { continuation.yield(chunk) }
                continuation.finish()
            }
        }
    }

    @Test func passesAndDigests() async throws {
        let body = Self.chunked([[1, 2], [], [3]], length: 3)
        #expect(body.bytes == nil && body.length == 3)
        #expect(try await body.collect(upTo: 3) == [1, 2, 3])
        #expect(try await body.collect(upTo: 3) == [1, 2, 3])  // a second pass
        #expect(try await body.sha256() == Array(SHA256.hash(data: [1, 2, 3] as [UInt8])))
        #expect(try await RequestBody.bytes([1, 2, 3]).sha256() == (try await body.sha256()))
        #expect("\(body)" == "RequestBody(stream, 3 bytes)")
        #expect("\(Self.chunked([], length: nil))" == "RequestBody(stream, length unknown)")

        await #expect(throws: ClientError(.invalidBody, "")) { _ = try await body.collect(upTo: 2) }
        let short = Self.chunked([[1, 2]], length: 3)
        let shortError = await #expect(throws: ClientError.self) { _ = try await short.collect(upTo: 10) }
        #expect(shortError?.reason == "the streamed request body yielded 2 bytes where its length is 3")
        let long = Self.chunked([[1, 2], [3, 4]], length: 3)
        let longError = await #expect(throws: ClientError.self) { _ = try await long.sha256() }
        #expect(longError?.reason == "the streamed request body yielded 4 bytes where its length is 3")
    }

    /// OAuth 1.0a signs a form body's parameters: a streamed form is refused before anything is
    /// sent; a buffering transport gets the whole of another body.
    @Test func authenticatorsThatNeedTheBytes() async throws {
        let signer = try OAuth1.Signer(client: .init(key: "k", secret: "s"), token: .init(token: "t", secret: "ts"))
        let transport = ScriptedTransport([ScriptedTransport.status(200)])
        let client = AuthenticatingClient(
            transport: transport,
            authenticators: [
                ScopedAuthenticator(
                    OAuth1.RequestSigner(signer: signer, now: { 1 }),
                    for: try AuthScope(url: "https://api.example")
                )
            ]
        )
        var form = try HTTPRequest(method: .post, absoluteURL: "https://api.example/update")
        form.headerFields[.contentType] = "application/x-www-form-urlencoded"
        let error = await #expect(throws: ClientError.self) {
            _ = try await client.stream(form, body: Self.chunked([Array("status=x".utf8)], length: 8))
        }
        #expect(error?.code == .invalidBody)
        #expect(transport.sent.isEmpty)

        var json = form
        json.headerFields[.contentType] = "application/json"
        let (response, body) = try await client.stream(json, body: Self.chunked([[0x7B], [0x7D]], length: nil))
        #expect(response.status == .ok)
        #expect(try await body.collect(upTo: 10) == [])
        #expect(transport.sent.first?.body == [0x7B, 0x7D])
        #expect(transport.sent.first?.request.headerFields[.authorization]?.hasPrefix("OAuth ") == true)
    }
}
