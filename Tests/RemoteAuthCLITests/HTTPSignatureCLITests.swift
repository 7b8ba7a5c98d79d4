import Foundation
import Testing

/// `remote-auth request --signature-key` and `sign http-signature` (RFC 9421) against a
/// `remote-auth sandbox` process, which verifies the signatures on its status API with the key
/// its banner names and signs its responses when asked.
@Suite(.timeLimit(.minutes(5))) struct HTTPSignatureCLITests {
    static func temporaryDirectory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ra-9421-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    /// RFC 9421 §B.1.4's Ed25519 public key: a key that does not verify the sandbox's responses.
    static let otherPublicKey = """
        -----BEGIN PUBLIC KEY-----
        MCowBQYDK2VwAyEAJrQLj5P/89iXES9+vFgrIy29clF9CC/oPPsw3c5D0bs=
        -----END PUBLIC KEY-----

        """

    @Test func requestSignsTheSandboxVerifiesAndSignsItsAnswer() async throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let privateKey = directory.appendingPathComponent("alice.pem").path
        let responseKey = directory.appendingPathComponent("response.pem").path
        let sandbox = try SandboxProcess(["--write-signature-key", privateKey, "--write-response-key", responseKey])
        let base = try await sandbox.baseURL()
        let banner = try await sandbox.banner()
        #expect(
            banner.contains(
                "  http signature key sandbox-alice-ed25519  (alice, ed25519, RFC 9421; private key: remote-auth sandbox --write-signature-key FILE)"
            )
        )
        #expect(banner.contains { $0.hasPrefix("  response signature key sandbox-response-ed25519  (ed25519, ") })
        let mode = try FileManager.default.attributesOfItem(atPath: privateKey)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        // The private key is written, never printed.
        let pem = try String(contentsOfFile: privateKey, encoding: .utf8)
        #expect(pem.hasPrefix("-----BEGIN PRIVATE KEY-----"))
        #expect(!banner.joined().contains(pem.split(separator: "\n")[1]))

        let signing = ["--signature-key", privateKey, "--signature-keyid", "sandbox-alice-ed25519"]
        let posted = try await CLI.run(
            ["request"] + signing + ["-d", "status=signed with RFC 9421 ü", base + "/1.1/statuses/update.json"]
        )
        #expect(posted.status == 0, "\(posted.stderr)")
        #expect(posted.stdout.contains("\"text\":\"signed with RFC 9421 ü\""), "\(posted.stdout)")

        // The response is asked for (Accept-Signature) and verified with the sandbox's key.
        let verified = try await CLI.run(
            ["request", "-i"] + signing + [
                "--verify-response-key", responseKey, base + "/1.1/account/verify_credentials.json",
            ]
        )
        #expect(verified.status == 0, "\(verified.stderr)")
        #expect(verified.stdout.contains("\"screen_name\":\"alice\""))
        #expect(
            verified.stdout.contains(
                "Signature-Input: res1=(\"@status\" \"content-digest\" \"signature\";key=\"sig1\";req);created="
            ),
            "\(verified.stdout)"
        )

        // A key the response does not verify with: exit 110, nothing on stdout, the rule named.
        let otherKey = directory.appendingPathComponent("other.pem")
        try Self.otherPublicKey.write(to: otherKey, atomically: true, encoding: .utf8)
        let refused = try await CLI.run(
            ["request"] + signing + [
                "--verify-response-key", otherKey.path, base + "/1.1/account/verify_credentials.json",
            ]
        )
        #expect(refused.status == 110)
        #expect(refused.stdout == "")
        #expect(
            refused.stderr
                == "remote-auth: the response's signature does not verify (RFC 9421 §3.2, invalidSignature): the signature 'res1' does not verify with the key 'sandbox-response-ed25519'\n"
        )

        // An unknown keyid and a missing component: 401 naming the rule.
        let unknown = try await CLI.run(
            [
                "request", "-f", "--signature-key", privateKey, "--signature-keyid", "nobody",
                base + "/1.1/account/verify_credentials.json",
            ]
        )
        #expect(unknown.status == 22)
        let missing = try await CLI.run(
            ["request"] + signing + [
                "--signature-components", "@method @path", base + "/1.1/account/verify_credentials.json",
            ]
        )
        #expect(missing.status == 1)
        #expect(
            missing.stdout
                == "{\"error\":\"HTTP Message Signatures (RFC 9421) missingRequiredComponent: the signature 'sig1' does not cover \\\"@target-uri\\\"\"}"
        )

        // What sign http-signature prints, sent by hand with curl's -H, is accepted too.
        let fields = try await CLI.run(
            [
                "sign", "http-signature", "--key", privateKey, "--keyid", "sandbox-alice-ed25519", "-d",
                "status=by hand",
                base + "/1.1/statuses/update.json",
            ]
        )
        #expect(fields.status == 0, "\(fields.stderr)")
        let lines = fields.stdout.split(separator: "\n").map(String.init)
        #expect(lines.map { $0.prefix { $0 != ":" } } == ["Content-Digest", "Signature-Input", "Signature"])
        let byHand = try await CLI.run(
            ["request", "-f", "-d", "status=by hand"] + lines.flatMap { ["-H", $0] } + [
                base + "/1.1/statuses/update.json"
            ]
        )
        #expect(byHand.status == 0, "\(byHand.stderr)")
        #expect(byHand.stdout.contains("\"text\":\"by hand\""))
    }

    @Test func badInputIsRefusedBeforeSending() async throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let short = directory.appendingPathComponent("short")
        try Data("too short".utf8).write(to: short)
        let result = try await CLI.run(
            ["request", "--signature-key", short.path, "--signature-keyid", "k", "http://127.0.0.1:9/"]
        )
        #expect(result.status == 2)
        #expect(
            result.stderr
                == "remote-auth: the key in '\(short.path)' cannot sign: an hmac-sha256 secret of 9 octets; 32 or more are required\n"
        )
        let noKey = try await CLI.run(["request", "--verify-response-key", short.path, "http://127.0.0.1:9/"])
        #expect(noKey.status == 2)
        let components = try await CLI.run(
            ["sign", "http-signature", "--key", short.path, "--keyid", "k", "--components", "@method;x", "https://e/"]
        )
        #expect(components.status == 2)
        #expect(components.stdout == "")
        // The secret never appears in what is printed.
        #expect(!result.stderr.contains("too short") && !components.stderr.contains("too short"))
    }

    /// RFC 9421 §B.2.6, byte for byte: Ed25519 is deterministic.
    @Test func signReproducesTheRFCsEd25519Example() async throws {
        let result = try await CLI.run([
            "sign", "http-signature", "--key", try Self.vector("rfc9421_test-key-ed25519.pem"), "--keyid",
            "test-key-ed25519", "--label", "sig-b26", "--created", "1618884473", "--lifetime", "0", "--omit-alg",
            "--components", "date @method @path @authority content-type content-length", "-X", "POST",
            "-H", "Date: Tue, 20 Apr 2021 02:07:55 GMT", "-H", "Content-Type: application/json",
            "-H", "Content-Length: 18", "https://example.com/foo?param=Value&Pet=dog",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stdout == """
                Signature-Input: sig-b26=("date" "@method" "@path" "@authority" "content-type" "content-length");created=1618884473;keyid="test-key-ed25519"
                Signature: sig-b26=:wqcAqbmYJ2ji2glfAMaRy4gruYYnx2nEFN2HN6jrnDnQCK1u02Gb04v9EDgwUPiu4A0w6vuQv5lIp5WPpBKRCw==:

                """
        )
    }

    static func vector(_ name: String, file: String = #filePath) throws -> String {
        var directory = URL(fileURLWithPath: file).deletingLastPathComponent()
        while directory.path != "/" {
            let candidate = directory.appendingPathComponent("Tests/Vectors/\(name)")
            if FileManager.default.fileExists(atPath: candidate.path) { return candidate.path }
            directory = directory.deletingLastPathComponent()
        }
        throw CLI.Missing(description: "Tests/Vectors/\(name)")
    }

    /// `Accept-Signature`'s parameters (RFC 9421 §5.1): the asked `nonce` and `tag` are the
    /// response signature's, which still verifies; a `keyid` or `alg` the sandbox has no key for
    /// is refused with `400` before the route runs.
    @Test func acceptSignatureParametersAreHonoured() async throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let privateKey = directory.appendingPathComponent("alice.pem").path
        let responseKey = directory.appendingPathComponent("response.pem").path
        let sandbox = try SandboxProcess(["--write-signature-key", privateKey, "--write-response-key", responseKey])
        let base = try await sandbox.baseURL()
        let signing = ["--signature-key", privateKey, "--signature-keyid", "sandbox-alice-ed25519"]
        let asked =
            #"res1=("@status" "content-digest");nonce="n-4711";tag="remote-auth-test";keyid="sandbox-response-ed25519";alg="ed25519""#
        let answered = try await CLI.run(
            ["request", "-i", "-H", "Accept-Signature: " + asked] + signing + [base + "/1.1/account/verify_credentials.json"]
        )
        #expect(answered.status == 0, "\(answered.stderr)")
        let input = answered.stdout.split(separator: "\r\n").first { $0.hasPrefix("Signature-Input: ") }
        #expect(input?.hasPrefix(#"Signature-Input: res1=("@status" "content-digest");created="#) == true, "\(answered.stdout)")
        #expect(
            input?.hasSuffix(#";nonce="n-4711";keyid="sandbox-response-ed25519";alg="ed25519";tag="remote-auth-test""#) == true,
            "\(input ?? "")"
        )
        for (parameter, message) in [
            (#"keyid="someone-else""#, #"asks for keyid \"someone-else\": the sandbox signs its responses with \"sandbox-response-ed25519\" only"#),
            (#"alg="rsa-pss-sha512""#, #"asks for alg \"rsa-pss-sha512\": the sandbox's response key is ed25519"#),
        ] {
            let refused = try await CLI.run(
                ["request", "-H", #"Accept-Signature: res1=("@status");"# + parameter] + signing + [
                    "-d", "status=not posted", base + "/1.1/statuses/update.json",
                ]
            )
            #expect(refused.status == 1)
            #expect(refused.stdout == #"{"error":"Accept-Signature (RFC 9421 §5.1) "# + message + #""}"#, "\(refused.stdout)")
        }
        let timeline = try await CLI.run(["request"] + signing + [base + "/1.1/statuses/home_timeline.json"])
        #expect(timeline.status == 0, "\(timeline.stderr)")
        #expect(!timeline.stdout.contains("not posted"))
    }
}
