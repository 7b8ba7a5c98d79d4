public import HTTPTypes

extension AWS {
    /// SigV4 as a ``RequestAuthenticator``: every attempt signed afresh in the header form, the
    /// payload covered as ``payload`` says (the body's hash, `UNSIGNED-PAYLOAD`, or an
    /// `aws-chunked` upload with each chunk signed).
    public struct SigV4Authenticator: RequestAuthenticator, CustomStringConvertible {
        /// How the payload is covered: the value of `x-amz-content-sha256`
        /// ([S3: authenticating requests](https://docs.aws.amazon.com/AmazonS3/latest/API/sig-v4-header-based-auth.html)).
        public enum Payload: Sendable, Hashable {
            /// The body's hex SHA-256 (a streamed body is hashed by a pass of its own).
            case signed
            /// `UNSIGNED-PAYLOAD`: the body is not covered by the signature (S3 allows it).
            case unsigned
            /// `STREAMING-AWS4-HMAC-SHA256-PAYLOAD`: the body sent `aws-chunked`, in chunks of
            /// `chunkSize` octets (at least 8192; the SDKs send 65536), each signed in turn
            /// ([S3: signing a payload in multiple chunks](https://docs.aws.amazon.com/AmazonS3/latest/API/sigv4-streaming.html)).
            /// S3's only (service `s3`), and the body's length must be known: S3 needs
            /// `x-amz-decoded-content-length` and the framed `Content-Length` up front.
            case streaming(chunkSize: Int)
        }

        /// The signer that signs each attempt: the access key, the region and the service.
        public let signer: SigV4Signer
        /// How the payload is covered; ``Payload/signed`` unless set.
        public var payload: Payload = .signed
        /// Fields sent but left out of the signature, besides those SigV4 never signs
        /// (`User-Agent`, `Expect`): a client's own defaults, as curl's `--aws-sigv4` signs only
        /// `Host`, `X-Amz-Date` and the fields its user gave, not its `Accept` or the
        /// `Content-Type` it adds to `-d`. A proxy may rewrite such a field without breaking the
        /// signature ([AWS: signed headers](https://docs.aws.amazon.com/IAM/latest/UserGuide/create-signed-request.html#create-canonical-request)).
        public var unsignedFields: Set<HTTPField.Name> = []

        /// Send `UNSIGNED-PAYLOAD` instead of the body's hash: ``payload`` is ``Payload/unsigned``.
        public var unsignedPayload: Bool {
            get { payload == .unsigned }
            set { payload = newValue ? .unsigned : .signed }
        }

        /// An authenticator that signs every attempt with `signer`, the body's hash included.
        public init(signer: SigV4Signer) { self.signer = signer }

        /// An authenticator that signs every attempt with `signer`, covering the payload as `payload` says.
        public init(signer: SigV4Signer, payload: Payload) {
            self.signer = signer
            self.payload = payload
        }

        public var writtenFields: [HTTPField.Name] { [.authorization, SigV4Signer.securityToken] }

