import Foundation
import Testing

/// Shell completion (`--generate-completion-script bash|zsh|fish`, swift-argument-parser's): the
/// scripts are made, and bash completes a subcommand and an option from the bash one, as a
/// person pressing Tab would get them.
@Suite(.timeLimit(.minutes(5))) struct CompletionCLITests {
    /// `bash -c` with the script sourced and a completion asked for `words` (the last is being
    /// typed): the candidates bash would offer, sorted.
    static func bashCompletions(script: String, words: [String]) async throws -> [String] {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("completion-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let path = scratch.appendingPathComponent("remote-auth.bash").path
        try script.write(toFile: path, atomically: true, encoding: .utf8)
        let line = words.joined(separator: " ")
        let program = """
            source '\(path)'
            COMP_LINE='\(line)'; COMP_POINT=${#COMP_LINE}
            COMP_WORDS=(\(words.map { "'\($0)'" }.joined(separator: " "))); COMP_CWORD=\(words.count - 1)
            _remote-auth remote-auth '\(words.last ?? "")' '\(words.dropLast().last ?? "")'
            printf '%s\\n' "${COMPREPLY[@]}"
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = ["-c", program]
        let output = scratch.appendingPathComponent("out").path
        _ = FileManager.default.createFile(atPath: output, contents: nil)
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: output))
        try await CLI.launchAndWait(process)
        #expect(process.terminationStatus == 0)
        return try String(contentsOfFile: output, encoding: .utf8).split(separator: "\n").map(String.init).sorted()
    }

    @Test func scriptsForEveryShellAndBashCompletes() async throws {
        for (shell, start) in [("bash", "#!/bin/bash"), ("zsh", "#compdef remote-auth"), ("fish", "function ")] {
            let result = try await CLI.run(["--generate-completion-script", shell])
            #expect(result.status == 0, "\(shell): \(result.stderr)")
            #expect(result.stdout.hasPrefix(start), "\(shell)")
            #expect(result.stdout.contains("request"), "\(shell)")
        }
        let bash = try await CLI.run(["--generate-completion-script", "bash"]).stdout
        #expect(try await Self.bashCompletions(script: bash, words: ["remote-auth", "req"]) == ["request"])
        #expect(
            try await Self.bashCompletions(script: bash, words: ["remote-auth", "request", "--pro"])
                == ["--profile", "--proxy", "--proxy-user"]
        )
    }
}
