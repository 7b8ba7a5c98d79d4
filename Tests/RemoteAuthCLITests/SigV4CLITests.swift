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
}
