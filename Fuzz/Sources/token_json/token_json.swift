import FuzzSupport
import RemoteAuth

/// A token endpoint's JSON answer (RFC 6749 §5.1, §5.2; RFC 8693 §2.2.1), as
/// ``OAuth2/TokenResponse/parse(status:body:now:previous:redacting:)`` reads it.
///
/// Invariants: the access token is not empty; `expires_in` is not negative and `expiresAt` is
/// `now + expires_in` (`Int64.max` past it); a refresh token missing from the answer is kept from the previous
/// tokens; a malformed answer's error never holds the request's secret, even when the server
/// echoes it.
@main struct Target {
    static let secret = "s3cr3t-refresh-t0ken"
    static let previous = OAuth2.Tokens(
        accessToken: Secret("old-access"),
        tokenType: "Bearer",
        refreshToken: Secret(secret),
        scope: ["read"]
    )

    static func main() {
        Fuzz.run { input in
            let now: Int64 = 1_700_000_000
            do {
                let response = try OAuth2.TokenResponse.parse(
                    status: 200,
                    body: input.bytes,
                    now: now,
                    previous: previous,
                    redacting: [Secret(secret)]
                )
                Fuzz.require(!response.tokens.accessToken.isEmpty, "an empty access_token accepted")
                if let expiresIn = response.expiresIn {
                    Fuzz.require(expiresIn >= 0, "a negative expires_in accepted")
                    // Saturating: an expires_in near 2^63 is the far future, not an overflow.
                    let expected = expiresIn > Int64.max - now ? Int64.max : now + expiresIn
                    Fuzz.require(response.tokens.expiresAt == expected, "expiresAt is not now + expires_in")
                } else {
                    Fuzz.require(response.tokens.expiresAt == nil, "an expiry without expires_in")
                }
                Fuzz.require(response.tokens.refreshToken != nil, "the previous refresh token is lost")
                Fuzz.require(!response.description.contains(secret), "the description holds a secret")
            } catch let error as OAuth2.Error {
                if error.code == .malformedResponse {
                    Fuzz.require(
                        !String(describing: error).contains(secret),
                        "a malformed answer's error holds the secret"
                    )
                }
            } catch {
                Fuzz.require(false, "an error that is not an OAuth2.Error: \(type(of: error))")
            }
        }
    }
}
