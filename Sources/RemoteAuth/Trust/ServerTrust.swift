/// Trust policies per host: one for named hosts, a default for the others.
public struct ServerTrust: Sendable, CustomStringConvertible {
    /// The policy for every host that has no policy of its own.
    public var defaultPolicy: any TrustPolicy
    private var byHost: [String: any TrustPolicy] = [:]

    /// Trust that applies `defaultPolicy` (default: `DefaultTrustPolicy()`) to every host.
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
