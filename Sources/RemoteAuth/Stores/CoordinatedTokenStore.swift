/// A ``TokenStore`` that lets one party at a time read, change and write back the session under
/// one key, across every process (or machine) that shares the store: the seam an
/// ``OAuth2/TokenSession`` refreshes through, so that two processes whose access token expired
/// at the same moment spend the rotating refresh token once
/// ([RFC 9700 §4.14.2](https://www.rfc-editor.org/rfc/rfc9700#section-4.14.2): a rotated refresh
/// token presented again revokes the whole grant). The second one finds the tokens the first
/// saved and uses them.
///
/// ``InMemoryTokenStore`` coordinates the tasks of one process; `FileTokenStore`
/// (RemoteAuthFileStore) the processes of one machine, with an advisory lock on a file beside the
/// store; `PostgresTokenStore` (RemoteAuthPostgres) the instances of a backend, with a row lock.
public protocol CoordinatedTokenStore: TokenStore {
    /// Runs `body` with the session under `service` and `account` (`nil` when there is none)
    /// while no other caller of this method, in this process or another one sharing the store,
    /// runs it for the same key; then saves what `body` left in `session` when it changed it
    /// (removes the session when it set it to `nil`), before anyone else gets the key.
    ///
    /// `body` must not write through this store itself (``TokenStore/save(_:service:account:)``
    /// may wait for the access `body` holds): it changes `session` instead.
    ///
    /// - Returns: what `body` returned.
    /// - Throws: the store's error when the access cannot be had in time or the change cannot
    ///   be saved; `body`'s error, as is, with nothing saved.
    func withExclusiveAccess<Result: Sendable>(
        service: String,
        account: String,
        _ body: @Sendable (_ session: inout StoredSession?) async throws -> Result
    ) async throws -> Result
}

/// Turns the keys of ``InMemoryTokenStore`` over to one task at a time, in the order they asked:
/// the bookkeeping of its ``CoordinatedTokenStore/withExclusiveAccess(service:account:_:)``. A
/// value the actor owns, so its mutations are serialized by the actor. Waiting is not cancellable
/// and has no deadline: the holder is a task of the same process.
struct KeyedExclusion: Sendable {
    /// Keys held now, each with the tasks waiting for it, first come first served.
    private var waiting: [TokenStoreKey: [CheckedContinuation<Void, Never>]] = [:]

    init() {}

    /// Returns at once when `key` is free; else a continuation to wait on.
    mutating func tryAcquire(_ key: TokenStoreKey) -> Bool {
        guard waiting[key] == nil else { return false }
        waiting[key] = []
        return true
    }

    /// Queues `continuation` for `key`, resumed by the ``release(_:)`` that hands it the key.
    mutating func enqueue(_ continuation: CheckedContinuation<Void, Never>, for key: TokenStoreKey) {
        waiting[key, default: []].append(continuation)
    }

    /// Hands `key` to the next waiter, or frees it.
    mutating func release(_ key: TokenStoreKey) {
        guard var queue = waiting[key], !queue.isEmpty else {
            waiting[key] = nil
            return
        }
        let next = queue.removeFirst()
        waiting[key] = queue
        next.resume()
    }
}
