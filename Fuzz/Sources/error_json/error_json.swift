import FuzzSupport
import RemoteAuth

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// An OAuth 2 error answer (RFC 6749 §5.2), as every JSON reader of the library meets it with a
/// 400 status, and as ``OAuth2/ErrorResponse``'s `Codable` conformance reads it.
///
/// Invariants: a 400 answer is always an error, `serverRefused` (carrying the server's
/// `error`) or `malformedResponse`, whose excerpt of the body never holds the request's secret;
/// an `ErrorResponse` that decodes encodes and decodes back equal.
@main struct Target {
    static let secret = "s3cr3t-client-s3cret"

    static func main() {
        Fuzz.run { input in
            do {
                _ = try OAuth2.TokenResponse.parse(status: 400, body: input.bytes, now: 0, redacting: [Secret(secret)])
                Fuzz.require(false, "a 400 answer read as tokens")
            } catch let error as OAuth2.Error {
                if error.code == .serverRefused {
                    Fuzz.require(error.serverError != nil, "serverRefused without the server's error")
                } else {
                    Fuzz.require(error.code == .malformedResponse, "a 400 answer gave \(error.code)")
                    Fuzz.require(
                        !String(describing: error).contains(secret),
                        "a malformed answer's error holds the secret"
                    )
                }
            } catch {
                Fuzz.require(false, "an error that is not an OAuth2.Error: \(type(of: error))")
            }
            if let response = try? JSONDecoder().decode(OAuth2.ErrorResponse.self, from: Data(input.bytes)) {
                let encoded = try? JSONEncoder().encode(response)
                let back = encoded.flatMap { try? JSONDecoder().decode(OAuth2.ErrorResponse.self, from: $0) }
                Fuzz.require(back == response, "ErrorResponse does not round-trip through JSON")
            }
        }
    }
}
