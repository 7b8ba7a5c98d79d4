import Foundation
import RemoteAuth

/// The lines of the state file's log (``StateFile``): one JSON object per entry that changed,
/// `{"t":TABLE,"k":KEY,"v":VALUE}` for an entry added or replaced and `{"t":TABLE,"k":KEY}` for
/// one removed, each ended by a newline. The tables are the members of
/// ``StateFile/Contents``: `requestTokens`, `accessTokens`, `statuses` (keyed by id),
/// `nextStatusID` (one entry, key ``""``), `oauth2.codes`, `oauth2.accessTokens`,
/// `oauth2.refreshTokens`, `registeredClients`.
///
/// Finding what changed compares the tables before and after, entry by entry (values are
/// `Equatable`): memory work in the size of the tables, but only the changes are encoded and
/// written.
enum StateLog {
    private struct Line<Value: Codable>: Codable {
        var t: String
        var k: String
        var v: Value?
    }

    private struct Head: Decodable {
        var t: String
        var k: String
    }

    /// The lines that turn `before` into `after`, concatenated.
    static func lines(from before: StateFile.Contents, to after: StateFile.Contents) -> [UInt8] {
        var out: [UInt8] = []
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        func diff<Value: Codable & Equatable>(_ table: String, _ old: [String: Value], _ new: [String: Value]) {
            for (key, value) in new where old[key] != value { emit(table, key, value) }
            for key in old.keys where new[key] == nil { emit(table, key, Value?.none) }
        }
        func emit<Value: Codable>(_ table: String, _ key: String, _ value: Value?) {
            // The values are the sandbox's own Codable structs: encoding cannot fail.
            guard let data = try? encoder.encode(Line(t: table, k: key, v: value)) else { return }
            out.append(contentsOf: data)
            out.append(UInt8(ascii: "\n"))
        }
        diff("requestTokens", before.requestTokens, after.requestTokens)
        diff("accessTokens", before.accessTokens, after.accessTokens)
        // Statuses are appended, and dropped from the front past the capacity: the new ones are
        // the tail after the last id before, the dropped ones the head before the first id after.
        let (old, new) = (before.statuses, after.statuses)
        if old.count != new.count || old.last != new.last || old.first != new.first {
            let lastBefore = old.last?.id ?? Int64.min
            let firstAfter = new.first?.id ?? Int64.max
            let added = new.reversed().prefix { $0.id > lastBefore }
            let dropped = old.prefix { $0.id < firstAfter }
            if old.count - dropped.count + added.count == new.count {
                for status in dropped { emit("statuses", String(status.id), SandboxStore.Status?.none) }
                for status in added.reversed() { emit("statuses", String(status.id), status) }
            } else {
                diff("statuses", keyed(old), keyed(new))
            }
        }
        if before.nextStatusID != after.nextStatusID { emit("nextStatusID", "", after.nextStatusID) }
        diff("oauth2.codes", before.oauth2?.codes ?? [:], after.oauth2?.codes ?? [:])
        diff("oauth2.accessTokens", before.oauth2?.accessTokens ?? [:], after.oauth2?.accessTokens ?? [:])
        diff("oauth2.refreshTokens", before.oauth2?.refreshTokens ?? [:], after.oauth2?.refreshTokens ?? [:])
        diff("registeredClients", before.registeredClients ?? [:], after.registeredClients ?? [:])
        return out
    }

    private static func keyed(_ statuses: [SandboxStore.Status]) -> [String: SandboxStore.Status] {
        Dictionary(statuses.map { (String($0.id), $0) }, uniquingKeysWith: { _, last in last })
    }

    /// Applies the log's lines to `contents`, in order. A last line without its newline was cut
    /// short by a kill before it was flushed, so never answered: it is dropped.
    ///
    /// - Throws: ``SandboxError`` naming the log and the line for any other line that does not
    ///   read.
    static func replay(_ data: Data, into contents: inout StateFile.Contents, path: String) throws(SandboxError) {
        let bytes = [UInt8](data)
        var lines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        // After the last newline: empty, or a line cut short.
        lines.removeLast()
        let decoder = JSONDecoder()
        var statuses: [String: SandboxStore.Status]?
        for (index, line) in lines.enumerated() where !line.isEmpty {
            let data = Data(line)
            func value<Value: Codable>(_: Value.Type) throws -> Value? {
                try decoder.decode(Line<Value>.self, from: data).v
            }
            do {
                let head = try decoder.decode(Head.self, from: data)
                let key = head.k
                switch head.t {
                case "requestTokens": contents.requestTokens[key] = try value(SandboxStore.RequestToken.self)
                case "accessTokens": contents.accessTokens[key] = try value(SandboxStore.AccessToken.self)
                case "statuses":
                    if statuses == nil { statuses = keyed(contents.statuses) }
                    statuses?[key] = try value(SandboxStore.Status.self)
                case "nextStatusID":
                    contents.nextStatusID = try value(Int64.self) ?? contents.nextStatusID
                case "oauth2.codes":
                    contents.oauth2 = contents.oauth2 ?? .init(codes: [:], accessTokens: [:], refreshTokens: [:])
                    contents.oauth2?.codes[key] = try value(OAuth2Store.AuthorizationCode.self)
                case "oauth2.accessTokens":
                    contents.oauth2 = contents.oauth2 ?? .init(codes: [:], accessTokens: [:], refreshTokens: [:])
                    contents.oauth2?.accessTokens[key] = try value(OAuth2Store.AccessToken.self)
                case "oauth2.refreshTokens":
                    contents.oauth2 = contents.oauth2 ?? .init(codes: [:], accessTokens: [:], refreshTokens: [:])
                    contents.oauth2?.refreshTokens[key] = try value(OAuth2Store.RefreshToken.self)
                case "registeredClients":
                    contents.registeredClients = contents.registeredClients ?? [:]
                    contents.registeredClients?[key] = try value(OAuth2ClientRegistry.Registration.self)
                default:
                    throw SandboxError("unknown table")
                }
            } catch {
                // Not the decoder's description: it can quote token values.
                throw SandboxError(
                    "the state file's log '\(path)' cannot be read: line \(index + 1) is not one of the sandbox's changes"
                )
            }
        }
        if let statuses { contents.statuses = statuses.values.sorted { $0.id < $1.id } }
    }
}
