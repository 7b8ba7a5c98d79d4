import Foundation
import Testing

/// The token file: where it is, and a corrupt or too-open file refused with the remedy.
@Suite(.timeLimit(.minutes(5))) struct FileStoreCLITests {
    func home() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("file-store-cli-\(UUID())").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    @Test func profilesPath() async throws {
        let result = try await CLI.run(["profiles", "path"], environment: ["REMOTE_AUTH_HOME": "/srv/ra"])
        #expect(result.status == 0)
        #expect(result.stderr == "")
        #expect(result.stdout == "/srv/ra/tokens.json\n")
        let xdg = try await CLI.run(["profiles", "path"], environment: ["REMOTE_AUTH_HOME": "", "XDG_CONFIG_HOME": "/cfg"])
        #expect(xdg.stdout == "/cfg/remote-auth/tokens.json\n")
        let fallback = try await CLI.run(
            ["profiles", "path"],
            environment: ["REMOTE_AUTH_HOME": "", "XDG_CONFIG_HOME": "", "HOME": "/home/x"]
        )
        #expect(fallback.stdout == "/home/x/.config/remote-auth/tokens.json\n")
    }

    @Test func corruptFileNamesTheFileAndTheRemedy() async throws {
        let home = try home()
        defer { try? FileManager.default.removeItem(atPath: home) }
        let file = home + "/tokens.json"
        _ = FileManager.default.createFile(
            atPath: file,
            contents: Data("{ not json".utf8),
            attributes: [.posixPermissions: 0o600]
        )
        let result = try await CLI.run(["profiles", "list"], environment: ["REMOTE_AUTH_HOME": home])
        #expect(result.status == 2)
        #expect(result.stdout == "")
        #expect(
            result.stderr
                == "remote-auth: \(file) is not a valid store: not JSON: repair it, or move it aside ('mv \(file) \(file).bad') and sign in again\n"
        )
        try Data("[{\"key\": {}}]".utf8).write(to: URL(fileURLWithPath: file))
        let shape = try await CLI.run(["profiles", "show", "x"], environment: ["REMOTE_AUTH_HOME": home])
        #expect(shape.status == 2)
        #expect(shape.stderr.hasPrefix("remote-auth: \(file) is not a valid store: no '"), "\(shape.stderr)")
    }

    @Test(arguments: [0o644, 0o640, 0o604, 0o660])
    func fileOpenToOthersIsRefused(mode: Int) async throws {
        let home = try home()
        defer { try? FileManager.default.removeItem(atPath: home) }
        let file = home + "/tokens.json"
        _ = FileManager.default.createFile(
            atPath: file,
            contents: Data("[]".utf8),
            attributes: [.posixPermissions: mode]
        )
        let result = try await CLI.run(["profiles", "list"], environment: ["REMOTE_AUTH_HOME": home])
        #expect(result.status == 2)
        #expect(
            result.stderr
                == "remote-auth: \(file) holds secrets but has mode \(String(mode, radix: 8)), open to group or others: run 'chmod 600 \(file)'\n"
        )
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file)
        let fixed = try await CLI.run(["profiles", "list"], environment: ["REMOTE_AUTH_HOME": home])
        #expect(fixed.status == 0)
        #expect(fixed.stdout == "")
        #expect(fixed.stderr == "")
    }
}

/// Issue 22: where the token file lives must be safe for secrets, and each refusal says what is
/// wrong in its own words.
@Suite(.timeLimit(.minutes(5))) struct FileStoreLocationCLITests {
    func home(mode: Int = 0o700) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("file-store-loc-\(UUID())").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: path)
        return path
    }

    func list(_ home: String) async throws -> CLIResult {
        try await CLI.run(["profiles", "list"], environment: ["REMOTE_AUTH_HOME": home])
    }

    @Test(arguments: [0o777, 0o770, 0o722])
    func aFolderOthersCanWriteIsRefused(_ mode: Int) async throws {
        let home = try home(mode: mode)
        defer { try? FileManager.default.removeItem(atPath: home) }
        let result = try await list(home)
        #expect(result.status == 2)
        #expect(
            result.stderr
                == "remote-auth: the folder \(home) is writable by group or others (mode \(String(mode, radix: 8))), who could replace tokens.json: run 'chmod go-w \(home)'\n"
        )
    }

    @Test func aSymbolicLinkIsNotFollowed() async throws {
        let home = try home()
        defer { try? FileManager.default.removeItem(atPath: home) }
        let target = home + "/elsewhere.json"
        _ = FileManager.default.createFile(atPath: target, contents: Data("{}".utf8), attributes: [.posixPermissions: 0o644])
        try FileManager.default.createSymbolicLink(atPath: home + "/tokens.json", withDestinationPath: target)
        let result = try await list(home)
        #expect(result.status == 2)
        #expect(
            result.stderr
                == "remote-auth: \(home)/tokens.json is a symbolic link: a file of secrets is not read through a link (its target could be anyone's); put the file itself there\n"
        )
        #expect(!result.stderr.contains("chmod"))
        // The target was not touched.
        let mode = try FileManager.default.attributesOfItem(atPath: target)[.posixPermissions] as? NSNumber
        #expect(mode?.intValue == 0o644)
    }

    @Test func aDirectoryOrAFIFOInItsPlaceIsNamed() async throws {
        let home = try home()
        defer { try? FileManager.default.removeItem(atPath: home) }
        try FileManager.default.createDirectory(atPath: home + "/tokens.json", withIntermediateDirectories: false)
        let directory = try await list(home)
        #expect(directory.status == 2)
        #expect(directory.stderr == "remote-auth: \(home)/tokens.json is a directory, not the store's file\n")
        try FileManager.default.removeItem(atPath: home + "/tokens.json")
        #expect(mkfifo(home + "/tokens.json", 0o600) == 0)
        let fifo = try await list(home)
        #expect(fifo.status == 2)
        #expect(fifo.stderr == "remote-auth: \(home)/tokens.json is not a regular file\n")
    }
}
