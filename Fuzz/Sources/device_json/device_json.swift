import FuzzSupport
import RemoteAuth

/// A device authorization endpoint's JSON answer (RFC 8628 §3.2), as
/// ``OAuth2/DeviceAuthorizationResponse/parse(status:body:now:)`` reads it.
///
/// Invariants: `expires_in` and `interval` are positive, `expiresAt` is `now + expires_in` (`Int64.max` past it),
/// the codes are not empty; every error is an `OAuth2.Error`.
@main struct Target {
    static func main() {
        Fuzz.run { input in
            let now: Int64 = 1_700_000_000
            do {
                let response = try OAuth2.DeviceAuthorizationResponse.parse(status: 200, body: input.bytes, now: now)
                Fuzz.require(response.expiresIn > 0 && response.interval > 0, "a non-positive expires_in or interval")
                // Saturating: an expires_in near 2^63 is the far future, not an overflow.
                let expected = response.expiresIn > Int64.max - now ? Int64.max : now + response.expiresIn
                Fuzz.require(response.expiresAt == expected, "expiresAt is not now + expires_in")
                Fuzz.require(!response.deviceCode.isEmpty && !response.userCode.isEmpty, "an empty code accepted")
                _ = response.description
            } catch is OAuth2.Error {
            } catch {
                Fuzz.require(false, "an error that is not an OAuth2.Error: \(type(of: error))")
            }
        }
    }
}
