import FuzzSupport
import RemoteAuth

/// `WWW-Authenticate` / `Proxy-Authenticate` field values (RFC 9110 §11.6.1): the auth-param
/// parser, and the Digest (RFC 7616 §3.3), Bearer (RFC 6750 §3) and OAuth (RFC 5849 §3.5.1)
/// readers of what it finds.
///
/// Invariants: every challenge renders (``AuthenticationChallenge/headerValue``) to a value
/// that parses back to the same challenge; a Digest challenge that reads renders to a value
/// that reads back equal; no more challenges than bytes.
@main struct Target {
    static func main() {
        Fuzz.run { input in
            let text = input.text
            guard let challenges = try? AuthenticationChallenge.parse(text) else { return }
            Fuzz.require(challenges.count <= text.utf8.count, "more challenges than bytes")
            for challenge in challenges {
                Fuzz.require(!challenge.scheme.isEmpty, "a challenge without a scheme")
                let rendered = challenge.headerValue
                let again = try? AuthenticationChallenge.parse(rendered)
                Fuzz.require(again == [challenge], "headerValue does not parse back to the challenge")
                if challenge.hasScheme("Digest"), let digest = try? DigestChallenge(challenge) {
                    let back = try? DigestChallenge(headerValue: digest.headerValue)
                    Fuzz.require(back == digest, "DigestChallenge.headerValue does not read back equal")
                }
                if challenge.hasScheme("Bearer"), let bearer = try? OAuth2.BearerChallenge(challenge) {
                    Fuzz.require(bearer.maxAge.map { $0 >= 0 } ?? true, "a negative max_age")
                    _ = bearer.description
                }
                if challenge.hasScheme("OAuth") {
                    _ = try? OAuth1.AuthorizationHeader.parse(rendered)
                }
            }
            _ = try? OAuth2.BearerChallenge.first(in: challenges)
        }
    }
}
