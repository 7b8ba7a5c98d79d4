import Foundation
import HTTPTypes
import RemoteAuth
import Testing

/// `remote-auth sandbox --registration-token TOKEN --state FILE`: registration needs the initial
/// access token (RFC 7591 §3), and a registered client outlives a SIGKILL.
@Suite(.timeLimit(.minutes(5))) struct SandboxRegistrationCLITests {
    static func register(_ base: String, token: String?) async throws -> (Int, String) {
        var fields: HTTPFields = [.contentType: "application/json"]
        if let token { fields[.authorization] = "Bearer " + token }
        return try await httpExchange(
            try HTTPRequest(method: .post, absoluteURL: base + "/oauth2/register", headerFields: fields),
            body: Array(#"{"grant_types":["client_credentials"],"response_types":[]}"#.utf8)
        )
    }

    @Test func registrationTokenAndState() async throws {
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("state-\(UUID().uuidString).json")
            .path
        defer { try? FileManager.default.removeItem(atPath: state) }
        let first = try SandboxProcess(["--state", state, "--registration-token", "let-me-register"])
        let base = try await first.baseURL()
        let (refused, _) = try await Self.register(base, token: nil)
        #expect(refused == 401)
        let (wrong, _) = try await Self.register(base, token: "let-me-in")
        #expect(wrong == 401)
        let (status, body) = try await Self.register(base, token: "let-me-register")
        #expect(status == 201, "\(body)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any])
        let id = try #require(json["client_id"] as? String)
        let secret = try #require(json["client_secret"] as? String)
        await first.kill()

        let second = try SandboxProcess(["--state", state])
        let again = try await second.baseURL()
        var fields: HTTPFields = [.contentType: "application/x-www-form-urlencoded"]
        fields[.authorization] = try BasicCredentials(user: id, password: secret).authorization
        let (issued, tokens) = try await httpExchange(
            try HTTPRequest(method: .post, absoluteURL: again + "/oauth2/token", headerFields: fields),
            body: Array("grant_type=client_credentials".utf8)
        )
        #expect(issued == 200, "\(tokens)")
        await second.kill()
    }
}
