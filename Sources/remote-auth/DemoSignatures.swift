import Foundation
import RemoteAuth
import RemoteAuthSandbox

/// The signed-request steps of `remote-auth demo` beyond OAuth 1.0a, against the sandbox.
extension DemoCommand {
    static let signatureSteps: [Step] = [
        Step(name: "AWS Signature Version 4") { context in
            let signer = AWS.SigV4Signer(
                credentials: AWS.Credentials(accessKeyID: "AKIDSANDBOX", secretAccessKey: "sandbox-aws-secret"),
                region: "us-east-1",
                service: "execute-api",
                now: unixNow
            )
            let client = AuthenticatingClient(
                transport: context.transport,
                authenticators: [
                    ScopedAuthenticator(AWS.SigV4Authenticator(signer: signer), for: try AuthScope(url: context.base))
                ]
            )
            let text = "signed with AWS SigV4"
            let (posted, _) = try await client.send(
                try HTTPRequest(
                    method: .post,
                    absoluteURL: context.base + "/1.1/statuses/update.json",
                    headerFields: [.contentType: "application/x-www-form-urlencoded"]
                ),
                body: Array(FormURLEncoding.encode([("status", text)]).utf8)
            )
            try expect(posted.status == .ok, "statuses/update answered \(posted.status.code)")
            let (me, body) = try await client.get(context.base + "/1.1/account/verify_credentials.json")
            try expect(me.status == .ok, "verify_credentials answered \(me.status.code)")
            let user = try JSONSerialization.jsonObject(with: Data(body)) as? [String: Any]
            try expect(user?["screen_name"] as? String == "alice", "the key does not act for alice")
            return "posted \"\(text)\" as alice, verified by the sandbox"
        },
        Step(name: "HTTP Message Signatures (RFC 9421)") { context in
            // alice's Ed25519 test key signs; the sandbox's response key must sign the answer,
            // covering its status, its Content-Digest and alice's signature (RFC 9421 §2.4).
            let keys = SandboxConfiguration.DemoSignatureKeys.self
            let key = try HTTPMessageSignatures.SigningKey(
                pem: keys.clientPrivateKeyPEM,
                algorithm: .ed25519,
                keyID: keys.clientKeyID
            )
            let responseKey = try HTTPMessageSignatures.VerificationKey(
                pem: keys.responsePublicKeyPEM,
                keyID: keys.responseKeyID,
                algorithms: [.ed25519]
            )
            var verifier = HTTPMessageSignatures.Verifier(keys: [responseKey])
            verifier.requiredComponents = HTTPSignatureOptions.responseComponents
            var authenticator = HTTPMessageSignatures.Authenticator(
                signer: HTTPMessageSignatures.Signer(
                    key: key,
                    label: HTTPSignatureOptions.requestLabel,
                    components: [.method, .targetURI, .authority],
                    now: unixNow
                ),
                contentDigest: [.sha256],
                responseVerifier: verifier
            )
            authenticator.responseLabel = HTTPSignatureOptions.responseLabel
            let client = AuthenticatingClient(
                transport: context.transport,
                authenticators: [ScopedAuthenticator(authenticator, for: try AuthScope(url: context.base))]
            )
            let asked = HTTPMessageSignatures.AcceptSignature([
                (
                    HTTPSignatureOptions.responseLabel,
                    HTTPMessageSignatures.SignatureInput(
                        components: HTTPSignatureOptions.responseComponents,
                        parameters: []
                    )
                )
            ])
            let text = "signed with RFC 9421"
            let (posted, body) = try await client.send(
                try HTTPRequest(
                    method: .post,
                    absoluteURL: context.base + "/1.1/statuses/update.json",
                    headerFields: [
                        .contentType: "application/x-www-form-urlencoded",
                        HTTPMessageSignatures.acceptSignatureField: try asked.fieldValue(),
                    ]
                ),
                body: Array(FormURLEncoding.encode([("status", text)]).utf8)
            )
            try expect(posted.status == .ok, "statuses/update answered \(posted.status.code)")
            let status = try JSONSerialization.jsonObject(with: Data(body)) as? [String: Any]
            try expect(status?["text"] as? String == text, "the status posted is not the one signed")
            return "posted \"\(text)\" as alice (ed25519); the sandbox's signed response verified"
        },
    ]
}
