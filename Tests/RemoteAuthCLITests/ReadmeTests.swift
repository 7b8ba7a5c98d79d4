import ArgumentParser
import Foundation
import Testing

@testable import remote_auth

/// A `remote-auth` command from a fenced `sh` block of README.md with the output the README shows
/// for it: the `# …` lines right below the command, one per line of stdout.
///
/// `swift run remote-auth …` runs the built binary directly (`swift run` only adds its build
/// lines on stderr). A block right after `<!-- readme-test: needs a running sandbox -->` is not
/// run; ``ReadmeTests/signExamplesAreCovered()`` checks that no `sign` example hides there.
struct ReadmeExample: Sendable, CustomTestStringConvertible {
    let line: Int
    let arguments: [String]
    let expectedOutput: [String]
    let needsSandbox: Bool

    var testDescription: String { "README.md:\(line): remote-auth \(arguments.prefix(3).joined(separator: " "))" }

    static let skipMarker = "<!-- readme-test: needs a running sandbox -->"

    struct ParseError: Error, CustomStringConvertible { let description: String }

    /// README.md at the package root (walking up from this file to `Package.swift`).
    static func readme(file: String = #filePath) throws -> String {
        var dir = URL(fileURLWithPath: file).deletingLastPathComponent()
        while dir.path != "/" {
            if FileManager.default.fileExists(atPath: dir.appendingPathComponent("Package.swift").path) {
                let url = dir.appendingPathComponent("README.md")
                guard let data = FileManager.default.contents(atPath: url.path), !data.isEmpty else {
                    throw ParseError(description: "\(url.path) is missing or empty")
                }
                return String(decoding: data, as: UTF8.self)
            }
            dir = dir.deletingLastPathComponent()
        }
        throw ParseError(description: "no Package.swift above \(file)")
    }

    /// Every `remote-auth` command in the README's `sh` blocks, with or without shown output.
    static func all(in text: String) throws -> [ReadmeExample] {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var examples: [ReadmeExample] = []
        var index = 0
        var previous = ""  // the last non-empty line outside a block
        while index < lines.count {
            let line = lines[index]
            index += 1
            guard line.hasPrefix("```") else {
                if !line.trimmingCharacters(in: .whitespaces).isEmpty { previous = line }
                continue
            }
            let isShell = line == "```sh"
            let needsSandbox = previous.trimmingCharacters(in: .whitespaces) == skipMarker
            previous = ""
            // The block's lines, up to the closing fence.
            var block: [(number: Int, text: String)] = []
            while index < lines.count, !lines[index].hasPrefix("```") {
                block.append((index + 1, lines[index]))
                index += 1
            }
            index += 1  // the closing fence
            guard isShell else { continue }
            var position = 0
            while position < block.count {
                let start = block[position]
                // One logical line: physical lines joined where they end in a backslash.
                var command = start.text
                while command.hasSuffix("\\"), position + 1 < block.count {
                    command = String(command.dropLast()) + block[position + 1].text
                    position += 1
                }
                position += 1
                // A block that needs a running sandbox is a script for a person (redirections,
                // variables): only its remote-auth lines that parse are listed, none is run.
                var words = needsSandbox ? ((try? shellWords(scriptLine(command))) ?? []) : try shellWords(command)
                if words.first == "swift", words.dropFirst().first == "run" { words.removeFirst(2) }
                guard words.first == "remote-auth" else { continue }
                var output: [String] = []
                while position < block.count, block[position].text.hasPrefix("#") {
                    let comment = block[position].text.dropFirst()
                    output.append(String(comment.hasPrefix(" ") ? comment.dropFirst() : comment))
                    position += 1
                }
                examples.append(
                    ReadmeExample(
                        line: start.number,
                        arguments: Array(words.dropFirst()),
                        expectedOutput: output,
                        needsSandbox: needsSandbox
                    )
                )
            }
        }
        return examples
    }

