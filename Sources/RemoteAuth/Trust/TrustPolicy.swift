import SwiftASN1
@_spi(FixedExpiryValidationTime) public import X509

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// Decides whether a server's certificate chain may be trusted for a host name, before any
/// request byte is sent to it. Transports that own their TLS handshake call it from inside the
/// handshake (the NIO transport does, from NIOSSL's verification callback).
///
/// The conformers: ``DefaultTrustPolicy`` (the system's roots or a CA bundle),
/// ``PublicKeyPinningPolicy`` (SPKI pins on any certificate of the validated chain),
/// ``CertificatePinningPolicy`` (exactly these leaf certificates) and
/// ``InsecureAcceptAnythingPolicy`` (local development only).
public protocol TrustPolicy: Sendable, CustomStringConvertible {
    /// Evaluates `chain` (the certificates as the server presented them, leaf first) for `host`.
    /// Expected negatives are returned, not thrown.
    func evaluate(chain: [Certificate], host: String, context: TrustContext) async -> TrustEvaluation
}

/// What a ``TrustPolicy`` needs from outside the core, which has no clock and reads no files.
public struct TrustContext: Sendable {
    /// The time certificates' validity is checked against.
    public var validationTime: Date
    /// The roots ``TrustRoots/system`` stands for; on Linux the adapter passes swift-certificates'
    /// `CertificateStore.systemTrustRoots` (`/etc/ssl/certs/ca-certificates.crt`).
    public var systemRoots: CertificateStore

    public init(validationTime: Date, systemRoots: CertificateStore) {
        self.validationTime = validationTime
        self.systemRoots = systemRoots
    }
}

/// The outcome of ``TrustPolicy/evaluate(chain:host:context:)``.
public enum TrustEvaluation: Sendable, Hashable {
    /// Trusted; the validated chain, leaf first (just the leaf for ``InsecureAcceptAnythingPolicy``).
    case trusted(validatedChain: [Certificate])
    case rejected(TrustRejection)
}

/// Why a server was not trusted: the host, the pins of the certificates it presented (leaf
/// first), and a reason. It names no secret: pins and certificates are public.
public struct TrustRejection: Error, Sendable, Hashable, CustomStringConvertible {
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, Sendable {
            case noCertificate, untrustedChain, pinMismatch, certificateMismatch
        }
        private let base: Base
        /// The server presented no certificate.
        public static let noCertificate = Code(base: .noCertificate)
        /// No chain from the leaf to a trusted root meets RFC 5280 and the host name
        /// (expired, another host's certificate, an unknown issuer…).
        public static let untrustedChain = Code(base: .untrustedChain)
        /// The chain is valid, but no certificate in it carries one of the pinned keys.
        public static let pinMismatch = Code(base: .pinMismatch)
        /// The leaf is not one of the pinned certificates.
        public static let certificateMismatch = Code(base: .certificateMismatch)
        public var description: String { base.rawValue }
    }

    public let code: Code
    public let host: String
    /// The pins of the certificates the server presented, leaf first.
    public let seenPins: [SPKIPin]
    public let reason: String

    public init(_ code: Code, host: String, seenPins: [SPKIPin], reason: String) {
        self.code = code
        self.host = host
        self.seenPins = seenPins
        self.reason = reason
    }

    public var description: String {
        var text = "the server \(host) is not trusted (\(code)): \(reason)"
        if !seenPins.isEmpty {
            text += "; it presented the keys " + seenPins.map(\.description).joined(separator: ", ")
        }
        return text
    }
}

/// The roots a chain must lead to.
public enum TrustRoots: Sendable, Hashable {
    /// The system's trust store (see ``TrustContext/systemRoots``).
    case system
    /// Only these certificates (a private CA bundle), not the system's.
    case certificates([Certificate])

