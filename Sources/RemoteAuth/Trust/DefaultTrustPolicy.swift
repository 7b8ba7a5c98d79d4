public import X509

/// The default: a chain to a trusted root that meets RFC 5280 (validity dates, basic
/// constraints, name constraints) for the host name or IP address
/// ([RFC 6125](https://www.rfc-editor.org/rfc/rfc6125#section-6)).
public struct DefaultTrustPolicy: TrustPolicy, Hashable {
    /// The trust anchors the chain must lead to: the system's roots or a CA bundle.
    public var roots: TrustRoots

    /// A policy that trusts chains to `roots` (default: the system's roots).
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

extension TrustPolicy where Self == DefaultTrustPolicy {
    /// ``DefaultTrustPolicy`` with the system's roots.
    public static var system: DefaultTrustPolicy { DefaultTrustPolicy() }
}
