import Foundation
import RemoteAuth
import RemoteAuthSandbox
import Testing

/// `remote-auth request --cacert/--pin/--insecure` against `remote-auth sandbox --tls
/// --write-certificate`, and `--client-ca` with `--cert/--key`.
@Suite(.timeLimit(.minutes(5))) struct TLSCLITests {
    let aliceJSON = "{\"authenticated\": true, \"user\": \"alice\"}"
    /// A pin nobody serves: the backup key's.
    let backup = "sha256//" + Data(repeating: 7, count: 32).base64EncodedString()

    @Test func pinsAndCABundle() async throws {
        let certificate = FileManager.default.temporaryDirectory.appendingPathComponent("sandbox-\(UUID()).pem").path
        defer { try? FileManager.default.removeItem(atPath: certificate) }
        let sandbox = try SandboxProcess(["--tls", "--write-certificate", certificate])
        let lines = try await sandbox.banner()
        let base = try await sandbox.baseURL()
        let pinLine = try #require(lines.first(where: { $0.hasPrefix("TLS SPKI pin: ") }))
        let pin = String(pinLine.dropFirst("TLS SPKI pin: ".count))
        // The written certificate is the one served: its pin is the printed one.
        let written = try String(contentsOfFile: certificate, encoding: .utf8)
        #expect(try SandboxTLS.spkiSHA256(certificateChainPEM: written) == String(pin.dropFirst("sha256//".count)))

        let user = ["--user", "alice:wonderland"]
        let trusted = try await CLI.run(["request", "--cacert", certificate] + user + [base + "/basic/"])
        #expect(trusted.status == 0)
        #expect(trusted.stdout == aliceJSON)
        #expect(trusted.stderr == "")

        let pinned = try await CLI.run(
            ["request", "--cacert", certificate, "--pin", pin, "--pin", backup, "--preemptive"] + user + [
                base + "/basic/"
            ]
        )
        #expect(pinned.status == 0)
        #expect(pinned.stdout == aliceJSON)

        let other = "sha256//" + Data(repeating: 9, count: 32).base64EncodedString()
        let refused = try await CLI.run(
            ["request", "--cacert", certificate, "--pin", other, "--pin", backup, "--preemptive"] + user + [
                base + "/basic/"
            ]
        )
        #expect(refused.status == 90)
        #expect(refused.stdout == "")
        #expect(
            refused.stderr
                == "remote-auth: the server 127.0.0.1 is not trusted (pinMismatch): no certificate in the chain carries a pinned key (pinned: \([other, backup].sorted { try! SPKIPin($0) < SPKIPin($1) }.joined(separator: ", "))); it presented the keys \(pin); nothing was sent: check the --pin values against the keys it presented\n"
        )

        // Without --cacert the system's roots apply, and they do not know a self-signed certificate.
        let untrusted = try await CLI.run(["request"] + ["--pin", pin, "--pin", backup] + [base + "/basic/"])
        #expect(untrusted.status == 60)
        #expect(
            untrusted.stderr.hasPrefix(
                "remote-auth: certificate not trusted: the server 127.0.0.1 is not trusted (untrustedChain): "
            )
        )
        #expect(untrusted.stderr.hasSuffix("; nothing was sent: pass --cacert FILE, or -k for local testing\n"))

        // Without any TLS option (AsyncHTTPClient and the system's roots): the same status and advice.
        let system = try await CLI.run(["request", base + "/basic/"])
        #expect(system.status == 60)
        #expect(system.stdout == "")
        #expect(system.stderr.hasPrefix("remote-auth: request failed: certificate not trusted: "), "\(system.stderr)")
        #expect(system.stderr.hasSuffix("; pass --cacert FILE, or -k for local testing\n"), "\(system.stderr)")

        let insecure = try await CLI.run(["request", "--insecure"] + user + [base + "/basic/"])
        #expect(insecure.status == 0)
        #expect(insecure.stdout == aliceJSON)
        #expect(insecure.stderr.hasPrefix("remote-auth: warning: --insecure: the server's certificate is not checked"))

        // curl's -k --pinnedpubkey: the pin alone trusts the self-signed server (one pin is
        // enough), and another pin is still refused (90).
        let pinOnly = try await CLI.run(["request", "-k", "--pin", pin] + user + [base + "/basic/"])
        #expect(pinOnly.status == 0, "\(pinOnly.stderr)")
        #expect(pinOnly.stdout == aliceJSON)
        #expect(
            pinOnly.stderr
                == "remote-auth: warning: --insecure with --pin: only the server's key is checked (no CA, host name or dates)\n"
        )
        let wrongPin = try await CLI.run(["request", "-k", "--pin", other, "--preemptive"] + user + [base + "/basic/"])
        #expect(wrongPin.status == 90, "\(wrongPin.stderr)")
        #expect(wrongPin.stdout == "")
    }

    @Test func badTLSInput() async throws {
        let url = "https://127.0.0.1:1/"
        let cases: [([String], String)] = [
            (
                ["--pin", "sha256//" + Data(repeating: 1, count: 32).base64EncodedString()],
                "remote-auth: bad --pin: public-key pinning needs at least two distinct pins"
            ),
            (["--pin", "sha1//AAAA", "--pin", "sha1//BBBB"], "remote-auth: bad --pin: unsupported pin hash 'sha1'"),
            (["--pin", "sha256//short=", "--pin", "sha256//other="], "remote-auth: bad --pin: "),
            (["--cacert", "/nonexistent.pem"], "remote-auth: unreadable CA bundle: cannot read '/nonexistent.pem'"),
            (["--insecure", "--cacert", "/etc/hostname"], "remote-auth: --insecure contradicts --cacert"),
            (["--cert", "/nonexistent.pem"], "remote-auth: unreadable client certificate"),
            (["--key", "/nonexistent.pem"], "remote-auth: missing option: --key needs --cert"),
        ]
        for (arguments, prefix) in cases {
            let result = try await CLI.run(["request"] + arguments + [url])
            #expect(result.status == 2, "\(arguments)")
            #expect(result.stdout == "")
            #expect(result.stderr.hasPrefix(prefix), "\(arguments): \(result.stderr)")
        }
    }

    @Test func mutualTLS() async throws {
        let server = try SandboxTLS.selfSigned()
        let client = try SandboxTLS.selfSigned()
        let serverCert = try CLI.temporaryFile(server.certificateChainPEM)
        let serverKey = try CLI.temporaryFile(server.privateKeyPEM)
        let clientCert = try CLI.temporaryFile(client.certificateChainPEM)
        let clientKey = try CLI.temporaryFile(client.privateKeyPEM)
        let sandbox = try SandboxProcess(["--cert", serverCert, "--key", serverKey, "--client-ca", clientCert])
        let lines = try await sandbox.banner()
        #expect(lines.contains("Mutual TLS: a client certificate from --client-ca is required."))
        let base = try await sandbox.baseURL()
        let with = try await CLI.run(
            ["request", "--cacert", serverCert, "--cert", clientCert, "--key", clientKey, "--user", "alice:wonderland"]
                + [base + "/basic/"]
        )
        #expect(with.status == 0)
        #expect(with.stdout == aliceJSON)
        let without = try await CLI.run([
            "request", "--cacert", serverCert, "--user", "alice:wonderland", base + "/basic/",
        ])
        #expect(without.status == 35 || without.status == 56, "\(without.status)")
        #expect(without.stderr.hasPrefix("remote-auth: request failed: "))
        #expect(without.stderr.contains("client certificate"), "\(without.stderr)")
    }
}
