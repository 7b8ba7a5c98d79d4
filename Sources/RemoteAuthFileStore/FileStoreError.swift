import Foundation
public import RemoteAuth

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Why a credential or token file could not be opened: a stable ``code`` and a ``reason`` that
/// names the file and never holds a secret.
public struct FileStoreError: Error, Hashable, CustomStringConvertible {
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, Sendable {
            case corruptFile, permissionsTooOpen, unreadable, lockTimeout, unsafeLocation, unwritable
        }
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
        /// The file, or the folder it is in, is not a safe place for secrets: the file is a
        /// symbolic link (not followed) or not a regular file, or belongs to another user; the
        /// folder is writable by group or others (who could replace the file), as ssh's
        /// `StrictModes` refuses.
        public static let unsafeLocation = Code(base: .unsafeLocation)
        /// The file could not be written (a full or read-only file system, the folder not
        /// writable): the reason says why, and the file is as it was (the new content is
        /// written beside it and renamed over it only once complete).
        public static let unwritable = Code(base: .unwritable)
        public var description: String { base.rawValue }
    }

    public let code: Code
    /// The file's path.
    public let path: String
    /// What is wrong, in plain words; never a secret.
    public let reason: String
    /// The file's permission bits, for ``Code-swift.struct/permissionsTooOpen``.
    public let mode: Int?

    /// Creates the error `code` about the file at `path`, with a `reason` that holds no secret
    /// and, for `.permissionsTooOpen`, the file's permission bits.
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
    /// The bytes of the secrets file at `path`, or `nil` when it does not exist. Refused before
    /// it is read: a folder that group or others can write (``checkFolder(of:)``), a symbolic
    /// link (not followed), anything but a regular file, a file of another user, and a file that
    /// group or others can access.
    static func readPrivate(_ path: String) throws -> Data? {
        try checkFolder(of: path)
        var info = stat()
        guard lstat(path, &info) == 0 else {
            if errno == ENOENT { return nil }
            throw FileStoreError(
                .unreadable,
                path: path,
                reason: "cannot read \(path): \(String(cString: strerror(errno)))"
            )
        }
        let kind = info.st_mode & S_IFMT
        if kind == S_IFLNK {
            throw FileStoreError(
                .unsafeLocation,
                path: path,
                reason: "\(path) is a symbolic link: a file of secrets is not read through a link (its target could be anyone's); put the file itself there"
            )
        }
        if kind == S_IFDIR {
            throw FileStoreError(.unsafeLocation, path: path, reason: "\(path) is a directory, not the store's file")
        }
        guard kind == S_IFREG else {
            throw FileStoreError(.unsafeLocation, path: path, reason: "\(path) is not a regular file")
        }
        if info.st_uid != geteuid() {
            throw FileStoreError(
                .unsafeLocation,
                path: path,
                reason: "\(path) belongs to user \(info.st_uid), not to this user (\(geteuid()))"
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
        // O_NOFOLLOW: a link swapped in since the check is not followed either.
        let descriptor = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw FileStoreError(
                .unreadable,
                path: path,
                reason: "cannot read \(path): \(String(cString: strerror(errno)))"
            )
        }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        do {
            return try handle.readToEnd() ?? Data()
        } catch {
            throw FileStoreError(.unreadable, path: path, reason: "cannot read \(path): \(error.localizedDescription)")
        }
    }

    /// Refuses a folder that group or others can write (without the sticky bit): whoever can
    /// write there can replace the file of secrets, as ssh's `StrictModes` says of `~/.ssh`. A
    /// folder that does not exist yet is fine (it is created 0700).
    static func checkFolder(of path: String) throws {
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        var info = stat()
        guard stat(folder, &info) == 0 else { return }
        let mode = Int(info.st_mode) & 0o7777
        if mode & 0o022 != 0, mode & 0o1000 == 0 {
            throw FileStoreError(
                .unsafeLocation,
                path: path,
                reason: "the folder \(folder) is writable by group or others (mode \(String(mode & 0o777, radix: 8))), who could replace \(URL(fileURLWithPath: path).lastPathComponent): run 'chmod go-w \(folder)'"
            )
        }
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

extension FileStoreError: CodedError {}
