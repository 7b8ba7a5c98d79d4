import Crypto
public import HTTPTypes

/// A request body that can be sent more than once: an authenticator's retry and a `307`/`308`
/// redirect send it again ([RFC 9110 §15.4.8](https://www.rfc-editor.org/rfc/rfc9110#section-15.4.8)),
/// and a signature over it (AWS SigV4's payload hash, RFC 9530's `Content-Digest`) reads it
/// once more. Bytes in memory, or a stream made afresh for each pass, with its length when
/// known (sent as `Content-Length`; otherwise chunked).
///
/// ```swift
/// let upload = RequestBody.stream(length: size) { fileChunks(path) }   // a new pass each call
/// let (response, body) = try await client.stream(request, body: upload)
/// for try await chunk in body { … }
/// ```
public struct RequestBody: Sendable, CustomStringConvertible {
    enum Storage: Sendable {
        case bytes([UInt8])
        case stream(@Sendable () -> AsyncThrowingStream<[UInt8], any Error>)
    }

    let storage: Storage
    /// The length in bytes, when known.
    public let length: Int?

    /// A body in memory.
    public static func bytes(_ bytes: [UInt8]) -> RequestBody {
        RequestBody(storage: .bytes(bytes), length: bytes.count)
    }

    /// A streamed body: `makeChunks` is called once per pass (each send, each digest) and must
    /// yield the same bytes each time; a pass whose total is not `length` fails the request
    /// with ``ClientError/Code/invalidBody``.
    public static func stream(
        length: Int?,
        _ makeChunks: @escaping @Sendable () -> AsyncThrowingStream<[UInt8], any Error>
    ) -> RequestBody {
        RequestBody(storage: .stream(makeChunks), length: length)
    }

    /// The bytes of a body in memory; `nil` for a stream.
    public var bytes: [UInt8]? {
        guard case .bytes(let bytes) = storage else { return nil }
        return bytes
    }

    /// A fresh pass over the body, checked against ``length``.
    public func chunks() -> AsyncThrowingStream<[UInt8], any Error> {
        switch storage {
        case .bytes(let bytes):
            return AsyncThrowingStream { continuation in
                if !bytes.isEmpty { continuation.yield(bytes) }
                continuation.finish()
            }
        case .stream(let make):
            let pass = CheckedPass(make().makeAsyncIterator(), length: length)
            return AsyncThrowingStream(unfolding: { try await pass.next() })
        }
    }

    /// The whole body, in memory.
    ///
    /// - Throws: ``ClientError/Code/invalidBody`` past `limit` bytes, or when a stream's
    ///   length is not ``length``; the stream's own errors.
    public func collect(upTo limit: Int) async throws -> [UInt8] {
        if let bytes, bytes.count <= limit { return bytes }
        var collected: [UInt8] = []
        for try await chunk in chunks() {
            guard collected.count + chunk.count <= limit else {
                throw ClientError(.invalidBody, "the request body is larger than \(limit) bytes")
            }
            collected += chunk
        }
        return collected
    }

    /// The SHA-256 of the body, by one pass: what SigV4's `x-amz-content-sha256` and RFC 9530's
    /// `sha-256` digest need, without holding a stream in memory.
    public func sha256() async throws -> [UInt8] {
        if let bytes { return Array(SHA256.hash(data: bytes)) }
        var hasher = SHA256()
        for try await chunk in chunks() { hasher.update(data: chunk) }
        return Array(hasher.finalize())
    }

    static func lengthMismatch(_ length: Int, atLeast total: Int) -> ClientError {
        ClientError(
            .invalidBody,
            "the streamed request body yielded \(total) bytes where its length is \(length)"
        )
    }

    public var description: String {
        switch storage {
        case .bytes(let bytes): "RequestBody(\(bytes.count) bytes)"
        case .stream: "RequestBody(stream, \(length.map { "\($0) bytes" } ?? "length unknown"))"
        }
    }
}

/// One pass over a stream, pulled by its one consumer (`AsyncThrowingStream(unfolding:)` asks
/// for the next chunk only when the consumer does: no chunk is read ahead), its total checked
/// against the declared length.
final class CheckedPass: @unchecked Sendable {
    // One consumer calls `next()` at a time (the unfolding stream's contract), so the
    // iterator and the count are never touched concurrently.
    private var iterator: AsyncThrowingStream<[UInt8], any Error>.Iterator
    private var total = 0
    private let length: Int?

    init(_ iterator: AsyncThrowingStream<[UInt8], any Error>.Iterator, length: Int?) {
        self.iterator = iterator
        self.length = length
    }

    func next() async throws -> [UInt8]? {
        while let chunk = try await iterator.next() {
            total += chunk.count
            if let length, total > length { throw RequestBody.lengthMismatch(length, atLeast: total) }
            if !chunk.isEmpty { return chunk }
        }
        if let length, total != length { throw RequestBody.lengthMismatch(length, atLeast: total) }
        return nil
    }
}

/// A response body as it arrives, in chunks, bounded by the transport's limit (a longer body
/// fails with ``TransportError/Code/responseTooLarge``). Iterate it once, or ``collect(upTo:)``.
public struct ResponseBody: AsyncSequence, Sendable {
    /// A chunk of the body, as it arrived.
    public typealias Element = [UInt8]
    let stream: AsyncThrowingStream<[UInt8], any Error>
    /// The whole body when it already arrived in memory (a buffering transport).
    public let bytes: [UInt8]?

    /// A body already in memory.
    public init(bytes: [UInt8]) {
        self.bytes = bytes
        self.stream = AsyncThrowingStream { continuation in
            if !bytes.isEmpty { continuation.yield(bytes) }
            continuation.finish()
        }
    }

    /// A body that arrives in chunks from `stream` (which enforces its limit).
    public init(stream: AsyncThrowingStream<[UInt8], any Error>) {
        self.bytes = nil
        self.stream = stream
    }

    public func makeAsyncIterator() -> AsyncThrowingStream<[UInt8], any Error>.Iterator {
        stream.makeAsyncIterator()
    }

    /// The whole body.
    ///
    /// - Throws: ``TransportError/Code/responseTooLarge`` past `limit` bytes; the stream's errors.
    public func collect(upTo limit: Int) async throws -> [UInt8] {
        if let bytes {
            guard bytes.count <= limit else {
                throw TransportError(.responseTooLarge, "the response body is larger than \(limit) bytes")
            }
            return bytes
        }
        var collected: [UInt8] = []
        for try await chunk in stream {
            guard collected.count + chunk.count <= limit else {
                throw TransportError(.responseTooLarge, "the response body is larger than \(limit) bytes")
            }
            collected += chunk
        }
        return collected
    }
}

extension HTTPTransport {
    /// Buffers: the body is collected (up to 16 MiB, the transports' default response limit)
    /// and sent with ``send(_:body:)``, whose response body is handed back whole. Transports
    /// that stream (`AsyncHTTPClientTransport`) implement this themselves.
    public func stream(_ request: HTTPRequest, body: RequestBody?) async throws -> (HTTPResponse, ResponseBody) {
        let bytes = try await body?.collect(upTo: 16 << 20)
        let (response, responseBody) = try await send(request, body: bytes)
        return (response, ResponseBody(bytes: responseBody))
    }
}
