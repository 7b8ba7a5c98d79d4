import Foundation
import RemoteAuth
import Testing

@testable import RemoteAuthSandbox

/// The `--state` file's log (issue 24): a write appends only what changed, a new start replays
/// it (as after `kill -9`, when nothing folded it), a line cut short is dropped, a broken one
/// refused, and the log is folded into the file when it outgrows it and when the sandbox stops.
@Suite struct StateLogTests {
    static func temporaryPath() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("state-log-\(UUID().uuidString).json").path
    }

    static func remove(_ path: String) {
        try? FileManager.default.removeItem(atPath: path)
        try? FileManager.default.removeItem(atPath: path + ".log")
    }

    static func text(_ path: String) -> String {
        String(decoding: FileManager.default.contents(atPath: path) ?? Data(), as: UTF8.self)
    }

    static func status(_ id: Int64) -> SandboxStore.Status {
        SandboxStore.Status(id: id, text: "status \(id)", user: "alice", createdAt: 1_700_000_000 + id)
    }

    @Test func changesAreAppendedThenReplayed() throws {
        let path = Self.temporaryPath()
        defer { Self.remove(path) }
        let first = try StateFile(path: path, random: .system)
        let file = Self.text(path)
        #expect(Self.text(path + ".log") == "")
        try first.update { $0.statuses = [Self.status(1), Self.status(2)] }
        try first.update {
            $0.statuses.removeFirst()
            $0.statuses.append(Self.status(3))
            $0.nextStatusID = 4
        }
        try first.update { $0.requestTokens["rt"] = nil }
        // Only the changes, one line each; the file itself is as it was.
        #expect(
            Self.text(path + ".log")
                == """
                {"k":"1","t":"statuses","v":{"createdAt":1700000001,"id":1,"text":"status 1","user":"alice"}}
                {"k":"2","t":"statuses","v":{"createdAt":1700000002,"id":2,"text":"status 2","user":"alice"}}
                {"k":"1","t":"statuses"}
                {"k":"3","t":"statuses","v":{"createdAt":1700000003,"id":3,"text":"status 3","user":"alice"}}
                {"k":"","t":"nextStatusID","v":4}

                """
        )
        #expect(Self.text(path) == file)

        // A new start without the first one stopping (a kill): the log is replayed, then folded.
        let second = try StateFile(path: path, random: .system)
        #expect(second.current.statuses.map(\.id) == [2, 3])
        #expect(second.current.nextStatusID == 4)
        #expect(Self.text(path + ".log") == "")
        #expect(Self.text(path).contains(#""nextStatusID":4"#))
        // Stopping folds and removes the log.
        second.close()
        #expect(!FileManager.default.fileExists(atPath: path + ".log"))
        #expect(try StateFile(path: path, random: .system).current.statuses.map(\.id) == [2, 3])
    }

    @Test func aLineCutShortIsDroppedAndABrokenOneRefused() throws {
        let path = Self.temporaryPath()
        defer { Self.remove(path) }
        let first = try StateFile(path: path, random: .system)
        try first.update { $0.statuses = [Self.status(1)] }
        // A kill in the middle of an append: the line has no newline, so it was never answered.
        let log = try FileHandle(forWritingTo: URL(fileURLWithPath: path + ".log"))
        try log.seekToEnd()
        try log.write(contentsOf: Data(#"{"k":"2","t":"statuses","v":{"createdAt":1,"id":2,"te"#.utf8))
        try log.close()
        #expect(try StateFile(path: path, random: .system).current.statuses.map(\.id) == [1])

        try Data("{\"k\":\"9\",\"t\":\"nonsense\"}\n".utf8).write(to: URL(fileURLWithPath: path + ".log"))
        let error = #expect(throws: SandboxError.self) { try StateFile(path: path, random: .system) }
        #expect(
            error?.reason
                == "the state file's log '\(path).log' cannot be read: line 1 is not one of the sandbox's changes"
        )
    }

    @Test func theLogIsFoldedWhenItOutgrowsTheFile() throws {
        let path = Self.temporaryPath()
        defer { Self.remove(path) }
        let state = try StateFile(path: path, random: .system)
        var longest = 0
        for id in 1...600 {
            try state.update {
                $0.statuses.append(Self.status(Int64(id)))
                $0.nextStatusID = Int64(id + 1)
            }
            longest = max(longest, Self.text(path + ".log").utf8.count)
        }
        // Folded at least once (at 64 KiB, or the file's size when larger), never much beyond.
        let file = Self.text(path).utf8.count
        #expect(longest < max(file, 64 * 1024) + 1024, "log \(longest), file \(file)")
        #expect(Self.text(path).contains(#""id":1,"#))
        let restarted = try StateFile(path: path, random: .system)
        #expect(restarted.current.statuses.count == 600)
        #expect(restarted.current.nextStatusID == 601)
    }
}
