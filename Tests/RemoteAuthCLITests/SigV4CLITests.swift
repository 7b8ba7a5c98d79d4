import AsyncHTTPClient
import Foundation
import HTTPTypes
import NIOCore
import NIOHTTP1
import RemoteAuth
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

    /// `-T FILE` and `-T -` to service `s3`: an `aws-chunked` upload (the default for `-T` to
    /// S3), each 64 KiB chunk signed, the sandbox storing the decoded body; `--aws-payload`
    /// choosing another mode; streaming refused for another service.
    @Test func uploadsAreChunkedAndSigned() async throws {
        let sandbox = try SandboxProcess([])
        let base = try await sandbox.baseURL()
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("upload-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: file) }
        // 70000 octets: one chunk of 65536, one of 4464, the final one.
        let head = "status=uploaded%20with%20-T&pad="
        try Data((head + String(repeating: "x", count: 70000 - head.utf8.count)).utf8).write(to: URL(fileURLWithPath: file))
        let key = ["--aws-sigv4", "aws:amz:us-east-1:s3", "-u", "AKIDSANDBOX:sandbox-aws-secret"]
        let update = base + "/1.1/statuses/update.json"

        let uploaded = try await CLI.run(["request", "-v", "-X", "POST", "-T", file] + key + [update])
        #expect(uploaded.status == 0, "\(uploaded.stderr)")
        #expect(uploaded.stdout.contains("\"text\":\"uploaded with -T\""), "\(uploaded.stdout)")
        for line in [
            "> POST /1.1/statuses/update.json HTTP/1.1", "> Content-Encoding: aws-chunked",
            "> x-amz-decoded-content-length: 70000", "> Content-Length: 70265",
            "> x-amz-content-sha256: STREAMING-AWS4-HMAC-SHA256-PAYLOAD",
        ] {
            #expect(uploaded.stderr.contains(line + "\n"), "\(line) in \(uploaded.stderr)")
        }
        #expect(!uploaded.stderr.contains("sandbox-aws-secret"))

        let piped = try await CLI.run(["request", "-X", "POST", "-T", "-"] + key + [update], stdin: "status=from%20stdin")
        #expect(piped.status == 0, "\(piped.stderr)")
        #expect(piped.stdout.contains("\"text\":\"from stdin\""), "\(piped.stdout)")

        let unsigned = try await CLI.run(["request", "-v", "-X", "POST", "-T", file, "--aws-payload", "unsigned"] + key + [update])
        #expect(unsigned.status == 0, "\(unsigned.stderr)")
        #expect(unsigned.stderr.contains("> x-amz-content-sha256: UNSIGNED-PAYLOAD\n"))
        #expect(!unsigned.stderr.contains("aws-chunked"))

        let otherService = try await CLI.run(
            ["request", "-T", file, "--aws-payload", "streaming", "--aws-sigv4", "aws:amz:us-east-1:sandbox", "-u", "AKIDSANDBOX:s", update]
        )
        #expect(otherService.status == 2)
        #expect(
            otherService.stderr
                == "remote-auth: --aws-payload streaming is S3's aws-chunked upload: the service must be s3, not sandbox\n"
        )
    }

    /// An `aws-chunked` upload to the sandbox process with one octet of its second chunk
    /// flipped: `403` with S3's `SignatureDoesNotMatch`, and the status is not stored.
    @Test func aTamperedChunkIsRefusedByTheSandbox() async throws {
        let sandbox = try SandboxProcess([])
        let base = try await sandbox.baseURL()
        let signer = AWS.SigV4Signer(
            credentials: AWS.Credentials(accessKeyID: "AKIDSANDBOX", secretAccessKey: "sandbox-aws-secret"),
            region: "us-east-1",
            service: "s3"
        )
        let payload = Array(("status=tampered&pad=" + String(repeating: "y", count: 9000)).utf8)
        var request = try HTTPRequest(method: .post, absoluteURL: base + "/1.1/statuses/update.json")
        request.headerFields[.contentType] = "application/x-www-form-urlencoded"
        let (signed, chunkSigner) = try signer.signStreaming(request, decodedLength: payload.count, chunkSize: 8192)
        var chunks = chunkSigner
        var body = try chunks.frame(payload[..<8192]) + chunks.frame(payload[8192...]) + chunks.frame([UInt8]())
        body[87 + 8192 + 2 + 87 + 10] ^= 0x01
        var outgoing = HTTPClientRequest(url: base + "/1.1/statuses/update.json")
        outgoing.method = .POST
        for field in signed.request.headerFields { outgoing.headers.add(name: field.name.rawName, value: field.value) }
        outgoing.body = .bytes(ByteBuffer(bytes: body))
        let response = try await HTTPClient.shared.execute(outgoing, timeout: CLI.hangGuardAmount)
        let text = String(buffer: try await response.body.collect(upTo: 1 << 16))
        #expect(response.status.code == 403)
        #expect(text == #"{"error":"SignatureDoesNotMatch: a chunk's signature does not match"}"#)
        let timeline = try await CLI.run([
            "request", "--aws-sigv4", "aws:amz:us-east-1:s3", "-u", "AKIDSANDBOX:sandbox-aws-secret",
            base + "/1.1/statuses/home_timeline.json",
        ])
        #expect(timeline.status == 0, "\(timeline.stderr)")
        #expect(timeline.stdout.hasPrefix("["), "\(timeline.stdout)")
        #expect(!timeline.stdout.contains("tampered"))
    }
}
