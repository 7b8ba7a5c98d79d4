import SwiftASN1
@_spi(FixedExpiryValidationTime) import X509

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Chain validation shared by the policies: swift-certificates' `Verifier` with RFC 5280 and
/// the server-identity rules.
package enum TrustValidation {
    static func validate(
        chain: [Certificate],
        host: String,
        roots: CertificateStore,
        anchors: [Certificate],
        context: TrustContext
    ) async -> Result<[Certificate], TrustRejection> {
        guard let leaf = chain.first else {
            return .failure(TrustRejection(.noCertificate, host: host, seenPins: [], reason: "no certificate"))
        }
        let name = ServerTrust.normalized(host)
        let isIP = isIPAddress(name)
        // Hashed only for a rejection: a trusted handshake does not pay for them.
        var seenPins: [SPKIPin] { chain.map(SPKIPin.init(certificate:)) }
        // A leaf that is itself a trust anchor (a self-signed development certificate given as
        // the CA bundle, or a pinned certificate) is trusted directly, as OpenSSL and curl do:
        // RFC 5280 path validation has no path to check then (§6.1: the anchor is not part of
        // the path), so only its validity dates and the host name are.
        if anchors.contains(leaf) {
            // Validity dates: RFC5280Policy would also ask the leaf to be a CA, so they are
            // compared here, against the fixed time or the time of the check.
            let now = context.fixedValidationTime ?? Date()
            guard leaf.notValidBefore <= now, now <= leaf.notValidAfter else {
                return .failure(
                    TrustRejection(
                        .untrustedChain,
                        host: host,
                        seenPins: seenPins,
                        reason:
                            "the certificate (subject \(leaf.subject)) is valid from \(leaf.notValidBefore) to \(leaf.notValidAfter), not now"
                    )
                )
            }
            switch await matchesName(leaf, name: name, isIP: isIP) {
            case .validCertificate:
                return .success([leaf])
            case .couldNotValidate(let failures):
                return .failure(
                    TrustRejection(
                        .untrustedChain,
                        host: host,
                        seenPins: seenPins,
                        reason: "the certificate (subject \(leaf.subject)) is not valid for the name \(name)",
                        policyFailures: failures
                    )
                )
            }
        }
        let result: CertificateValidationResult
        let intermediates = CertificateStore(chain.dropFirst())
        if let fixed = context.fixedValidationTime {
            // A test's or a replay's fixed time: the only use of the SPI.
            var verifier = Verifier(rootCertificates: roots) {
                RFC5280Policy(fixedExpiryValidationTime: fixed)
                ServerIdentityPolicy(serverHostname: isIP ? nil : name, serverIP: isIP ? name : nil)
            }
            result = await verifier.validate(leaf: leaf, intermediates: intermediates)
        } else {
            var verifier = Verifier(rootCertificates: roots) {
                RFC5280Policy()
                ServerIdentityPolicy(serverHostname: isIP ? nil : name, serverIP: isIP ? name : nil)
            }
            result = await verifier.validate(leaf: leaf, intermediates: intermediates)
        }
        switch result {
        case .validCertificate(let validated):
            return .success(Array(validated))
        case .couldNotValidate(let failures):
            return .failure(
                TrustRejection(
                    .untrustedChain,
                    host: host,
                    seenPins: seenPins,
                    reason: await explain(leaf: leaf, name: name, isIP: isIP, context: context),
                    policyFailures: failures
                )
            )
        }
    }

    /// Whether `leaf`, taken as its own anchor, is valid for `name` (nothing else checked).
    private static func matchesName(_ leaf: Certificate, name: String, isIP: Bool) async -> CertificateValidationResult
    {
        var verifier = Verifier(rootCertificates: CertificateStore([leaf])) {
            TrustAnchorExtensionsPolicy()
            ServerIdentityPolicy(serverHostname: isIP ? nil : name, serverIP: isIP ? name : nil)
        }
        return await verifier.validate(leaf: leaf, intermediates: CertificateStore())
    }

    /// Plain words for a refused chain, from the leaf's own fields (never from the text of
    /// swift-certificates' reasons, which are kept as data in ``TrustRejection/policyFailures``):
    /// its dates, then its names, else the path to a root.
    private static func explain(leaf: Certificate, name: String, isIP: Bool, context: TrustContext) async -> String {
        let now = context.fixedValidationTime ?? Date()
        if now > leaf.notValidAfter {
            return "the certificate (subject \(leaf.subject)) expired on \(leaf.notValidAfter)"
        }
        if now < leaf.notValidBefore {
            return "the certificate (subject \(leaf.subject)) is not valid before \(leaf.notValidBefore)"
        }
        if case .couldNotValidate = await matchesName(leaf, name: name, isIP: isIP) {
            return "the certificate (subject \(leaf.subject)) is not valid for the name \(name)"
        }
        return
            "no chain from the leaf (subject \(leaf.subject), issuer \(leaf.issuer)) to a trusted root meets RFC 5280"
    }
}

/// For a leaf that is its own trust anchor: there is no path whose basic constraints, key
/// usages or extended key usages could be checked against an issuer, so those critical
/// extensions count as handled.
struct TrustAnchorExtensionsPolicy: VerifierPolicy {
    let verifyingCriticalExtensions: [ASN1ObjectIdentifier] = [
        .X509ExtensionID.basicConstraints, .X509ExtensionID.keyUsage, .X509ExtensionID.extendedKeyUsage,
    ]

    func chainMeetsPolicyRequirements(chain: UnverifiedCertificateChain) -> PolicyEvaluationResult {
        .meetsPolicy
    }
}

extension TrustValidation {
    /// Whether `host` is an IPv4 dotted quad or holds a `:` (IPv6), so that it is checked
    /// against the certificate's IP address names, not its DNS names (and, in a transport, sent
    /// without SNI, which carries DNS names only: RFC 6066 §3).
    package static func isIPAddress(_ host: String) -> Bool {
        if host.contains(":") { return true }
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts.allSatisfy { !$0.isEmpty && $0.count <= 3 && $0.allSatisfy(\.isASCIIDigit) }
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}
