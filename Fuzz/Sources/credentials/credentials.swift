import FuzzSupport
import RemoteAuth

/// `Authorization` field values, as a server (the sandbox) reads them: Basic (RFC 7617 §2, in
/// UTF-8 and ISO-8859-1), Digest (RFC 7616 §3.4), OAuth 1.0a (RFC 5849 §3.5.1), and Digest's
/// `Authentication-Info` (RFC 7616 §3.5), which a client reads.
///
/// Invariants: Basic credentials that read render (``BasicCredentials/authorization``) to a
/// value that reads back to the same user and password; `Authentication-Info` renders and
/// reads back equal; no more OAuth parameters than bytes.
@main struct Target {
    static func main() {
        Fuzz.run { input in
            let text = input.text
            for encoding in [BasicCredentials.Encoding.utf8, .isoLatin1] {
                if let basic = try? BasicCredentials(authorization: text, encoding: encoding) {
                    let back = try? BasicCredentials(authorization: basic.authorization, encoding: encoding)
                    Fuzz.require(back?.user == basic.user, "Basic user does not round-trip")
                    Fuzz.require(back?.password == basic.password, "Basic password does not round-trip")
                    Fuzz.require(basic.hasPassword(basic.password), "hasPassword refuses the password")
                }
            }
            if let digest = try? DigestAuthorization(headerValue: text) {
                Fuzz.require(digest.parameters.count <= text.utf8.count, "more Digest parameters than bytes")
                _ = digest.matchesUserhash(of: "Mufasa")
            }
            if let info = try? DigestAuthenticationInfo(headerValue: text) {
                let back = try? DigestAuthenticationInfo(headerValue: info.headerValue)
                Fuzz.require(back == info, "Authentication-Info does not round-trip")
            }
            if let oauth = try? OAuth1.AuthorizationHeader.parse(text) {
                Fuzz.require(oauth.parameters.count <= text.utf8.count, "more OAuth parameters than bytes")
            }
        }
    }
}
