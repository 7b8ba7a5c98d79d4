import Foundation
import Testing

/// `remote-auth jwt`: RFC 8037's Ed25519 example signed and verified byte for byte, its
/// thumbprint, and the refusals with their exit status.
@Suite struct JWTCLITests {
    /// RFC 8037 Appendix A.1's key.
    static let privateJWK =
        #"{"kty":"OKP","crv":"Ed25519","d":"nWGxne_9WmC6hEr0kuwsxERJxWl7MmkZcDusAxyuf2A","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"}"#
    static let publicJWK = #"{"kty":"OKP","crv":"Ed25519","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"}"#
    /// RFC 8037 Appendix A.4's JWS.
    static let token =
        "eyJhbGciOiJFZERTQSJ9.RXhhbXBsZSBvZiBFZDI1NTE5IHNpZ25pbmc.hgyY0il_MGCjP0JzlnLWG1PPOt7-09PGcvMg3AIbQR6dWbhijcNR4ki4iylGjg5BhVsPt9g7sVvpAr_MuM0KAg"

    func write(_ text: String) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("jwk-\(UUID().uuidString).json").path
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// RFC 7519 §4.1.4, §4.1.5: a JWT past its `exp` or before its `nbf` is refused (exit 1),
    /// unless `--leeway` covers the difference.
    @Test func timeClaimsAreChecked() async throws {
        let privateKey = try write(Self.privateJWK)
        let publicKey = try write(Self.publicJWK)
        defer {
            try? FileManager.default.removeItem(atPath: privateKey)
            try? FileManager.default.removeItem(atPath: publicKey)
        }
        // An hour either side, and a leeway of two hours to cover it: what the test tells apart
        // is "outside the leeway" from "inside", whatever the time the processes take to start on
        // a loaded machine or under ThreadSanitizer (a minute or more there).
        let now = Int64(Date().timeIntervalSince1970)
        for (claims, code) in [
            (#"{"sub":"a","exp":\#(now - 3600)}"#, "expired"), (#"{"sub":"a","nbf":\#(now + 3600)}"#, "notYetValid"),
        ] {
            let signed = try await CLI.run(["jwt", "sign", "--key", privateKey, claims])
            #expect(signed.status == 0, "\(signed.stderr)")
            let token = signed.stdout.trimmingCharacters(in: .newlines)
            let refused = try await CLI.run(["jwt", "verify", "--key", publicKey, "--alg", "EdDSA", token])
            #expect(refused.status == 1, "\(refused.stderr)")
            #expect(refused.stderr.hasPrefix("remote-auth: not verified: \(code): "), "\(refused.stderr)")
            #expect(refused.stdout.isEmpty)
            let lenient = try await CLI.run(
                ["jwt", "verify", "--key", publicKey, "--alg", "EdDSA", "--leeway", "7200", token]
            )
            #expect(lenient.status == 0, "\(lenient.stderr)")
        }
    }

    @Test func rfc8037ExampleEndToEnd() async throws {
        let privateKey = try write(Self.privateJWK)
        let publicKey = try write(Self.publicJWK)
        defer {
            try? FileManager.default.removeItem(atPath: privateKey)
            try? FileManager.default.removeItem(atPath: publicKey)
        }
        let signed = try await CLI.run(["jwt", "sign", "--key", privateKey, "--raw", "Example of Ed25519 signing"])
        #expect(signed.status == 0, "\(signed.stderr)")
        #expect(signed.stdout == Self.token + "\n")

        let verified = try await CLI.run(["jwt", "verify", "--key", publicKey, "--alg", "EdDSA", Self.token])
        #expect(verified.status == 0, "\(verified.stderr)")
        #expect(verified.stdout == #"{"header":{"alg":"EdDSA"},"payload":"Example of Ed25519 signing"}"# + "\n")

        // RFC 8037 Appendix A.3.
        let thumbprint = try await CLI.run(["jwt", "thumbprint", publicKey])
        #expect(thumbprint.stdout == "kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k\n")
        #expect(try await CLI.run(["jwt", "thumbprint", privateKey]).stdout == thumbprint.stdout)

        // The public JWK, to register: private members dropped, kid = the RFC 7638 thumbprint.
        let publicJWK =
            #"{"crv":"Ed25519","kid":"kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k","kty":"OKP","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"}"#
        #expect(try await CLI.run(["jwt", "jwk", privateKey]).stdout == publicJWK + "\n")
        #expect(try await CLI.run(["jwt", "jwk", "--set", publicKey]).stdout == #"{"keys":["# + publicJWK + "]}\n")
        let named = try await CLI.run(["jwt", "jwk", "--kid", "k1", privateKey]).stdout
        #expect(
            named == publicJWK.replacingOccurrences(of: "kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k", with: "k1")
                + "\n"
        )
        let symmetric = try write(#"{"kty":"oct","k":"c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0LXNlY3JldA"}"#)
        defer { try? FileManager.default.removeItem(atPath: symmetric) }
        let refused = try await CLI.run(["jwt", "jwk", symmetric])
        #expect(refused.status == 2)
        #expect(refused.stdout == "")
        #expect(!refused.stderr.contains("c2VjcmV0"))

        let notAllowed = try await CLI.run(["jwt", "verify", "--key", publicKey, "--alg", "ES256", Self.token])
        #expect(notAllowed.status == 1)
        #expect(notAllowed.stdout == "")
        #expect(
            notAllowed.stderr
                == "remote-auth: not verified: algorithmNotAllowed: alg 'EdDSA' is not allowed here (allowed: ES256)\n"
        )

        let tampered = Self.token.replacingOccurrences(of: ".hgyY", with: ".hgyZ")
        let bad = try await CLI.run(["jwt", "verify", "--key", publicKey, "--alg", "EdDSA", tampered])
        #expect(bad.status == 1)
        #expect(bad.stderr == "remote-auth: not verified: invalidSignature: the EdDSA signature does not verify\n")

        let none = try await CLI.run(["jwt", "verify", "--key", publicKey, "--alg", "none", "eyJhbGciOiJub25lIn0.e30."])
        #expect(none.status == 1)

        let noAlg = try await CLI.run(["jwt", "verify", "--key", publicKey, Self.token])
        #expect(noAlg.status == 2)
        #expect(noAlg.stderr.hasPrefix("remote-auth: Error: name the algorithms to allow with --alg"))
    }
}
