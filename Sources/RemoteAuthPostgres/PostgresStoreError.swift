public import RemoteAuth

/// Why a ``PostgresTokenStore`` could not do what it was asked: a stable ``code`` and a
/// ``reason`` that never holds a secret (no session, no bound value, no server message that could
/// quote one).
public struct PostgresStoreError: Error, Hashable, CustomStringConvertible {
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, Sendable { case invalidTableName, lockTimeout, corruptSession, database }
        private let base: Base
        /// The table name is not a plain lowercase SQL identifier (`[a-z_][a-z0-9_]*`, at most 63
        /// bytes), which is what the store interpolates into its statements.
        public static let invalidTableName = Code(base: .invalidTableName)
        /// Another instance held the session's lock (a refresh in progress) for longer than the
        /// store's `lockTimeout` (PostgreSQL's `lock_not_available`, SQLSTATE 55P03).
        public static let lockTimeout = Code(base: .lockTimeout)
        /// A stored session is not the JSON this store writes.
        public static let corruptSession = Code(base: .corruptSession)
        /// The database refused or failed a statement, or could not be reached, or the
        /// connection was lost (the reason says which): ``underlying`` is postgres-nio's error.
        /// A connection lost inside a change rolls it back, unless it was lost during the
        /// `COMMIT`, whose outcome is then unknown: read the session again.
        public static let database = Code(base: .database)
        public var description: String { base.rawValue }
    }

    public let code: Code
    /// What is wrong, in plain words; never a secret.
    public let reason: String
    /// postgres-nio's error for ``Code-swift.struct/database`` and ``Code-swift.struct/lockTimeout``
    /// (its `description` is generic; `String(reflecting:)` shows the server's fields).
    public let underlying: (any Error)?

    /// Creates the error `code` with a `reason` that holds no secret and, for a database failure,
    /// postgres-nio's `underlying` error.
    public init(_ code: Code, _ reason: String, underlying: (any Error)? = nil) {
        self.code = code
        self.reason = reason
        self.underlying = underlying
    }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }
    public var description: String { "PostgresStoreError.\(code): \(reason)" }
}

extension PostgresStoreError: CodedError {}
