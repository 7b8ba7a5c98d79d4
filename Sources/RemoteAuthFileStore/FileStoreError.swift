import Foundation

/// Why a credential or token file could not be opened: a stable ``code`` and a ``reason`` that
/// names the file and never holds a secret.
public struct FileStoreError: Error, Hashable, CustomStringConvertible {
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, Sendable { case corruptFile, permissionsTooOpen, unreadable, lockTimeout }
        private let base: Base
        /// The file is not the JSON the store writes (truncated, edited by hand, another format).
        public static let corruptFile = Code(base: .corruptFile)
        /// Group or others may read or write the file, which holds secrets: the store refuses
        /// it, as ssh refuses such a private key. `chmod 600 PATH` fixes it.
        public static let permissionsTooOpen = Code(base: .permissionsTooOpen)
        /// The file exists but cannot be read (permissions of the process, a folder in its place).
        public static let unreadable = Code(base: .unreadable)
        /// The store's lock file (`PATH.lock`) stayed locked by another process (or another
        /// store object) for longer than the store's `lockTimeout`: a refresh that hangs, or a
        /// process stopped while holding it.
        public static let lockTimeout = Code(base: .lockTimeout)
        public var description: String { base.rawValue }
    }

    public let code: Code
    /// The file's path.
    public let path: String
    /// What is wrong, in plain words; never a secret.
    public let reason: String
    /// The file's permission bits, for ``Code-swift.struct/permissionsTooOpen``.
    public let mode: Int?

    public init(_ code: Code, path: String, reason: String, mode: Int? = nil) {
        self.code = code
        self.path = path
        self.reason = reason
        self.mode = mode
    }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code && lhs.path == rhs.path }
    public func hash(into hasher: inout Hasher) {
        hasher.combine(code)
        hasher.combine(path)
    }
    public var description: String { "FileStoreError.\(code): \(reason)" }
}

extension AtomicFile {
    /// The bytes of the secrets file at `path`, or `nil` when it does not exist. A file that
    /// group or others can access is refused before it is read.
    static func readPrivate(_ path: String) throws -> Data? {
        var info = stat()
        guard stat(path, &info) == 0 else {
            if errno == ENOENT { return nil }
            throw FileStoreError(
                .unreadable,
                path: path,
                reason: "cannot read \(path): \(String(cString: strerror(errno)))"
            )
        }
        let mode = Int(info.st_mode) & 0o777
        if mode & 0o077 != 0 {
            throw FileStoreError(
                .permissionsTooOpen,
                path: path,
                reason: "\(path) holds secrets but has mode \(String(mode, radix: 8)), open to group or others",
                mode: mode
            )
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw FileStoreError(.unreadable, path: path, reason: "cannot read \(path)")
        }
        return data
    }

    /// `T` decoded from the JSON in `data`, a decoding failure reported as a corrupt `path`.
    static func decode<T: Decodable>(_ type: T.Type, from data: Data, path: String) throws -> T {
        do {
            return try JSONDecoder().decode(type, from: data)
        } catch let error as DecodingError {
            throw FileStoreError(.corruptFile, path: path, reason: "\(path) is not a valid store: \(describe(error))")
        }
    }

    /// Where in the file the decoder stopped, in plain words (no values: they may be secrets).
    private static func describe(_ error: DecodingError) -> String {
        func at(_ path: [any CodingKey]) -> String {
            path.isEmpty
                ? "" : " at " + path.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
        }
        switch error {
        case .dataCorrupted(let context):
            return context.codingPath.isEmpty ? "not JSON" : "a bad value\(at(context.codingPath))"
        case .keyNotFound(let key, let context):
            return "no '\(key.stringValue)'\(at(context.codingPath))"
        case .typeMismatch(_, let context), .valueNotFound(_, let context):
            return "a value of the wrong type\(at(context.codingPath))"
        @unknown default:
            return "unreadable JSON"
        }
    }
}
