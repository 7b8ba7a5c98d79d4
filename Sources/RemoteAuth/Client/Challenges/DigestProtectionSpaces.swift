/// The Digest protection spaces a client has been challenged for, so that later requests reuse
/// the server's nonce with a rising `nc` instead of waiting for a new challenge (N requests cost
/// N+1 round trips). A value: ``AuthenticatingClient`` keeps one in its actor.
/// [RFC 7616 §3.3–§3.5](https://www.rfc-editor.org/rfc/rfc7616#section-3.3)
package struct DigestProtectionSpaces: Sendable {
    /// A Digest protection space: origin and realm
    /// ([RFC 9110 §11.5](https://www.rfc-editor.org/rfc/rfc9110#section-11.5)), told apart also
    /// by algorithm and qop, which a server may vary within one realm.
    package struct Key: Hashable, Sendable {
        package let origin: AuthScope
        package let realm: String
        package let algorithm: DigestAlgorithm
        package let qop: [DigestQOP]

        package init(origin: AuthScope, challenge: DigestChallenge) {
            self.origin = origin
            self.realm = challenge.realm
            self.algorithm = challenge.effectiveAlgorithm
            self.qop = challenge.qop
        }
    }

    /// What to answer a request with before any challenge.
    package struct Use: Sendable {
        package let key: Key
        package let challenge: DigestChallenge
        package let entry: ScopedCredential
        package let nonceCount: UInt32
    }

    struct Space: Sendable {
        var challenge: DigestChallenge
        var entry: ScopedCredential
        var nonceCount: UInt32
        /// Path prefixes the space covers: its `domain` URIs' paths and the directories of
        /// the requests that were challenged.
        var prefixes: [String]
        var lastUse: Int
    }

    private var spaces: [Key: Space] = [:]
    private var uses = 0

    package init() {}

    package var isEmpty: Bool { spaces.isEmpty }

    /// The space to answer a request for `path` at `origin` without waiting for a challenge,
    /// with its next nonce count: the one covering the longest prefix of the path; else, for a
    /// space without `domain` (the whole origin,
    /// [RFC 7616 §3.3](https://www.rfc-editor.org/rfc/rfc7616#section-3.3)), the one used last.
    package mutating func nextUse(origin: AuthScope, path: String) -> Use? {
        var best: (key: Key, length: Int, lastUse: Int)?
        for (key, space) in spaces where key.origin == origin {
            let length =
                space.prefixes.filter { path.hasPrefix($0) }.map(\.count).max()
                ?? (space.challenge.domain.isEmpty ? 0 : -1)
            guard length >= 0 else { continue }
            if let current = best, (current.length, current.lastUse) >= (length, space.lastUse) { continue }
            best = (key, length, space.lastUse)
        }
        guard let key = best?.key, var space = spaces[key], space.nonceCount < UInt32.max else { return nil }
        uses += 1
        space.nonceCount += 1
        space.lastUse = uses
        spaces[key] = space
        return Use(key: key, challenge: space.challenge, entry: space.entry, nonceCount: space.nonceCount)
    }

    /// Records a fresh challenge (or a `stale=true` renewal) for its space, answered for a
    /// request to `path`; returns the nonce count to use: 1.
    package mutating func start(_ key: Key, challenge: DigestChallenge, entry: ScopedCredential, path: String) -> UInt32
    {
        var prefixes = spaces[key]?.prefixes ?? []
        for uri in challenge.domain {
            let domainPath = Self.path(of: uri)
            if !prefixes.contains(domainPath) { prefixes.append(domainPath) }
        }
        let pathOnly = RequestTarget(path).path
        let directory = pathOnly.lastIndex(of: "/").map { String(pathOnly[...$0]) } ?? "/"
        if !prefixes.contains(directory) { prefixes.append(directory) }
        uses += 1
        spaces[key] = Space(challenge: challenge, entry: entry, nonceCount: 1, prefixes: prefixes, lastUse: uses)
        return 1
    }

    /// `nextnonce`: the next request uses it, counting from 1.
    /// [RFC 7616 §3.5](https://www.rfc-editor.org/rfc/rfc7616#section-3.5)
    package mutating func renew(_ key: Key, nextnonce: String) {
        guard var space = spaces[key] else { return }
        space.challenge.nonce = nextnonce
        space.nonceCount = 0
        spaces[key] = space
    }

    /// Forgets a space whose answer was refused or whose server proof failed.
    package mutating func remove(_ key: Key) { spaces[key] = nil }

    /// The path of a `domain` URI, which may be absolute or an absolute path.
    static func path(of uri: String) -> String {
        let reference = URIReference(parsing: uri)
        guard reference.scheme != nil, reference.authority != nil else { return uri }
        // RFC 3986 §6.2.3: an empty path of an absolute URI is "/"; spaces are path prefixes.
        return reference.path.isEmpty ? "/" : reference.path
    }
}
