import Crypto
import Foundation
import HTTPTypes
import RemoteAuth
import Testing

/// `aws-chunked` uploads signed with `STREAMING-AWS4-HMAC-SHA256-PAYLOAD`: the AWS S3
/// documentation's example byte for byte (`Tests/Vectors/sigv4_streaming.json`), the framing,
/// and the order the chunks must keep.
@Suite struct AWSSigV4StreamingTests {
    struct Vector: Decodable, Sendable, CustomTestStringConvertible {
        struct Payload: Decodable, Sendable {
            let octet: String
            let length: Int
        }
        struct Chunk: Decodable, Sendable {
            let size: Int
            let sha256: String
            let signature: String
        }
        let name: String
        let access_key_id: String
        let secret_access_key: String
        let region: String
        let service: String
        let date: String
        let method: String
        let url: String
        let headers: [[String]]
        let payload: Payload
        let chunk_size: Int
        let content_length: Int
        let canonical_request: String
        let string_to_sign: String
        let seed_signature: String
        let chunks: [Chunk]
        var testDescription: String { name }

        /// The signer, the request before signing, and the payload.
        func inputs() throws -> (AWS.SigV4Signer, HTTPRequest, [UInt8]) {
            let signer = AWS.SigV4Signer(
                credentials: .init(accessKeyID: access_key_id, secretAccessKey: Secret(secret_access_key)),
                region: region,
                service: service
            )
            var request = try HTTPRequest(method: .init(method)!, absoluteURL: url)
            for pair in headers { request.headerFields[HTTPField.Name(pair[0])!] = pair[1] }
            return (signer, request, [UInt8](repeating: Array(payload.octet.utf8)[0], count: payload.length))
        }
    }

