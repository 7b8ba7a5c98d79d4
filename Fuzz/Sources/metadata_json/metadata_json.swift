import FuzzSupport
import RemoteAuth

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Authorization server metadata (RFC 8414 §3.2; OpenID Connect Discovery 1.0 §4.2), as
/// ``OAuth2/ServerMetadata/parse(status:body:expectedIssuer:)`` reads it.
///
/// Invariants: what parses has the expected issuer; metadata that decodes encodes and decodes
/// back equal (typed members and additional ones).
@main struct Target {
    static let issuer = "https://server.example.com"

    static func main() {
        Fuzz.run { input in
            do {
                let metadata = try OAuth2.ServerMetadata.parse(status: 200, body: input.bytes, expectedIssuer: issuer)
                Fuzz.require(metadata.issuer == issuer, "metadata for another issuer accepted")
            } catch is OAuth2.Error {
            } catch {
                Fuzz.require(false, "an error that is not an OAuth2.Error: \(type(of: error))")
            }
            if let metadata = try? JSONDecoder().decode(OAuth2.ServerMetadata.self, from: Data(input.bytes)) {
                let encoded = try? JSONEncoder().encode(metadata)
                Fuzz.require(encoded != nil, "decoded metadata does not encode")
                let back = encoded.flatMap { try? JSONDecoder().decode(OAuth2.ServerMetadata.self, from: $0) }
                Fuzz.require(back == metadata, "ServerMetadata does not round-trip through JSON")
            }
        }
    }
}
