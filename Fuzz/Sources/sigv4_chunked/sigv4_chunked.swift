import FuzzSupport
import HTTPTypes
import RemoteAuth

/// `aws-chunked` uploads (`STREAMING-AWS4-HMAC-SHA256-PAYLOAD`) as `AWS.SigV4Verifier` reads
/// them, against a request signed with fixed credentials for a declared length.
///
/// The input is used twice: as a body sent as it is (the chunk framing parser on arbitrary
/// octets: never a crash, and a body that verifies decodes to the declared length), and as a
/// payload the library frames and signs in chunks of 8 KiB (it must verify and decode to
/// itself, and stop verifying with one octet of the framed body changed).
@main struct Target {
    static let date = "20240101T000000Z"
    static let now: Int64 = 1_704_067_200
    static let signer = AWS.SigV4Signer(
        credentials: .init(accessKeyID: "AKIDFUZZ", secretAccessKey: "fuzz-secret"),
        region: "us-east-1",
        service: "s3"
    )
    static let verifier = AWS.SigV4Verifier { $0 == "AKIDFUZZ" ? "fuzz-secret" : nil }

    static func signed(length: Int) -> (HTTPRequest, AWS.SigV4ChunkSigner) {
        let request = try! HTTPRequest(method: .put, absoluteURL: "https://bucket.s3.amazonaws.com/key")
        let (signed, chunks) = try! signer.signStreaming(request, decodedLength: length, chunkSize: 8192, date: date)
        return (signed.request, chunks)
    }

    static func main() {
        Fuzz.run { input in
            let bytes = input.bytes
            // As sent: the declared length is the input's own length (any other is refused).
            let (request, _) = signed(length: bytes.count)
            if let verified = try? verifier.verify(request, body: bytes, now: now) {
                Fuzz.require(verified.decodedBody?.count == bytes.count, "a verified body of another length")
            }
            // As a payload: framed and signed here, it verifies and decodes to itself.
            let (own, first) = signed(length: bytes.count)
            var chunks = first
            var body: [UInt8] = []
            var offset = 0
            while offset < bytes.count {
                let end = min(offset + 8192, bytes.count)
                body += try! chunks.frame(bytes[offset..<end])
                offset = end
            }
            body += try! chunks.frame([UInt8]())
            Fuzz.require(own.headerFields[.contentLength] == String(body.count), "the signed Content-Length is not the framed length")
            let verified = try? verifier.verify(own, body: body, now: now)
            Fuzz.require(verified?.decodedBody == bytes, "a signed upload does not verify or decode to itself")
            if !body.isEmpty {
                var changed = body
                let index = Int(bytes.first ?? 0) % changed.count
                changed[index] ^= 0x01
                Fuzz.require(
                    (try? verifier.verify(own, body: changed, now: now)) == nil,
                    "an upload with one octet changed still verifies"
                )
            }
        }
    }
}
