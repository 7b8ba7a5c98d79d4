import FuzzSupport
import RemoteAuth

/// An introspection endpoint's JSON answer (RFC 7662 §2.2), as
/// ``OAuth2/IntrospectionResponse/parse(status:body:redacting:)`` reads it.
///
/// Invariants: the typed members are not also left in `additionalParameters`; every error is
/// an `OAuth2.Error`.
@main struct Target {
    static let typed = [
        "active", "scope", "client_id", "username", "token_type", "exp", "iat", "nbf", "sub", "aud", "iss", "jti",
    ]

    static func main() {
        Fuzz.run { input in
            do {
                let response = try OAuth2.IntrospectionResponse.parse(status: 200, body: input.bytes)
                Fuzz.require(
                    typed.allSatisfy { response.additionalParameters[$0] == nil },
                    "a typed member is left among the additional parameters"
                )
                _ = response.description
            } catch is OAuth2.Error {
            } catch {
                Fuzz.require(false, "an error that is not an OAuth2.Error: \(type(of: error))")
            }
        }
    }
}
