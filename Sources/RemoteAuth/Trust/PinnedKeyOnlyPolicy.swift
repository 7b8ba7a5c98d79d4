public import X509

/// Trust by pin alone, as curl's `--insecure --pinnedpubkey`: the server's leaf certificate must
/// carry one of the pinned keys, and nothing else is checked (no issuer, no host name, no dates).
/// The usual way to pin a self-signed server.
///
/// Only the leaf counts: it is the certificate whose key signs the handshake, so only its key
/// proves who answered. A pinned key further up a chain that was not validated proves nothing
/// (anyone can send a CA's certificate after their own). One pin is enough here, since there is
/// no chain to rotate through; give two during a key rotation
/// ([RFC 7469 §4.3](https://www.rfc-editor.org/rfc/rfc7469#section-4.3)).
public struct PinnedKeyOnlyPolicy: TrustPolicy, Hashable {
    /// The SPKI pins, one of which the leaf certificate's key must match.
    public let pins: Set<SPKIPin>

    /// - Throws: ``TrustError`` `.tooFewPins` for an empty set.
    public init(pins: some Sequence<SPKIPin>) throws {
        let pins = Set(pins)
        guard !pins.isEmpty else {
            throw TrustError(.tooFewPins, "trusting by pin alone needs at least one pin")
        }
        self.pins = pins
    }

    public func evaluate(chain: [Certificate], host: String, context: TrustContext) async -> TrustEvaluation {
        guard let leaf = chain.first else {
            return .rejected(TrustRejection(.noCertificate, host: host, seenPins: [], reason: "no certificate"))
        }
        guard pins.contains(SPKIPin(certificate: leaf)) else {
            return .rejected(
                TrustRejection(
                    .pinMismatch,
                    host: host,
                    seenPins: [SPKIPin(certificate: leaf)],
                    reason: "the server's certificate does not carry a pinned key (pinned: "
                        + pins.sorted().map(\.description).joined(separator: ", ") + ")"
                )
            )
        }
        return .trusted(validatedChain: [leaf])
    }

    public var description: String {
        "PinnedKeyOnlyPolicy(\(pins.sorted().map(\.description).joined(separator: ", ")))"
    }
}