    /// A line of a script for a person, as the command it runs: without the environment
    /// assignments before it (`NAME=value …`) and a trailing `&` that puts it in the background.
    static func scriptLine(_ line: String) -> String {
        var text = line
        if let background = text.range(of: #"\s&\s*(#.*)?$"#, options: .regularExpression) {
            text.removeSubrange(background)
        }
        if let assignments = text.range(of: #"^\s*([A-Z_][A-Z0-9_]*=\S*\s+)+"#, options: .regularExpression) {
            text.removeSubrange(assignments)
        }
        return text
    }

    /// The examples this test runs: those that show their output and need no sandbox.
    static func runnable() throws -> [ReadmeExample] {
        let examples = try all(in: try readme()).filter { !$0.expectedOutput.isEmpty && !$0.needsSandbox }
        guard !examples.isEmpty else { throw ParseError(description: "README.md shows no command with its output") }
        return examples
    }

    /// Splits a command line as sh does for what the README uses: blanks, single quotes, double
    /// quotes (with `\"`, `\\`, `\$` and `` \` ``), backslash escapes, and a `#` word that starts
    /// a comment. Anything else sh would expand (`$`, globs, `&`, `|`, `;`) is refused.
    static func shellWords(_ line: String) throws -> [String] {
        var words: [String] = []
        var current = ""
        var inWord = false
        var iterator = Array(line).makeIterator()
        while let c = iterator.next() {
            switch c {
            case " ", "\t":
                if inWord { words.append(current) }
                current = ""
                inWord = false
            case "#" where !inWord:
                return words
            case "'":
                inWord = true
                while true {
                    guard let q = iterator.next() else { throw ParseError(description: "unclosed ' in \(line)") }
                    if q == "'" { break }
                    current.append(q)
                }
            case "\"":
                inWord = true
                while true {
                    guard let q = iterator.next() else { throw ParseError(description: "unclosed \" in \(line)") }
                    if q == "\"" { break }
                    if q == "$" || q == "`" { throw ParseError(description: "expansion in \(line)") }
                    if q == "\\" {
                        guard let next = iterator.next() else { throw ParseError(description: "trailing \\") }
                        if !"\"\\$`".contains(next) { current.append("\\") }
                        current.append(next)
                    } else {
                        current.append(q)
                    }
                }
            case "\\":
                inWord = true
                guard let next = iterator.next() else { throw ParseError(description: "trailing \\ in \(line)") }
                current.append(next)
            case "$", "`", "&", "|", ";", "<", ">", "*", "?", "(", ")":
                if c == "&" && !inWord {
                    // `command &` (background) only appears in sandbox blocks; treat as the end.
                    return words
                }
                throw ParseError(description: "'\(c)' needs a shell in \(line)")
            default:
                inWord = true
                current.append(c)
            }
        }
        if inWord { words.append(current) }
        return words
    }
}