        /// A streamed body is hashed by one more pass over it (``RequestBody/sha256()``); for
        /// ``Payload/streaming(chunkSize:)`` the body (in memory or streamed) is replaced by its
        /// `aws-chunked` framing, each pass signing its chunks afresh from the seed signature.
        ///
        /// A request that already carries `X-Amz-Date` is signed at that time, as curl does with
        /// `-H 'X-Amz-Date: …'`.
        ///
        /// - Throws: ``SigV4Error`` for a streaming upload of unknown length, a service other
        ///   than `s3`, a chunk size under 8192, or an `X-Amz-Date` that is not `yyyyMMddTHHmmssZ`.
        public func authenticate(_ attempt: inout AuthenticationAttempt) async throws {
            let date = attempt.request.headerFields[SigV4Signer.amzDate]
            if let date, SigV4Verifier.seconds(date) == nil {
                throw SigV4Error("the request's X-Amz-Date is not yyyyMMddTHHmmssZ")
            }
            // The fields left unsigned are set aside, then sent after the signed ones.
            let setAside = attempt.request.headerFields.filter { unsignedFields.contains($0.name) }
            let request = attempt.request
            var covered = request
            covered.headerFields = HTTPFields(request.headerFields.filter { !unsignedFields.contains($0.name) })
            switch payload {
            case .signed:
                var payloadHash: String?
                if let streamed = attempt.streamedBody { payloadHash = Hex.encode(try await streamed.sha256()) }
                attempt.request = try signer.sign(covered, body: attempt.body, payloadHash: payloadHash, date: date)
                    .request
            case .unsigned:
                attempt.request = try signer.sign(
                    covered,
                    body: attempt.body,
                    payloadHash: "UNSIGNED-PAYLOAD",
                    date: date
                )
                .request
            case .streaming(let chunkSize):
                let streamed = attempt.streamedBody
                let length: Int
                if let streamed {
                    guard let known = streamed.length else {
                        throw SigV4Error(
                            "an aws-chunked upload needs the body's length (x-amz-decoded-content-length): this stream's is unknown"
                        )
                    }
                    length = known
                } else {
                    length = attempt.body?.count ?? 0
                }
                let (signed, chunks) = try signer.signStreaming(
                    covered,
                    decodedLength: length,
                    chunkSize: chunkSize,
                    date: date
                )
                attempt.request = signed.request
                if let streamed {
                    let framedLength = SigV4ChunkSigner.encodedLength(decodedLength: length, chunkSize: chunkSize)
                    attempt.streamedBody = .stream(length: framedLength) {
                        let pass = ChunkFramingPass(streamed.chunks(), chunkSize: chunkSize, chunks: chunks)
                        return AsyncThrowingStream(unfolding: { try await pass.next() })
                    }
                } else {
                    attempt.body = try Self.frame(attempt.body ?? [], chunkSize: chunkSize, chunks: chunks)
                }
            }
            attempt.request.headerFields.append(contentsOf: setAside)
        }

        /// `body` framed whole, in chunks of `chunkSize`, the final empty chunk last.
        static func frame(_ body: [UInt8], chunkSize: Int, chunks: SigV4ChunkSigner) throws -> [UInt8] {
            var chunks = chunks
            var framed: [UInt8] = []
            framed.reserveCapacity(SigV4ChunkSigner.encodedLength(decodedLength: body.count, chunkSize: chunkSize))
            var offset = 0
            while offset < body.count {
                framed += try chunks.frame(body[offset..<min(offset + chunkSize, body.count)])
                offset += chunkSize
            }
            framed += try chunks.frame([UInt8]())
            return framed
        }

        public var description: String { "AWS.SigV4Authenticator(\(signer), \(payload))" }
    }
}

/// One pass of an `aws-chunked` upload over a streamed body: the source's chunks, whatever
/// their sizes, regrouped into chunks of exactly `chunkSize` octets (the last one shorter), each
/// framed and signed in order, then the final empty chunk.
final class ChunkFramingPass: @unchecked Sendable {
    // One consumer calls `next()` at a time (`AsyncThrowingStream(unfolding:)`'s contract), so
    // the iterator, the buffer and the chain are never touched concurrently.
    private var source: AsyncThrowingStream<[UInt8], any Error>.Iterator
    private var buffer: [UInt8] = []
    private var chunks: AWS.SigV4ChunkSigner
    private let chunkSize: Int

    init(_ source: AsyncThrowingStream<[UInt8], any Error>, chunkSize: Int, chunks: AWS.SigV4ChunkSigner) {
        self.source = source.makeAsyncIterator()
        self.chunkSize = chunkSize
        self.chunks = chunks
    }

    func next() async throws -> [UInt8]? {
        guard !chunks.finished else { return nil }
        while buffer.count < chunkSize, let more = try await source.next() { buffer += more }
        if buffer.count >= chunkSize {
            let frame = try chunks.frame(buffer[..<chunkSize])
            buffer.removeFirst(chunkSize)
            return frame
        }
        // The source has ended: what is left, then the final chunk.
        var frames = buffer.isEmpty ? [] : try chunks.frame(buffer)
        frames += try chunks.frame([UInt8]())
        buffer = []
        return frames
    }
}