    /// The certificates of a PEM bundle (`-----BEGIN CERTIFICATE-----` blocks), as curl's `--cacert` reads it.
    public static func pemBundle(_ pem: String) throws -> TrustRoots {
        .certificates(try Certificate.pemBundle(pem))
    }

    /// The chain validated to these roots (a leaf among them is its own anchor).
    func validate(
        chain: [Certificate],
        host: String,
        context: TrustContext
    ) async -> Result<
        [Certificate], TrustRejection
    > {
        switch self {
        case .system:
            await TrustValidation.validate(
                chain: chain,
                host: host,
                roots: context.systemRoots,
                anchors: [],
                context: context
            )
        case .certificates(let certificates):
            await TrustValidation.validate(
                chain: chain,
                host: host,
                roots: CertificateStore(certificates),
                anchors: certificates,
                context: context
            )
        }
    }
}

/// The default: a chain to a trusted root that meets RFC 5280 (validity dates, basic
/// constraints, name constraints) for the host name or IP address
/// ([RFC 6125](https://www.rfc-editor.org/rfc/rfc6125#section-6)).
public struct DefaultTrustPolicy: TrustPolicy, Hashable {
    public var roots: TrustRoots

    public init(roots: TrustRoots = .system) {
        self.roots = roots
    }

    public func evaluate(chain: [Certificate], host: String, context: TrustContext) async -> TrustEvaluation {
        switch await roots.validate(chain: chain, host: host, context: context) {
        case .success(let validated): .trusted(validatedChain: validated)
        case .failure(let rejection): .rejected(rejection)
        }
    }

    public var description: String {
        switch roots {
        case .system: "DefaultTrustPolicy(system roots)"
        case .certificates(let roots): "DefaultTrustPolicy(\(roots.count) custom roots)"
        }
    }
}

/// Public-key pinning: the chain must be valid as for ``DefaultTrustPolicy``, and one of its
/// certificates (leaf, intermediate or root) must carry a pinned key
/// ([RFC 7469 §2.6](https://www.rfc-editor.org/rfc/rfc7469#section-2.6)). At least two distinct
/// pins are required, one of them a backup key kept offline, so that a key rotation does not
/// lock the clients out ([RFC 7469 §4.3](https://www.rfc-editor.org/rfc/rfc7469#section-4.3)).
public struct PublicKeyPinningPolicy: TrustPolicy, Hashable {
    public let pins: Set<SPKIPin>
    public let roots: TrustRoots

    public init(pins: some Sequence<SPKIPin>, roots: TrustRoots = .system) throws {
        let pins = Set(pins)
        guard pins.count >= 2 else {
            throw TrustError(
                .tooFewPins,
                "public-key pinning needs at least two distinct pins, the second a backup key for the next rotation (RFC 7469 §4.3); \(pins.count) given"
            )
        }
        self.pins = pins
        self.roots = roots
    }

    public func evaluate(chain: [Certificate], host: String, context: TrustContext) async -> TrustEvaluation {
        switch await roots.validate(chain: chain, host: host, context: context) {
        case .failure(let rejection):
            return .rejected(rejection)
        case .success(let validated):
            if validated.contains(where: { pins.contains(SPKIPin(certificate: $0)) }) {
                return .trusted(validatedChain: validated)
            }
            return .rejected(
                TrustRejection(
                    .pinMismatch,
                    host: host,
                    seenPins: chain.map(SPKIPin.init(certificate:)),
                    reason: "no certificate in the chain carries a pinned key (pinned: "
                        + pins.sorted().map(\.description).joined(separator: ", ") + ")"
                )
            )
        }
    }

    public var description: String {
        "PublicKeyPinningPolicy(\(pins.sorted().map(\.description).joined(separator: ", ")))"
    }
}

/// Certificate pinning: the server's leaf must be exactly one of these certificates (byte for
/// byte), valid now and for the host name. The certificates are the only trust anchors, so a
/// self-signed certificate can be pinned; give two during a rotation.
public struct CertificatePinningPolicy: TrustPolicy, Hashable {
    public let certificates: [Certificate]