@Suite(.timeLimit(.minutes(5))) struct ReadmeTests {
    /// Each README command that shows its output prints exactly that, exits 0 and writes nothing
    /// to stderr.
    @Test(arguments: try ReadmeExample.runnable())
    func exampleIsTrue(_ example: ReadmeExample) async throws {
        let result = try await CLI.run(example.arguments)
        #expect(result.status == 0)
        #expect(result.stderr == "")
        #expect(result.stdout == example.expectedOutput.map { $0 + "\n" }.joined())
    }

    /// Every `remote-auth sign` example shows its output and is run; none hides in a block marked
    /// as needing a sandbox.
    @Test func signExamplesAreCovered() throws {
        let signs = try ReadmeExample.all(in: try ReadmeExample.readme()).filter { $0.arguments.first == "sign" }
        #expect(signs.count >= 4)
        for example in signs {
            #expect(!example.needsSandbox, "\(example.testDescription)")
            #expect(!example.expectedOutput.isEmpty, "\(example.testDescription) shows no output")
        }
    }

    /// The commands of the blocks that need a running sandbox (scripts for a person, with a
    /// browser) are not run, but each one the README shows must parse and validate as the tool
    /// would: an option renamed or removed, or a value the tool refuses, fails here.
    @Test func sandboxExamplesParse() throws {
        let examples = try ReadmeExample.all(in: try ReadmeExample.readme()).filter(\.needsSandbox)
        #expect(examples.count >= 30, "only \(examples.count) commands found in the sandbox blocks")
        for example in examples {
            do {
                _ = try RemoteAuthCommand.parseAsRoot(example.arguments)
            } catch {
                Issue.record("\(example.testDescription): \(RemoteAuthCommand.fullMessage(for: error))")
            }
        }
    }

    /// The parser itself: continuation lines, quotes, `swift run`, shown output, the marker.
    @Test func parser() throws {
        let text = """
            ```sh
            # a comment, not output
            swift run remote-auth sign basic --username 'A b' \\
              --password "x\\"y" # trailing comment
            # line one
            #
            # line three

            remote-auth sign basic --username u --password p
            ```

            \(ReadmeExample.skipMarker)
            ```sh
            remote-auth request http://127.0.0.1:8080/
            # {}
            ```
            ```swift
            // remote-auth in Swift is not a command
            ```
            """
        let examples = try ReadmeExample.all(in: text)
        #expect(examples.count == 3)
        #expect(examples[0].line == 3)
        #expect(examples[0].arguments == ["sign", "basic", "--username", "A b", "--password", "x\"y"])
        #expect(examples[0].expectedOutput == ["line one", "", "line three"])
        #expect(!examples[0].needsSandbox)
        #expect(examples[1].expectedOutput == [])
        #expect(examples[2].arguments == ["request", "http://127.0.0.1:8080/"])
        #expect(examples[2].needsSandbox)
        #expect(
            ReadmeExample.scriptLine("A_B=c D=e swift run remote-auth sandbox --port 8080 &   # note")
                == "swift run remote-auth sandbox --port 8080"
        )
        #expect(ReadmeExample.scriptLine("remote-auth a 'x & y'") == "remote-auth a 'x & y'")
        #expect(throws: ReadmeExample.ParseError.self) { try ReadmeExample.shellWords("remote-auth sign $HOME") }
        #expect(throws: ReadmeExample.ParseError.self) { try ReadmeExample.shellWords("remote-auth 'open") }
    }
}

/// Issue 22: the README's sandbox blocks can be followed top to bottom in one shell. Each block
/// that starts a sandbox in the background uses a port no other block uses and stops it with
/// `kill %1` (in its own block, or in the next one, which uses it); no profile is created by
/// `authorize` in two blocks.
@Suite struct ReadmeSectionsTests {
    @Test func sandboxBlocksDoNotCollide() throws {
        let readme = try ReadmeExample.readme()
        var blocks: [[String]] = []
        var current: [String]?
        for line in readme.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if line == "```sh" {
                current = []
            } else if line == "```", let block = current {
                // Continuation lines joined: a command is one line.
                var joined: [String] = []
                var pending = ""
                for part in block {
                    if part.hasSuffix("\\") {
                        pending += part.dropLast() + " "
                    } else {
                        joined.append(pending + part)
                        pending = ""
                    }
                }
                blocks.append(joined)
                current = nil
            } else {
                current?.append(line)
            }
        }
        var ports: [String: Int] = [:]
        var profiles: [String: Int] = [:]
        var running = false
        for (index, block) in blocks.enumerated() {
            for line in block where line.contains("remote-auth authorize") || line.contains("--profile") {
                guard line.contains("authorize"), let range = line.range(of: "--profile ") else { continue }
                let name = String(line[range.upperBound...].prefix { $0 != " " })
                #expect(profiles[name] == nil, "profile '\(name)' is created in blocks \(profiles[name] ?? -1) and \(index)")
                profiles[name] = index
            }
            for line in block where line.contains("remote-auth sandbox --port") && line.contains(" &") {
                #expect(!running, "block \(index) starts a sandbox while the last one runs")
                let port = String(line.split(separator: " ").drop { $0 != "--port" }.dropFirst().first ?? "")
                #expect(ports[port] == nil, "port \(port) is used by blocks \(ports[port] ?? -1) and \(index)")
                ports[port] = index
                running = true
            }
            if block.contains(where: { $0.hasPrefix("kill %1") }) { running = false }
        }
        #expect(!running, "the last sandbox is never stopped")
        #expect(ports.count >= 8)
    }
}
