import FuzzSupport
import HTTPTypes
import RemoteAuth

/// `Signature-Input` and `Signature` (RFC 9421 §4.1, §4.2) as a verifier reads them: the first
/// line is `Signature-Input`, the rest `Signature`. Each parsed signature's input also goes
/// through the signature base of a fixed request (§2.5) and a verifier with a fixed hmac-sha256 key
/// (§3.2), which must refuse or accept without crashing.
///
/// Invariants: no more signatures than bytes; every parsed signature serialized again (its
/// inner list and its byte sequence) parses back equal.
@main struct Target {
    nonisolated(unsafe) static var verifier: HTTPMessageSignatures.Verifier!
    nonisolated(unsafe) static var request: HTTPRequest!

    static func main() {
        Fuzz.run(setUp: {
            let key = try! HTTPMessageSignatures.VerificationKey.hmacSHA256([UInt8](repeating: 7, count: 32), keyID: "k")
            verifier = HTTPMessageSignatures.Verifier(keys: [key])
            verifier.maximumAge = nil
            request = HTTPRequest(
                method: .post,
                scheme: "https",
                authority: "example.com",
                path: "/foo?param=Value&Pet=dog",
                headerFields: [
                    .contentType: "application/json", .contentLength: "18",
                    HTTPMessageSignatures.contentDigestField: "sha-256=:X48E9qOokqqrvdts8nOJRJN3OWDUoyWxBf7kbu9DBPE=:",
                ]
            )
        }) { input in
            let lines = input.lines(2)
            var fields = HTTPFields()
            fields.append(HTTPField(name: HTTPMessageSignatures.signatureInputField, value: lines[0].text))
            fields.append(HTTPField(name: HTTPMessageSignatures.signatureField, value: lines[1].text))
            guard let signatures = try? HTTPMessageSignatures.MessageSignatures(fields) else { return }
            Fuzz.require(signatures.entries.count <= input.bytes.count, "more signatures than bytes")
            for entry in signatures.entries {
                guard let serialized = try? entry.input.serialized() else { continue }
                var again = HTTPFields()
                again.append(
                    HTTPField(name: HTTPMessageSignatures.signatureInputField, value: "\(entry.label)=\(serialized)")
                )
                let signature = Base64.encode(entry.signature)
                again.append(HTTPField(name: HTTPMessageSignatures.signatureField, value: "\(entry.label)=:\(signature):"))
                let back = try? HTTPMessageSignatures.MessageSignatures(again)
                Fuzz.require(back?.entries == [entry], "a signature does not round-trip")
                var signed = request!
                signed.headerFields.append(contentsOf: fields)
                _ = try? HTTPMessageSignatures.signatureBase(for: .request(signed), input: entry.input)
                _ = try? verifier.verify(signed, body: Array("{\"hello\": \"world\"}".utf8), label: entry.label, now: 1_618_884_473)
            }
        }
    }
}

/// Standard Base64 with padding (RFC 4648 §4), written here rather than taken from the library.
enum Base64 {
    static func encode(_ bytes: [UInt8]) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")
        var text = ""
        var index = 0
        while index < bytes.count {
            let chunk = Array(bytes[index..<min(index + 3, bytes.count)])
            let value = chunk.enumerated().reduce(0) { $0 | Int($1.element) << (16 - 8 * $1.offset) }
            for position in 0..<4 {
                text.append(position <= chunk.count ? alphabet[(value >> (18 - 6 * position)) & 63] : "=")
            }
            index += 3
        }
        return text
    }
}