    public init(certificates: [Certificate]) throws {
        guard !certificates.isEmpty else {
            throw TrustError(.invalidCertificate, "certificate pinning needs at least one certificate")
        }
        self.certificates = certificates
    }

    public func evaluate(chain: [Certificate], host: String, context: TrustContext) async -> TrustEvaluation {
        guard let leaf = chain.first else {
            return .rejected(TrustRejection(.noCertificate, host: host, seenPins: [], reason: "no certificate"))
        }
        guard certificates.contains(leaf) else {
            return .rejected(
                TrustRejection(
                    .certificateMismatch,
                    host: host,
                    seenPins: chain.map(SPKIPin.init(certificate:)),
                    reason: "the leaf certificate (subject \(leaf.subject)) is not a pinned certificate"
                )
            )
        }
        switch await TrustRoots.certificates(certificates).validate(chain: [leaf], host: host, context: context) {
        case .success(let validated): return .trusted(validatedChain: validated)
        case .failure(let rejection): return .rejected(rejection)
        }
    }

    public var description: String { "CertificatePinningPolicy(\(certificates.count) certificates)" }
}

/// Trusts any certificate, for any host, expired or not.
///
/// - Warning: For local development only: anyone on the path can read and change the
///   traffic, credentials included. The tool's `--insecure` prints a warning when it uses it.
public struct InsecureAcceptAnythingPolicy: TrustPolicy, Hashable {
    public init() {}

    public func evaluate(chain: [Certificate], host: String, context: TrustContext) async -> TrustEvaluation {
        .trusted(validatedChain: Array(chain.prefix(1)))
    }

    public var description: String { "InsecureAcceptAnythingPolicy" }
}

extension TrustPolicy where Self == InsecureAcceptAnythingPolicy {
    /// ``InsecureAcceptAnythingPolicy``.
    /// - Warning: For local development only; see ``InsecureAcceptAnythingPolicy``.
    public static var insecureAcceptAnything: InsecureAcceptAnythingPolicy { InsecureAcceptAnythingPolicy() }
}

extension TrustPolicy where Self == DefaultTrustPolicy {
    /// ``DefaultTrustPolicy`` with the system's roots.
    public static var system: DefaultTrustPolicy { DefaultTrustPolicy() }
}

/// Trust policies per host: one for named hosts, a default for the others.
public struct ServerTrust: Sendable, CustomStringConvertible {
    public var defaultPolicy: any TrustPolicy
    private var byHost: [String: any TrustPolicy] = [:]

    public init(default defaultPolicy: any TrustPolicy = DefaultTrustPolicy()) {
        self.defaultPolicy = defaultPolicy
    }

    /// Uses `policy` for `host` (a DNS name, compared without case, or an IP address).
    public mutating func setPolicy(_ policy: any TrustPolicy, for host: String) {
        byHost[Self.normalized(host)] = policy
    }

    /// The policy for `host`: its own, else the default.
    public func policy(for host: String) -> any TrustPolicy {
        byHost[Self.normalized(host)] ?? defaultPolicy
    }

    /// Whether no host has a policy of its own: the default applies everywhere.
    public var hasOnePolicy: Bool { byHost.isEmpty }

    /// Whether every policy is a ``DefaultTrustPolicy`` with the system's roots: what any
    /// transport enforces without help.
    public var isSystemDefault: Bool {
        ([defaultPolicy] + Array(byHost.values)).allSatisfy { ($0 as? DefaultTrustPolicy)?.roots == .system }
    }

    public var description: String {
        var text = "ServerTrust(default: \(defaultPolicy)"
        for host in byHost.keys.sorted() { text += ", \(host): \(byHost[host]!)" }
        return text + ")"
    }

