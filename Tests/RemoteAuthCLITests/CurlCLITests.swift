import Foundation
import Testing

/// `remote-auth request` takes curl's options with curl's meaning; an echo server shows the
/// bytes on the wire.
@Suite(.timeLimit(.minutes(5))) struct CurlCLITests {
    /// The request an echo server received, as the CLI printed it. The fields come in curl's
    /// order (User-Agent, Accept, the -H fields, Content-Type), then the transport's own `host`
    /// (AsyncHTTPClient writes it in lowercase) and Content-Length.
    func wire(_ method: String, _ path: String, port: Int, fields: [String], body: String = "") -> String {
        "\(method) \(path) HTTP/1.1\r\n" + fields.map { $0 + "\r\n" }.joined() + "\r\n" + body
    }

    func formPost(port: Int, body: String) -> String {
        wire(
            "POST",
            "/",
            port: port,
            fields: [
                "User-Agent: remote-auth/0.1.0", "Accept: */*", "Content-Type: application/x-www-form-urlencoded",
                "host: 127.0.0.1:\(port)", "Content-Length: \(body.utf8.count)",
            ],
            body: body
        )
    }

    /// -d pieces are sent as given and joined with '&', in command-line order across -d,
    /// --data-raw, --data-binary and --data-urlencode, as curl does.
    @Test func dataIsSentAsGivenAndJoined() async throws {
        try await withEchoServer { server in
            let cases: [([String], String)] = [
                (["-d", "a=b&c=d"], "a=b&c=d"),
                (["-d", "a=b", "--data", "c=d e"], "a=b&c=d e"),
                (["--data-raw", "@x", "-d", "y=1"], "@x&y=1"),
                (["--data-urlencode", "q=a b&c", "-d", "z=1"], "q=a+b%26c&z=1"),
                (["--data-urlencode", "=a+b"], "a%2Bb"),
                (["--data-urlencode", "plain text"], "plain+text"),
                (["-d", "x=1", "--data-binary", "y=2", "--data-raw", "z=3"], "x=1&y=2&z=3"),
            ]
            for (arguments, body) in cases {
                let result = try await CLI.run(["request"] + arguments + [server.base + "/"])
                #expect(result.status == 0, "\(arguments)")
                #expect(result.stderr == "", "\(arguments)")
                #expect(result.stdout == formPost(port: server.port, body: body), "\(arguments)")
            }
        }
    }

    /// @FILE: -d drops CR and LF, --data-binary keeps them, --data-urlencode encodes them; @-
    /// reads standard input.
    @Test func dataFromFilesAndStdin() async throws {
        let file = try CLI.temporaryFile("a=1\r\nb=2\n")
        defer { try? FileManager.default.removeItem(atPath: file) }
        try await withEchoServer { server in
            let cases: [([String], String?, String)] = [
                (["-d", "@" + file], nil, "a=1b=2"),
                (["--data-binary", "@" + file], nil, "a=1\r\nb=2\n"),
                (["--data-urlencode", "f@" + file], nil, "f=a%3D1%0D%0Ab%3D2%0A"),
                (["-d", "@-"], "s=1\nt=2\n", "s=1t=2"),
                (["--data-binary", "@-"], "s=1\n", "s=1\n"),
            ]
            for (arguments, stdin, body) in cases {
                let result = try await CLI.run(["request"] + arguments + [server.base + "/"], stdin: stdin)
                #expect(result.status == 0, "\(arguments)")
                #expect(result.stdout == formPost(port: server.port, body: body), "\(arguments)")
            }
            let missing = try await CLI.run(["request", "-d", "@/nonexistent/file", server.base + "/"])
            #expect(missing.status == 2)
            #expect(missing.stdout == "")
            #expect(
                missing.stderr
                    == "remote-auth: cannot read '/nonexistent/file' (-d @/nonexistent/file): check the path and its permissions\n"
            )
        }
    }

    /// --json: the body as given, Content-Type and Accept application/json; -X and -H override.
    @Test func json() async throws {
        try await withEchoServer { server in
            let result = try await CLI.run(["request", "--json", "{\"a\":", "--json", "1}", server.base + "/"])
            #expect(result.status == 0)
            #expect(
                result.stdout
                    == wire(
                        "POST",
                        "/",
                        port: server.port,
                        fields: [
                            "User-Agent: remote-auth/0.1.0", "Accept: application/json",
                            "Content-Type: application/json",
                            "host: 127.0.0.1:\(server.port)", "Content-Length: 7",
                        ],
                        body: "{\"a\":1}"
                    )
            )
            let put = try await CLI.run([
                "request", "--request", "PUT", "--header", "Accept: text/plain", "-A", "probe/1", "--json", "[]",
                server.base + "/",
            ])
            #expect(
                put.stdout
                    == wire(
                        "PUT",
                        "/",
                        port: server.port,
                        fields: [
                            "User-Agent: probe/1", "Accept: text/plain", "Content-Type: application/json",
                            "host: 127.0.0.1:\(server.port)", "Content-Length: 2",
                        ],
                        body: "[]"
                    )
            )
            let mixed = try await CLI.run(["request", "--json", "{}", "-d", "a=b", server.base + "/"])
            #expect(mixed.status == 2)
            #expect(
                mixed.stderr
                    == "remote-auth: --json does not go with -d, --data-raw, --data-binary or --data-urlencode: choose one body\n"
            )
        }
    }

    /// -i prints the head, -o writes to a file, -f fails with 22 and no body, -s is silent,
    /// -L changes nothing.
    @Test func includeOutputFailSilent() async throws {
        try await withEchoServer { server in
            let get = wire(
                "GET",
                "/",
                port: server.port,
                fields: ["User-Agent: remote-auth/0.1.0", "Accept: */*", "host: 127.0.0.1:\(server.port)"]
            )
            let head =
                "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: \(get.utf8.count)\r\nConnection: close\r\n\r\n"
            let included = try await CLI.run(["request", "-i", "-L", server.base + "/"])
            #expect(included.status == 0)
            #expect(included.stderr == "")
            #expect(included.stdout == head + get)

            let file = FileManager.default.temporaryDirectory.appendingPathComponent("curl-cli-\(UUID()).out").path
            defer { try? FileManager.default.removeItem(atPath: file) }
            let written = try await CLI.run(["request", "--include", "--output", file, server.base + "/"])
            #expect(written.status == 0)
            #expect(written.stdout == "")
            #expect(try String(contentsOfFile: file, encoding: .utf8) == head + get)

            // -o writes in place, as curl does: through a symbolic link to its target, and never
            // by renaming a temporary file over the path (which, as root, turned `-o /dev/null`
            // into a regular file).
            let link = file + ".link"
            try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: file)
            defer { try? FileManager.default.removeItem(atPath: link) }
            let throughLink = try await CLI.run(["request", "-o", link, server.base + "/"])
            #expect(throughLink.status == 0)
            #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == file)
            #expect(try String(contentsOfFile: file, encoding: .utf8) == get)
            let toDevNull = try await CLI.run(["request", "-o", "/dev/null", server.base + "/"])
            #expect(toDevNull.status == 0)
            #expect(try FileManager.default.attributesOfItem(atPath: "/dev/null")[.type] as? FileAttributeType == .typeCharacterSpecial)

            let unwritable = try await CLI.run(["request", "-o", "/nonexistent/dir/out", server.base + "/"])
            #expect(unwritable.status == 23)
            #expect(
                unwritable.stderr
                    == "remote-auth: cannot write '/nonexistent/dir/out' (-o): check that its directory exists and is writable\n"
            )

            let notFound = try await CLI.run(["request", server.base + "/status/404"])
            #expect(notFound.status == 1)
            #expect(notFound.stdout.hasPrefix("GET /status/404 HTTP/1.1\r\n"))
            #expect(notFound.stderr == "remote-auth: HTTP 404 Not Found\n")

            let failed = try await CLI.run(["request", "--fail", server.base + "/status/404"])
            #expect(failed.status == 22)
            #expect(failed.stdout == "")
            #expect(failed.stderr == "remote-auth: HTTP 404 Not Found\n")

            let silent = try await CLI.run(["request", "-s", "-f", server.base + "/status/404"])
            #expect(silent.status == 22)
            #expect(silent.stdout == "")
            #expect(silent.stderr == "")

            let refusedSilently = try await CLI.run(["request", "-s", "http://127.0.0.1:1/"])
            #expect(refusedSilently.status == 7)
            #expect(refusedSilently.stderr == "")
            let shown = try await CLI.run(["request", "-sS", "http://127.0.0.1:1/"])
            #expect(shown.status == 7)
            #expect(shown.stderr.hasPrefix("remote-auth: request failed: http://127.0.0.1:1 refused the connection"))
        }
    }

    /// A malformed -H is not echoed back: it often carries a token.
    @Test func malformedHeaderIsNotEchoed() async throws {
        let result = try await CLI.run(["request", "-H", "Bearer sekrit-token", "-H", "X: 1", "http://127.0.0.1:1/"])
        #expect(result.status == 2)
        #expect(
            result.stderr
                == "remote-auth: invalid -H (the 1st one): expected 'Name: value' (not shown: it may hold a credential)\n"
        )
        let second = try await CLI.run([
            "request", "-H", "X: 1", "--header", "Authorization Bearer sekrit", "http://127.0.0.1:1/",
        ])
        #expect(
            second.stderr
                == "remote-auth: invalid -H (the 2nd one): expected 'Name: value' (not shown: it may hold a credential)\n"
        )
    }

    /// The whitespace around a -H value is not part of it (RFC 9110 §5.5): sent trimmed, not
    /// refused as a control character; a control character inside is still refused.
    @Test func headerValueWhitespaceIsTrimmed() async throws {
        let result = try await CLI.run(["request", "-v", "-H", "X-Trail: \ta b  \t", "http://127.0.0.1:1/"])
        #expect(result.status == 7)
        #expect(result.stderr.contains("> X-Trail: a b\n"), "\(result.stderr)")
        let control = try await CLI.run(["request", "-H", "X-Trail: a\u{1}b ", "http://127.0.0.1:1/"])
        #expect(control.status == 2)
        #expect(
            control.stderr
                == "remote-auth: invalid -H X-Trail: its value holds a control character (not shown: it may hold a credential)\n"
        )
    }

    /// No "did you mean" that points at an unrelated option.
    @Test func unknownOptionsGetNoNonsenseSuggestion() async throws {
        let result = try await CLI.run(["request", "--xml", "x", "http://127.0.0.1:1/"])
        #expect(result.status == 2)
        #expect(result.stderr.hasPrefix("remote-auth: Error: Unknown option '--xml'\n"), "\(result.stderr)")
        let typo = try await CLI.run(["request", "--jsno", "{}", "http://127.0.0.1:1/"])
        #expect(typo.status == 2)
        #expect(
            typo.stderr.hasPrefix("remote-auth: Error: Unknown option '--jsno'. Did you mean '--json'?\n"),
            "\(typo.stderr)"
        )
    }
}

