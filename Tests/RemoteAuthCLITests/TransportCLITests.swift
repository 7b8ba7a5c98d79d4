import Foundation
import Testing

/// `remote-auth request` below HTTP: failures named by what happened, at once, and the two
/// time limits curl has.
@Suite(.timeLimit(.minutes(5)))
struct TransportCLITests {
    /// 7 (refused), not 28 (the 30 s default deadline): it gave up at once, however loaded the
    /// machine, with no wall-clock bound.
    @Test func refusedConnectionFailsAtOnce() async throws {
        let result = try await CLI.run(["request", "http://127.0.0.1:1/"])
        #expect(result.status == 7)
        #expect(result.stdout == "")
        #expect(
            result.stderr
                == "remote-auth: request failed: http://127.0.0.1:1 refused the connection: is the server running, and is the port right?\n"
        )
    }

    /// 6 (no such host), not 28 (the deadline): it did not wait for the time limits.
    @Test func unknownHostFailsAtOnce() async throws {
        let result = try await CLI.run([
            "request", "--connect-timeout", "2", "--max-time", "3", "http://nonexistent.invalid/",
        ])
        #expect(result.status == 6)
        #expect(
            result.stderr
                == "remote-auth: request failed: the host name 'nonexistent.invalid' does not resolve: check the host name\n"
        )
    }

    /// A server that accepts and never answers: exit 28 at --max-time.
    @Test func silentServerTimesOut() async throws {
        try await withEchoServer(silent: true) { server in
            let result = try await CLI.run(["request", "--max-time", "1", server.base + "/"])
            // --max-time 1, not the transport's default deadline of 30 s: the error names the
            // limit in force, and the server saw the connection closed before the default would
            // have ended it (its own time, not the process's start-up, which can take a minute
            // on a loaded machine or under ThreadSanitizer).
            let held = try await server.heldConnections(count: 1)
            #expect(held.count == 1)
            #expect(held.allSatisfy { $0 < .seconds(30) }, "\(held)")
            #expect(result.status == 28)
            #expect(result.stdout == "")
            #expect(result.stderr.hasPrefix("remote-auth: request failed: "), "\(result.stderr)")
            #expect(
                result.stderr.hasSuffix("; --connect-timeout 10 s and --max-time 1 s set the limits\n"),
                "\(result.stderr)"
            )
        }
    }

    /// --connect-timeout bounds the TLS handshake too on the NIO path (taken with -k, --cacert,
    /// --pin or --cert): a server that accepts and never answers the ClientHello fails at the
    /// connect timeout (1 s), not at --max-time (60 s), and the message says which limit.
    @Test(arguments: [["-k"], ["-k", "--pin", "sha256//" + String(repeating: "A", count: 43) + "="]])
    func connectTimeoutBoundsTheTLSHandshake(_ tls: [String]) async throws {
        try await withEchoServer(silent: true) { server in
            let result = try await CLI.run(
                ["request", "-s", "-S", "--connect-timeout", "1", "--max-time", "60"] + tls
                    + ["https://127.0.0.1:\(server.port)/"]
            )
            #expect(result.status == 28)
            #expect(
                result.stderr.hasPrefix(
                    "remote-auth: request failed: connecting to https://127.0.0.1:\(server.port) took longer than the connect timeout"
                ),
                "\(result.stderr)"
            )
            #expect(result.stderr.contains("TLS handshake included"), "\(result.stderr)")
        }
    }

    @Test(arguments: [["--max-time", "0"], ["--connect-timeout", "0"], ["--max-time", "nan"]])
    func timeLimitsMustBePositive(_ arguments: [String]) async throws {
        let result = try await CLI.run(["request"] + arguments + ["http://127.0.0.1:1/"])
        #expect(result.status == 2)
        #expect(result.stderr == "remote-auth: \(arguments[0]) needs a number of seconds greater than 0\n")
    }
}
