#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import FuzzSupport
import RemoteAuth

/// A JWK ([RFC 7517 §4](https://www.rfc-editor.org/rfc/rfc7517#section-4)) and a JWK Set
/// (§5) as an issuer's `jwks_uri` serves them: ``JOSE/JWK/init(json:)``,
/// ``JOSE/VerificationKey/init(jwk:)``, ``JOSE/KeySet/init(json:maximumKeys:maximumBytes:)``
/// and the RFC 7638 thumbprint.
///
/// Input: JSON. When it is an object with `keys` (read strictly: a document with a duplicate
/// member name is no set, and ``JOSE/KeySet`` refuses it as malformed), it is read as a set (with the default
/// bounds, and with bounds of 8 keys and 3,000 bytes that the fuzzer can reach); otherwise as
/// one JWK.
///
/// Invariants: a set holds at most its key bound, past its byte bound it is refused as
/// `tooLarge`, and every member is a key or counted as ignored; an imported key holds no
/// private member (but `k` of an HMAC key) and its thumbprint is stable: the same twice, the
/// same as the JWK's it came from, the same after its JSON is read back. A JWK reads back
/// equal from its JSON. No description shows a private member.
@main struct Target {
    static let maximumKeys = 8
    static let maximumBytes = 3000

    static func main() {
        Fuzz.run { input in
            // A set is what the library's strict reader (RFC 8259, duplicate names refused) reads
            // as an object with a `keys` array; anything else is refused whole as malformed.
            let object = try? JSONValue.parseObject(input.bytes)
            if case .array(let members)? = object?["keys"] {
                keySet(input.bytes, members: members.count)
            } else {
                jwk(input.bytes)
            }
        }
    }

    static func keySet(_ json: [UInt8], members: Int) {
        do {
            let set = try JOSE.KeySet(json: json)
            Fuzz.require(set.keys.count + set.ignored == members, "keys and ignored do not add up to the members")
            Fuzz.require(set.keys.count <= JOSE.KeySet.defaultMaximumKeys, "more keys than the bound")
            for key in set.keys { imported(key) }
        } catch let error as JOSE.Error {
            Fuzz.require(error.code == .tooLarge, "a set with a keys array refused as \(error.code)")
            Fuzz.require(members > JOSE.KeySet.defaultMaximumKeys, "a set within the bounds refused as too large")
        } catch {
            Fuzz.require(false, "KeySet threw something other than a JOSE.Error: \(type(of: error))")
        }
        do {
            let set = try JOSE.KeySet(json: json, maximumKeys: maximumKeys, maximumBytes: maximumBytes)
            Fuzz.require(json.count <= maximumBytes, "a set of \(json.count) bytes accepted")
            Fuzz.require(set.keys.count + set.ignored <= maximumKeys, "a set of more members than the bound accepted")
        } catch let error as JOSE.Error {
            Fuzz.require(error.code == .tooLarge, "a bounded set refused as \(error.code)")
            Fuzz.require(json.count > maximumBytes || members > maximumKeys, "a set within the bounds refused")
        } catch {
            Fuzz.require(false, "KeySet threw something other than a JOSE.Error: \(type(of: error))")
        }
    }

    static func jwk(_ json: [UInt8]) {
        let jwk: JOSE.JWK
        do {
            jwk = try JOSE.JWK(json: json)
        } catch is JOSE.Error {
            return
        } catch {
            Fuzz.require(false, "JWK threw something other than a JOSE.Error: \(type(of: error))")
            return
        }
        // The description does not depend on the private members' values.
        var blank = jwk
        let placeholder = Secret("x")
        for member in [\JOSE.JWK.d, \.p, \.q, \.dp, \.dq, \.qi, \.k] where blank[keyPath: member] != nil {
            blank[keyPath: member] = placeholder
        }
        Fuzz.require(jwk.description == blank.description, "the description shows a private member")
        Fuzz.require(String(reflecting: jwk) == String(reflecting: blank), "the debug description shows a private member")
        guard let encoded = try? jwk.json() else {
            Fuzz.require(false, "a JWK that does not encode")
            return
        }
        let back = try? JOSE.JWK(json: encoded)
        Fuzz.require(back == jwk, "a JWK does not read back equal from its JSON")
        let thumbprint = try? jwk.thumbprint()
        Fuzz.require((try? back?.thumbprint()) == thumbprint, "the thumbprint changed after a round trip")
        if let publicKey = jwk.publicKey {
            Fuzz.require(!publicKey.isPrivate, "the public key holds d")
            if jwk.keyType != .oct { Fuzz.require((try? publicKey.thumbprint()) == thumbprint, "the public key's thumbprint differs") }
        }
        do {
            let key = try JOSE.VerificationKey(jwk: jwk)
            Fuzz.require((try? key.jwk.thumbprint()) == thumbprint, "the imported key's thumbprint differs from its JWK's")
            imported(key)
        } catch is JOSE.Error {
        } catch {
            Fuzz.require(false, "VerificationKey threw something other than a JOSE.Error: \(type(of: error))")
        }
    }

    /// A key a set or a JWK made.
    static func imported(_ key: JOSE.VerificationKey) {
        let jwk = key.jwk
        Fuzz.require(jwk.keyType == .oct || !jwk.isPrivate, "an imported public key holds d")
        Fuzz.require([jwk.p, jwk.q, jwk.dp, jwk.dq, jwk.qi].allSatisfy { $0 == nil }, "an imported key holds private RSA members")
        guard let first = try? jwk.thumbprint() else {
            Fuzz.require(jwk.keyType == .oct, "an imported \(jwk.keyType) key has no thumbprint")
            return
        }
        Fuzz.require((try? jwk.thumbprint()) == first, "the thumbprint is not stable")
        Fuzz.require(first.utf8.count == 43, "a SHA-256 thumbprint of \(first.utf8.count) characters")
        let again = (try? jwk.json()).flatMap { try? JOSE.JWK(json: $0) }
        Fuzz.require((try? again?.thumbprint()) == first, "the thumbprint changed after the key's JSON was read back")
    }
}