/// Issue 22: a URL with CR or LF is refused (curl refuses it), and an argument that is not
/// UTF-8 (a header value) is refused rather than sent with U+FFFD in its place.
@Suite struct AlteredInputCLITests {
    @Test(arguments: ["http://127.0.0.1:9/a\r\nX-Injected: 1", "http://127.0.0.1:9/a\nb", "http://127.0.0.1:9/\u{7F}"])
    func aURLWithAControlCharacterIsRefused(_ url: String) async throws {
        let result = try await CLI.run(["request", url])
        #expect(result.status == 2)
        #expect(result.stderr.hasPrefix("remote-auth: invalid URL: the URL holds a control character (U+"), "\(result.stderr)")
    }

    @Test func aHeaderValueThatIsNotUTF8IsRefused() async throws {
        // Process takes Strings; bash passes the bytes as they are.
        let errors = FileManager.default.temporaryDirectory.appendingPathComponent("utf8-\(UUID().uuidString).err")
        _ = FileManager.default.createFile(atPath: errors.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: errors) }
        let handle = try FileHandle(forWritingTo: errors)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = [
            "-c", #"exec "$0" request -H $'X-Bytes: \xff\xfe' http://127.0.0.1:9/"#, try CLI.binary().path,
        ]
        process.standardError = handle
        process.standardOutput = FileHandle.nullDevice
        try await CLI.launchAndWait(process)
        try handle.close()
        #expect(process.terminationStatus == 2)
        #expect(
            try String(contentsOf: errors, encoding: .utf8)
                == "remote-auth: argument 3 is not valid UTF-8: refusing it rather than sending U+FFFD in place of its bytes\n"
        )
    }
}
