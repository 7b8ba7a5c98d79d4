import Foundation
import Testing

/// `remote-auth request --aws-sigv4` against a `remote-auth sandbox` process, which verifies
/// SigV4 on its status API with the key its banner prints.
@Suite(.timeLimit(.minutes(5))) struct SigV4CLITests {
    @Test func requestSignsAndTheSandboxVerifies() async throws {
        let sandbox = try SandboxProcess([])
        let base = try await sandbox.baseURL()
        #expect(try await sandbox.banner().contains("  aws key AKIDSANDBOX / sandbox-aws-secret  (alice, SigV4, any region and service)"))

        let posted = try await CLI.run([
            "request", "--aws-sigv4", "aws:amz:eu-west-1:execute-api", "-u", "AKIDSANDBOX:sandbox-aws-secret",
            "-d", "status=signed with SigV4 ü", base + "/1.1/statuses/update.json",
        ])
        #expect(posted.status == 0, "\(posted.stderr)")
        #expect(posted.stdout.contains("\"text\":\"signed with SigV4 ü\""), "\(posted.stdout)")

        // The key from the environment, as the AWS tools read it.
        let fromEnvironment = try await CLI.run(
            ["request", "--aws-sigv4", "aws:amz:us-east-1:sandbox", base + "/1.1/account/verify_credentials.json"],
            environment: ["AWS_ACCESS_KEY_ID": "AKIDSANDBOX", "AWS_SECRET_ACCESS_KEY": "sandbox-aws-secret"]
        )
        #expect(fromEnvironment.status == 0, "\(fromEnvironment.stderr)")
        #expect(fromEnvironment.stdout.contains("\"screen_name\":\"alice\""))

        let wrong = try await CLI.run([
            "request", "-f", "--aws-sigv4", "aws:amz:us-east-1:sandbox", "-u", "AKIDSANDBOX:not-the-secret",
            base + "/1.1/account/verify_credentials.json",
        ])
        #expect(wrong.status == 22)
        #expect(!wrong.stderr.contains("not-the-secret"))

        let malformed = try await CLI.run([
            "request", "--aws-sigv4", "aws:us-east-1", "-u", "AKIDSANDBOX:sandbox-aws-secret", base + "/1.1/x",
        ])
        #expect(malformed.status == 2)
        #expect(malformed.stderr == "remote-auth: --aws-sigv4 must be aws:amz:REGION:SERVICE, not 'aws:us-east-1'\n")
    }

    /// The shared credentials file, as the AWS CLI reads it after the environment's keys:
    /// `AWS_PROFILE`'s section of `AWS_SHARED_CREDENTIALS_FILE` (else `[default]` of
    /// `~/.aws/credentials`); a profile that is not there is named, and nothing is sent.
    @Test func credentialsFromTheSharedFile() async throws {
        let sandbox = try SandboxProcess([])
        let base = try await sandbox.baseURL()
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("aws-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: home) }
        try FileManager.default.createDirectory(atPath: home + "/.aws", withIntermediateDirectories: true)
        try Data(
            """
            [default]
            aws_access_key_id = AKIDNOTHERE
            aws_secret_access_key = wrong

            # the sandbox's key
            [sandbox]
            aws_access_key_id=AKIDSANDBOX
            aws_secret_access_key = sandbox-aws-secret
            s3 =
              max_concurrent_requests = 4

            """.utf8
        ).write(to: URL(fileURLWithPath: home + "/.aws/credentials"))
        let call = ["request", "-f", "--aws-sigv4", "aws:amz:us-east-1:sandbox", base + "/1.1/account/verify_credentials.json"]
        let profile = try await CLI.run(call, environment: ["HOME": home, "AWS_PROFILE": "sandbox"])
        #expect(profile.status == 0, "\(profile.stderr)")
        #expect(profile.stdout.contains("\"screen_name\":\"alice\""))
        // [default] holds a key the sandbox does not know: refused, so it was the one used.
        let fallback = try await CLI.run(call, environment: ["HOME": home])
        #expect(fallback.status == 22, "\(fallback.stderr)")
        let named = try await CLI.run(
            call,
            environment: ["HOME": "/nonexistent", "AWS_SHARED_CREDENTIALS_FILE": home + "/.aws/credentials", "AWS_PROFILE": "ci"]
        )
        #expect(named.status == 2)
        #expect(
            named.stderr == "remote-auth: missing credentials: '\(home)/.aws/credentials' has no profile [ci]\n",
            "\(named.stderr)"
        )
    }
}
