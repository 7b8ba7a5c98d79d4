import FuzzSupport
import HTTPTypes
import RemoteAuth

/// A request signed with OAuth 1.0a, as the sandbox reads it before every protected route
/// (``OAuth1/ReceivedRequest``, RFC 5849 §3.2): the `Authorization: OAuth` header, the query
/// and the form body, the signature base string (§3.4.1), then verification (§3.4.2–§3.4.4).
///
/// Input: line 1 is the request target (`/path?query`), line 2 the `Authorization` value
/// (empty: none), the rest the form body.
///
/// Invariants: the base string starts with the method and `&` (§3.4.1.1) and has exactly two
/// `&` separators (each part is percent-encoded); verification with the sandbox's secrets
/// either passes or throws an `OAuth1Error`.
@main struct Target {
    static func main() {
        Fuzz.run { input in
            let lines = input.lines(3)
            var fields = HTTPFields()
            fields[.contentType] = FormURLEncoding.mediaType
            if !lines[1].isEmpty {
                fields.append(HTTPField(name: .authorization, value: lines[1].text))
            }
            let path = lines[0].isEmpty ? "/" : lines[0].text
            let request = HTTPRequest(
                method: .post,
                scheme: "http",
                authority: "127.0.0.1:8080",
                path: path,
                headerFields: fields
            )
            guard let received = try? OAuth1.ReceivedRequest(request, body: lines[2]) else { return }
            let base = received.signatureBaseString
            Fuzz.require(base.hasPrefix("POST&"), "the base string does not start with the method")
            Fuzz.require(base.utf8.count { $0 == UInt8(ascii: "&") } == 2, "the base string has other than two '&'")
            do {
                try received.verify(clientSecret: Secret("kd94hf93k423kf44"), tokenSecret: Secret("pfkkdhi9sl3r4s00"))
            } catch is OAuth1Error {
            } catch {
                Fuzz.require(false, "verify threw something other than an OAuth1Error: \(type(of: error))")
            }
            _ = try? received.checkTimestamp(now: 1_191_242_096)
        }
    }
}
