import Crypto
public import HTTPTypes

extension AWS {
    /// The signatures of an `aws-chunked` upload
    /// ([S3: signing a payload in multiple chunks](https://docs.aws.amazon.com/AmazonS3/latest/API/sigv4-streaming.html)),
    /// a value-typed state machine: each chunk's signature chains the previous one (the first
    /// chains the request's "seed" signature), so chunks are signed in order, then the final
    /// empty chunk closes the body.
    ///
    /// A chunk's string to sign: `AWS4-HMAC-SHA256-PAYLOAD`, the request's `X-Amz-Date`, its
    /// scope, the previous signature, the SHA-256 of nothing, the SHA-256 of the chunk; signed
    /// with the day's key. A chunk on the wire: its length in hex, `;chunk-signature=`, the
    /// signature, CRLF, the data, CRLF.
    public struct SigV4ChunkSigner: Sendable, CustomStringConvertible {
        /// The request's own signature, which the first chunk chains.
        public let seedSignature: String
        /// The last signature made (the seed before any chunk).
        public private(set) var previousSignature: String
        /// Whether the final, empty chunk was signed: no chunk may follow.
        public private(set) var finished = false
        let date: String
        let scope: String
        let key: SymmetricKey

        static let emptySHA256 = SigV4Signer.hexSHA256([])

        init(seedSignature: String, date: String, scope: String, key: [UInt8]) {
            self.seedSignature = seedSignature
            self.previousSignature = seedSignature
            self.date = date
            self.scope = scope
            self.key = SymmetricKey(data: key)
        }

        /// The signature of `chunk`, the next one of the body; an empty chunk is the final one.
        ///
        /// - Throws: ``SigV4Error`` once the final chunk was signed.
        public mutating func signature(of chunk: some Collection<UInt8>) throws -> String {
            guard !finished else { throw SigV4Error("the final chunk was signed: no chunk may follow it") }
            let stringToSign =
                "AWS4-HMAC-SHA256-PAYLOAD\n\(date)\n\(scope)\n\(previousSignature)\n\(Self.emptySHA256)\n"
                + SigV4Signer.hexSHA256(Array(chunk))
            let mac = HMAC<SHA256>.authenticationCode(for: Array(stringToSign.utf8), using: key)
            previousSignature = Hex.encode(Array(mac))
            if chunk.isEmpty { finished = true }
            return previousSignature
        }

        /// `chunk` framed and signed as it goes on the wire; an empty chunk is the final frame.
        public mutating func frame(_ chunk: some Collection<UInt8>) throws -> [UInt8] {
            let signature = try signature(of: chunk)
            var out = Array("\(String(chunk.count, radix: 16));chunk-signature=\(signature)\r\n".utf8)
            out.reserveCapacity(out.count + chunk.count + 2)
            out.append(contentsOf: chunk)
            out.append(contentsOf: [0x0D, 0x0A])
            return out
        }

        /// The body's length on the wire (`Content-Length`) for `decodedLength` octets sent in
        /// chunks of `chunkSize` (the last one shorter), the final empty chunk included.
        public static func encodedLength(decodedLength: Int, chunkSize: Int) -> Int {
            precondition(chunkSize > 0, "a chunk holds at least one octet")
            func framed(_ size: Int) -> Int { String(size, radix: 16).utf8.count + 17 + 64 + 2 + size + 2 }
            let full = decodedLength / chunkSize
            let rest = decodedLength % chunkSize
            return full * framed(chunkSize) + (rest > 0 ? framed(rest) : 0) + framed(0)
        }

        public var description: String { "AWS.SigV4ChunkSigner(seed \(seedSignature.prefix(8))…)" }
    }
}

extension AWS.SigV4Signer {
    /// `x-amz-content-sha256` of a signed `aws-chunked` upload.
    public static let streamingPayload = "STREAMING-AWS4-HMAC-SHA256-PAYLOAD"

    /// `request` signed for an `aws-chunked` upload of `decodedLength` octets in chunks of
    /// `chunkSize`: `Content-Encoding: aws-chunked`, `Content-Length` (the framed length),
    /// `x-amz-decoded-content-length` and `x-amz-content-sha256:
    /// STREAMING-AWS4-HMAC-SHA256-PAYLOAD` set and signed; the seed signature in
    /// `Authorization`. The ``AWS/SigV4ChunkSigner`` it returns signs the chunks, in order.
    ///
    /// - Throws: ``AWS/SigV4Error`` for a service other than `s3`, a chunk size under 8 KiB
    ///   (S3's least, the last chunk aside) or a request without an authority or path.
    public func signStreaming(
        _ request: HTTPRequest,
        decodedLength: Int,
        chunkSize: Int = 64 * 1024,
        date: String? = nil
    ) throws -> (signed: Signed, chunks: AWS.SigV4ChunkSigner) {
        guard service == "s3" else {
            throw AWS.SigV4Error("aws-chunked uploads are S3's (service s3), not \(service)'s")
        }
        guard chunkSize >= 8 * 1024, decodedLength >= 0 else {
            throw AWS.SigV4Error("an aws-chunked upload sends chunks of at least 8192 octets, not \(chunkSize)")
        }
        let date = date ?? Self.amzDate(now())
        var prepared = request
        prepared.headerFields[.contentEncoding] = "aws-chunked"
        prepared.headerFields[.contentLength] = String(
            AWS.SigV4ChunkSigner.encodedLength(decodedLength: decodedLength, chunkSize: chunkSize)
        )
        prepared.headerFields[HTTPField.Name("x-amz-decoded-content-length")!] = String(decodedLength)
        prepared.headerFields[Self.contentSHA256] = Self.streamingPayload
        let signed = try sign(prepared, body: nil, payloadHash: Self.streamingPayload, date: date)
        let chunks = AWS.SigV4ChunkSigner(
            seedSignature: signed.signature,
            date: date,
            scope: scope(date),
            key: signingKey(date: date)
        )
        return (signed, chunks)
    }
}
