import Foundation
import RemoteAuth

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
        }
    ]
}
