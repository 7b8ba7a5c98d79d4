public import X509

/// Public-key pinning: the chain must be valid as for ``DefaultTrustPolicy``, and one of its
/// certificates (leaf, intermediate or root) must carry a pinned key
/// ([RFC 7469 §2.6](https://www.rfc-editor.org/rfc/rfc7469#section-2.6)). At least two distinct
/// pins are required, one of them a backup key kept offline, so that a key rotation does not
/// lock the clients out ([RFC 7469 §4.3](https://www.rfc-editor.org/rfc/rfc7469#section-4.3)).
public struct PublicKeyPinningPolicy: TrustPolicy, Hashable {
    /// The SPKI pins, at least two, one of which a certificate of the validated chain must carry.
    public let pins: Set<SPKIPin>
    /// The trust anchors the chain is validated against before the pins are checked.
    public let roots: TrustRoots

    /// A policy that validates the chain against `roots` and then requires one of `pins`.
    /// - Throws: `TrustError` `.tooFewPins` for fewer than two distinct pins.
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