    @Test(arguments: try Vectors.load("sigv4_streaming", as: Vector.self))
    func theDocumentedExample(_ vector: Vector) throws {
        let (signer, request, payload) = try vector.inputs()
        var (signed, chunks) = try signer.signStreaming(
            request,
            decodedLength: payload.count,
            chunkSize: vector.chunk_size,
            date: vector.date
        )
        #expect(signed.canonicalRequest == vector.canonical_request)
        #expect(signed.stringToSign == vector.string_to_sign)
        #expect(signed.signature == vector.seed_signature)
        #expect(signed.request.headerFields[.contentLength] == String(vector.content_length))
        #expect(
            signed.request.headerFields[.authorization]
                == "AWS4-HMAC-SHA256 Credential=\(vector.access_key_id)/20130524/us-east-1/s3/aws4_request, SignedHeaders=content-encoding;content-length;host;x-amz-content-sha256;x-amz-date;x-amz-decoded-content-length;x-amz-storage-class, Signature=\(vector.seed_signature)"
        )
        var body: [UInt8] = []
        var offset = 0
        for chunk in vector.chunks {
            let data = payload[offset..<offset + chunk.size]
            #expect(Hex.encode(Array(SHA256.hash(data: Array(data)))) == chunk.sha256)
            body += try chunks.frame(data)
            #expect(chunks.previousSignature == chunk.signature)
            offset += chunk.size
        }
        #expect(chunks.finished)
        #expect(body.count == vector.content_length)
        #expect(
            String(decoding: body.prefix(88), as: UTF8.self)
                == "10000;chunk-signature=\(vector.chunks[0].signature)\r\n"
        )
        #expect(
            String(decoding: body.suffix(86), as: UTF8.self)
                == "0;chunk-signature=\(vector.chunks[2].signature)\r\n\r\n"
        )
    }

    @Test func framingAndOrder() throws {
        let signer = AWS.SigV4Signer(
            credentials: .init(accessKeyID: "AKIDEXAMPLE", secretAccessKey: "secret"),
            region: "us-east-1",
            service: "s3"
        )
        let request = try HTTPRequest(method: .put, absoluteURL: "https://bucket.s3.amazonaws.com/key")
        #expect(throws: AWS.SigV4Error.self) {
            try signer.signStreaming(request, decodedLength: 10, chunkSize: 1024, date: "20240101T000000Z")
        }
        let other = AWS.SigV4Signer(credentials: signer.credentials, region: "us-east-1", service: "execute-api")
        let refused = #expect(throws: AWS.SigV4Error.self) {
            try other.signStreaming(request, decodedLength: 10, date: "20240101T000000Z")
        }
        #expect(refused?.reason == "aws-chunked uploads are S3's (service s3), not execute-api's")
        var (_, chunks) = try signer.signStreaming(request, decodedLength: 10, date: "20240101T000000Z")
        _ = try chunks.frame(Array(repeating: 1, count: 10))
        _ = try chunks.frame([UInt8]())
        let after = #expect(throws: AWS.SigV4Error.self) { _ = try chunks.frame([UInt8](repeating: 1, count: 1)) }
        #expect(after?.reason == "the final chunk was signed: no chunk may follow it")
        // The framed length for every split: full chunks, a shorter last one, the empty final one.
        #expect(AWS.SigV4ChunkSigner.encodedLength(decodedLength: 0, chunkSize: 8192) == 86)
        #expect(
            AWS.SigV4ChunkSigner.encodedLength(decodedLength: 8192, chunkSize: 8192) == (4 + 17 + 64 + 2) + 8192 + 2
                + 86
        )
    }

    /// The server side: the documented upload verifies and decodes; a changed octet, a changed
    /// chunk signature, a body cut short, octets after the final chunk or a wrong decoded length
    /// are each refused with their code.
    @Test(arguments: try Vectors.load("sigv4_streaming", as: Vector.self))
    func theVerifierDecodesAndRefuses(_ vector: Vector) throws {
        let (signer, request, payload) = try vector.inputs()
        var (signed, chunks) = try signer.signStreaming(
            request,
            decodedLength: payload.count,
            chunkSize: vector.chunk_size,
            date: vector.date
        )
        var body: [UInt8] = []
        var offset = 0
        for chunk in vector.chunks {
            body += try chunks.frame(payload[offset..<offset + chunk.size])
            offset += chunk.size
        }
        let verifier = AWS.SigV4Verifier { $0 == vector.access_key_id ? Secret(vector.secret_access_key) : nil }
        let now: Int64 = 1_369_353_600  // 2013-05-24T00:00:00Z
        let verified = try verifier.verify(signed.request, body: body, now: now)
        #expect(verified.decodedBody == payload)

        func code(_ body: [UInt8], _ request: HTTPRequest? = nil) -> AWS.SigV4Error.Code? {
            do {
                _ = try verifier.verify(request ?? signed.request, body: body, now: now)
                return nil
            } catch let error as AWS.SigV4Error {
                return error.code
            } catch {
                return nil
            }
        }
        var changed = body
        changed[200] = UInt8(ascii: "b")
        #expect(code(changed) == .signatureDoesNotMatch)
        var resigned = body
        resigned[22] = resigned[22] == UInt8(ascii: "0") ? UInt8(ascii: "1") : UInt8(ascii: "0")
        #expect(code(resigned) == .signatureDoesNotMatch)
        #expect(code(Array(body.dropLast(3))) == .invalidRequest)
        #expect(code(body + Array("x".utf8)) == .invalidRequest)
        var lying = signed.request
        lying.headerFields[HTTPField.Name("x-amz-decoded-content-length")!] = "66559"
        #expect(code(body, lying) == .signatureDoesNotMatch, "the length is a signed field")
        // A signer that sends fewer octets than it declared (and signed).
        let short = try signer.signStreaming(request, decodedLength: 10, chunkSize: 8192, date: vector.date)
        var shortChunks = short.chunks
        let shortBody = try shortChunks.frame(payload.prefix(5)) + shortChunks.frame([UInt8]())
        #expect(code(shortBody, short.signed.request) == .invalidRequest)
        // Unsigned framing is refused before any signature is compared.
        #expect(code(Array("zz;chunk-signature=".utf8)) == .invalidRequest)
    }
}
