public import X509

/// Trusts any certificate, for any host, expired or not.
///
/// - Warning: For local development only: anyone on the path can read and change the
///   traffic, credentials included. The tool's `--insecure` prints a warning when it uses it.
public struct InsecureAcceptAnythingPolicy: TrustPolicy, Hashable {
    /// A policy that trusts every certificate; for local development only.
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
