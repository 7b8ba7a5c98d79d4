import FuzzSupport
import HTTPTypes
import RemoteAuth

/// `Accept-Signature` (RFC 9421 §5.1), as a server reads it before signing its response; the
/// first signature asked for is also signed over a fixed response (as the sandbox does), which
/// may refuse but must not crash.
///
/// Invariants: no more requests than bytes; what parses serializes to a value that parses back
/// to the same labels and inputs.
@main struct Target {
    nonisolated(unsafe) static var signer: HTTPMessageSignatures.Signer!

    static func main() {
        Fuzz.run(setUp: {
            let key = try! HTTPMessageSignatures.SigningKey.hmacSHA256([UInt8](repeating: 1, count: 32), keyID: "k")
            signer = HTTPMessageSignatures.Signer(key: key, components: [], now: { 1_618_884_473 })
        }) { input in
            var fields = HTTPFields()
            fields.append(HTTPField(name: HTTPMessageSignatures.acceptSignatureField, value: input.text))
            guard let accepted = try? HTTPMessageSignatures.AcceptSignature(fields) else { return }
            Fuzz.require(accepted.requests.count <= input.bytes.count, "more signatures asked for than bytes")
            if let value = try? accepted.fieldValue() {
                var again = HTTPFields()
                again.append(HTTPField(name: HTTPMessageSignatures.acceptSignatureField, value: value))
                let back = try? HTTPMessageSignatures.AcceptSignature(again)
                Fuzz.require(back == accepted, "Accept-Signature does not round-trip")
            }
            guard let first = accepted.requests.first else { return }
            var signer = signer!
            signer.label = first.label
            signer.components = first.input.components
            let request = HTTPRequest(
                method: .get,
                scheme: "https",
                authority: "example.com",
                path: "/a?b=c",
                headerFields: [HTTPMessageSignatures.signatureField: "sig1=:AAAA:"]
            )
            var response = HTTPResponse(status: .ok, headerFields: [.contentType: "application/json"])
            _ = try? signer.sign(&response, for: request)
        }
    }
}