    static func normalized(_ host: String) -> String {
        var host = host.lowercased()
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        return host
    }
}

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
            guard leaf.notValidBefore <= context.validationTime, context.validationTime <= leaf.notValidAfter else {
                return .failure(
                    TrustRejection(
                        .untrustedChain,
                        host: host,
                        seenPins: seenPins,
                        reason: "the certificate is valid from \(leaf.notValidBefore) to \(leaf.notValidAfter), not now"
                    )
                )
            }
            var verifier = Verifier(rootCertificates: CertificateStore([leaf])) {
                TrustAnchorExtensionsPolicy()
                ServerIdentityPolicy(serverHostname: isIP ? nil : name, serverIP: isIP ? name : nil)
            }
            if case .validCertificate = await verifier.validate(leaf: leaf, intermediates: CertificateStore()) {
                return .success([leaf])
            }
            return .failure(
                TrustRejection(
                    .untrustedChain,
                    host: host,
                    seenPins: seenPins,
                    reason: "the certificate (subject \(leaf.subject)) is not valid for the name \(name)"
                )
            )
        }
        var verifier = Verifier(rootCertificates: roots) {
            RFC5280Policy(fixedExpiryValidationTime: context.validationTime)
            ServerIdentityPolicy(serverHostname: isIP ? nil : name, serverIP: isIP ? name : nil)
        }
        let result = await verifier.validate(leaf: leaf, intermediates: CertificateStore(chain.dropFirst()))
        switch result {
        case .validCertificate(let validated):
            return .success(Array(validated))
        case .couldNotValidate(let failures):
            let reasons = Set(failures.map { compact("\($0.policyFailureReason)") }).sorted()
            let reason =
                reasons.isEmpty
                ? "no chain from the leaf (subject \(leaf.subject), issuer \(leaf.issuer)) to a trusted root"
                : reasons.joined(separator: "; ")
            return .failure(TrustRejection(.untrustedChain, host: host, seenPins: seenPins, reason: reason))
        }
    }

    /// swift-certificates' reasons print whole certificates; keeps their subjects only.
    static func compact(_ reason: String) -> String {
        var output = ""
        var rest = Substring(reason)
        while let start = rest.firstRange(of: "Certificate(") {
            output += rest[..<start.lowerBound]
            var depth = 0
            var index = start.upperBound
            var subject = ""
            var end = rest.endIndex
            var cursor = rest.index(before: start.upperBound)
            while cursor < rest.endIndex {
                if rest[cursor] == "(" { depth += 1 }
                if rest[cursor] == ")" {
                    depth -= 1
                    if depth == 0 {
                        end = rest.index(after: cursor)
                        break
                    }
                }
                cursor = rest.index(after: cursor)
            }
            let inner = rest[index..<(end == rest.endIndex ? end : rest.index(before: end))]
            if let field = inner.firstRange(of: "subject: \"") {
                index = field.upperBound
                if let close = inner[index...].firstIndex(of: "\"") { subject = String(inner[index..<close]) }
            }
            output += subject.isEmpty ? "a certificate" : "the certificate \"\(subject)\""
            rest = rest[end...]
        }
        return output + rest
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

extension Certificate {
    /// Every `CERTIFICATE` block of a PEM text, in order.
    static func pemBundle(_ pem: String) throws -> [Certificate] {
        let documents: [PEMDocument]
        do {
            documents = try PEMDocument.parseMultiple(pemString: pem)
        } catch {
            throw TrustError(.invalidCertificate, "not a PEM certificate bundle: \(error)")
        }
        let certificates = try documents.filter { $0.discriminator == "CERTIFICATE" }.map {
            do { return try Certificate(pemDocument: $0) } catch {
                throw TrustError(.invalidCertificate, "a CERTIFICATE block does not parse: \(error)")
            }
        }
        guard !certificates.isEmpty else {
            throw TrustError(.invalidCertificate, "no -----BEGIN CERTIFICATE----- block")
        }
        return certificates
    }
}
