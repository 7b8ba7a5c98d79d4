#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension JOSE {
    /// A JWK Set: [RFC 7517 §5](https://www.rfc-editor.org/rfc/rfc7517#section-5), read with
    /// bounds, since it comes from a server (an issuer's `jwks_uri`).
    public struct KeySet: Sendable, Hashable {
        /// The keys this library can verify with.
        public let keys: [VerificationKey]
        /// How many members of `keys` were ignored: a `kty` or curve this library does not
        /// implement, or members that make no key. [RFC 7517 §5](https://www.rfc-editor.org/rfc/rfc7517#section-5):
        /// "Implementations SHOULD ignore JWKs within a JWK Set that use "kty" (key type) values
        /// that are not understood by them, that are missing required members, or for which
        /// values are out of the supported ranges."
        public let ignored: Int

        /// At most 100 keys: an issuer publishes a handful; 10,000 is an attack.
        public static let defaultMaximumKeys = 100
        /// At most 256 KiB of JSON.
        public static let defaultMaximumBytes = 256 * 1024

        /// A set of `keys`, none ignored.
        public init(keys: [VerificationKey]) {
            self.keys = keys
            self.ignored = 0
        }

        /// Reads a JWK Set: a JSON object whose `keys` member is an array of JWKs.
        ///
        /// - Throws: ``JOSE/Error/Code/tooLarge`` past `maximumBytes` or `maximumKeys`,
        ///   ``JOSE/Error/Code/malformed`` when it is not a JSON object with a `keys` array.
        public init(
            json: some Collection<UInt8>, maximumKeys: Int = KeySet.defaultMaximumKeys,
            maximumBytes: Int = KeySet.defaultMaximumBytes
        ) throws {
            guard json.count <= maximumBytes else {
                throw JOSE.Error(.tooLarge, "a JWK Set of \(json.count) bytes (the limit is \(maximumBytes))")
            }
            // Strict JSON (RFC 8259, duplicate member names refused as RFC 7517 §4 allows): a
            // document that is not is refused whole, not read key by key.
            let object: [String: JSONValue]
            do {
                object = try JSONValue.parseObject(json)
            } catch {
                throw JOSE.Error(.malformed, "the JWK Set is not a JSON object: \(error)")
            }
            guard case .array(let members)? = object["keys"] else {
                throw JOSE.Error(.malformed, "a JWK Set is a JSON object with a 'keys' array")
            }
            guard members.count <= maximumKeys else {
                throw JOSE.Error(.tooLarge, "a JWK Set of \(members.count) keys (the limit is \(maximumKeys))")
            }
            // Each key is read from the parsed members: the document is parsed once.
            var keys: [VerificationKey] = []
            var ignored = 0
            for member in members {
                guard case .object(let object) = member,
                    let jwk = try? JWK(members: object),
                    let key = try? VerificationKey(jwk: jwk)
                else {
                    ignored += 1
                    continue
                }
                keys.append(key)
            }
            self.keys = keys
            self.ignored = ignored
        }

        /// The keys with this `kid`.
        public func keys(withID keyID: String) -> [VerificationKey] { keys.filter { $0.keyID == keyID } }
    }
}
