import FuzzSupport
import HTTPTypes
import RemoteAuth

/// `Content-Digest` (RFC 9530 §2): the first line is the field value, the rest the content it is
/// checked against (in constant time, SHA-256 and SHA-512 only).
///
/// Invariants: no more digests than bytes; what parses serializes to a value that parses back
/// equal; the digests of the content, set on a message, verify against it.
@main struct Target {
    static func main() {
        Fuzz.run { input in
            let lines = input.lines(2)
            let body = lines[1]
            if let digest = try? HTTPMessageSignatures.ContentDigest(fieldValue: lines[0].text) {
                Fuzz.require(digest.entries.count <= input.bytes.count, "more digests than bytes")
                let back = try? HTTPMessageSignatures.ContentDigest(fieldValue: digest.fieldValue)
                Fuzz.require(back == digest, "Content-Digest does not round-trip")
            }
            var fields = HTTPFields()
            fields.append(HTTPField(name: HTTPMessageSignatures.contentDigestField, value: lines[0].text))
            _ = try? HTTPMessageSignatures.ContentDigest.verify(fields, body: body)
            var own = HTTPFields()
            HTTPMessageSignatures.ContentDigest.set(&own, body: body, algorithms: [.sha256, .sha512])
            Fuzz.require(
                (try? HTTPMessageSignatures.ContentDigest.verify(own, body: body)) != nil,
                "the content's own digests do not verify"
            )
        }
    }
}
