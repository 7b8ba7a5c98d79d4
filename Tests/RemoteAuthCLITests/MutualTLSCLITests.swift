import Foundation
import RemoteAuth
import RemoteAuthSandbox
import Testing

/// `authorize oauth2 --client-auth self-signed-tls-client-auth --cert/--key` against a TLS
/// sandbox (RFC 8705 §2.2), then `request --profile`, `token --profile` and `revoke --profile`
/// presenting the same certificate from the profile, as the bound token needs (§3).
@Suite(.timeLimit(.minutes(5))) struct MutualTLSCLITests {
    @Test func selfSignedClientSignsInAndTheProfilePresentsTheCertificate() async throws {
        let home = OAuth2CLITests.home()
        defer { try? FileManager.default.removeItem(atPath: home) }
        let environment = ["REMOTE_AUTH_HOME": home]
        let server = try SandboxTLS.selfSigned()
        let client = try SandboxTLS.selfSigned()
        let other = try SandboxTLS.selfSigned()
        let serverCert = try CLI.temporaryFile(server.certificateChainPEM)
        let serverKey = try CLI.temporaryFile(server.privateKeyPEM)
        let clientCert = try CLI.temporaryFile(client.certificateChainPEM)
        let clientKey = try CLI.temporaryFile(client.privateKeyPEM)
        let otherCert = try CLI.temporaryFile(other.certificateChainPEM)
        let otherKey = try CLI.temporaryFile(other.privateKeyPEM)
        let config = try CLI.temporaryFile(
            String(
                decoding: try JSONSerialization.data(withJSONObject: [
                    "oauth2Clients": [
                        [
                            "id": "selfie", "tokenEndpointAuthMethod": "self_signed_tls_client_auth",
                            "tlsClientCertificatePEM": client.certificateChainPEM,
                        ]
                    ]
                ]),
                as: UTF8.self
            )
        )
        let sandbox = try SandboxProcess(["--cert", serverCert, "--key", serverKey, "--config", config])
        let base = try await sandbox.baseURL()
        let timeline = base + "/1.1/statuses/home_timeline.json"

        let signIn: [String] = [
            "authorize", "oauth2", "--client-credentials", "--profile", "selfie", "--issuer", base,
            "--client-id", "selfie", "--client-auth", "self-signed-tls-client-auth", "--cacert", serverCert,
            "--scope", "statuses:read",
        ]
        let missing = try await CLI.run(signIn, environment: environment)
        #expect(missing.status == 2)
        #expect(missing.stdout == "")
        #expect(
            missing.stderr
                == "remote-auth: missing option: --client-auth self-signed-tls-client-auth needs the client certificate: --cert FILE --key FILE (or --cert-type p12)\n"
        )
        let wrong = try await CLI.run(signIn + ["--cert", otherCert, "--key", otherKey], environment: environment)
        #expect(wrong.status == 1)
        #expect(
            wrong.stderr.hasPrefix("remote-auth: sign-in failed: the server refused: invalid_client"),
            "\(wrong.stderr)"
        )

        let signedIn = try await CLI.run(signIn + ["--cert", clientCert, "--key", clientKey], environment: environment)
        #expect(signedIn.status == 0, "\(signedIn.stderr)")
        #expect(signedIn.stdout == "Signed in; saved as profile 'selfie'.\n")
        let show = try await CLI.run(["profiles", "show", "selfie"], environment: environment)
        #expect(show.stdout.contains("client: selfie (self_signed_tls_client_auth)\n"), "\(show.stdout)")
        #expect(show.stdout.contains("client certificate: \(clientCert)\n"), "\(show.stdout)")

        // The profile's certificate, without --cert: the bound token is accepted.
        let request = try await CLI.run(
            ["request", "--profile", "selfie", "--cacert", serverCert, timeline],
            environment: environment
        )
        #expect(request.status == 0, "\(request.stderr)")
        #expect(request.stdout.hasPrefix("["), "\(request.stdout)")
        // Another certificate on the command line: the bound token is refused (RFC 8705 §3), and
        // the client credentials renewal with that certificate too (§2.2).
        let another = try await CLI.run(
            [
                "request", "--profile", "selfie", "--cacert", serverCert, "--cert", otherCert, "--key", otherKey,
                timeline,
            ],
            environment: environment
        )
        #expect(another.status != 0)
        #expect(another.stdout == "")
        #expect(
            another.stderr.hasPrefix(
                "remote-auth: the server refused: invalid_client (the certificate is not the one registered for the client (RFC 8705 §2.2))"
            ),
            "\(another.stderr)"
        )

        let token = try await CLI.run(
            ["token", "--profile", "selfie", "--cacert", serverCert],
            environment: environment
        )
        #expect(token.status == 0, "\(token.stderr)")
        #expect(!token.stdout.isEmpty)
        let revoked = try await CLI.run(
            ["revoke", "--profile", "selfie", "--cacert", serverCert],
            environment: environment
        )
        #expect(revoked.status == 0, "\(revoked.stderr)")
        #expect(revoked.stdout == "Revoked and removed profile 'selfie'.\n")
    }
}
