
/// A change a ``TokenStore`` made: a session saved (a sign-in, a refresh that rotated the
/// tokens) or removed (a sign-out, a revocation). `description` shows the key and what
/// happened, never a secret.
public enum TokenStoreChange: Sendable, Hashable, CustomStringConvertible {
    /// `session` was saved under `key`.
    case saved(TokenStoreKey, StoredSession)
    /// The session under `key` was removed (or there was none).
    case removed(TokenStoreKey)

    /// The key that changed.
    public var key: TokenStoreKey {
        switch self {
        case .saved(let key, _), .removed(let key): return key
        }
    }

    /// The session saved, or `nil` for a removal.
    public var session: StoredSession? {
        guard case .saved(_, let session) = self else { return nil }
        return session
    }

    public var description: String {
        switch self {
        case .saved(let key, let session): return "saved \(key): \(session)"
        case .removed(let key): return "removed \(key)"
        }
    }
}

/// The listeners of one store: each ``stream()`` gets every change yielded after it was made,
/// until its iterator is dropped: the bookkeeping of ``TokenStore/changes()`` for a store
/// implementation (an actor calls ``yield(_:)`` after each save or removal).
public final class TokenStoreListeners: Sendable {
    /// Guards the open continuations, by the id given at registration.
    private let state = Locked((next: 0, continuations: [Int: AsyncStream<TokenStoreChange>.Continuation]()))

    /// Listeners with no stream yet.
    public init() {}

    /// A new stream of every change yielded from now on, until its iterator is dropped.
    public func stream() -> AsyncStream<TokenStoreChange> {
        let (stream, continuation) = AsyncStream<TokenStoreChange>.makeStream(bufferingPolicy: .unbounded)
        let id = state.withLock { state in
            state.next += 1
            state.continuations[state.next] = continuation
            return state.next
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.continuations.removeValue(forKey: id) }
        }
        return stream
    }

    /// Delivers `change` to every open stream.
    public func yield(_ change: TokenStoreChange) {
        for continuation in state.withLock({ Array($0.continuations.values) }) { continuation.yield(change) }
    }

    deinit {
        for continuation in state.withLock({ Array($0.continuations.values) }) { continuation.finish() }
    }
}
