import Foundation
import HTTPTypes
import RemoteAuth
import Testing

#if canImport(Glibc)
import Glibc
private let streamSocket = Int32(SOCK_STREAM.rawValue)
#elseif canImport(Darwin)
import Darwin
private let streamSocket = SOCK_STREAM
#endif

/// A port free on 127.0.0.1 now: the kernel's pick for a socket bound to port 0, then closed.
func freeLoopbackPort() -> Int? {
    let socketFD = socket(AF_INET, streamSocket, 0)
    guard socketFD >= 0 else { return nil }
    defer { close(socketFD) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            bind(socketFD, $0, length) == 0 && getsockname(socketFD, $0, &length) == 0
        }
    }
    return bound ? Int(UInt16(bigEndian: address.sin_port)) : nil
}

/// `remote-auth authorize oauth2 --oidc --client-auth private-key-jwt --client-key PEM` against
/// a `remote-auth sandbox` process: the ID token validated and its claims printed (never the
/// token), UserInfo, the key path kept with the profile and used again by a refresh.
@Suite(.timeLimit(.minutes(5))) struct OpenIDConnectCLITests {
    @Test func oidcWithPrivateKeyJWT() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("oidc-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let key = JOSE.SigningKey.generateP256()
        let keyPath = directory.appendingPathComponent("client.pem").path
        try key.pemRepresentation!.write(toFile: keyPath, atomically: true, encoding: .utf8)
        var jwk = key.publicJWK!
        jwk.keyID = try jwk.thumbprint()
        let jwkJSON = String(decoding: try jwk.json(), as: UTF8.self)
        let config = directory.appendingPathComponent("sandbox.json").path
        try
            #"{"oauth2Clients":[{"id":"cli-jwt","redirectURIs":["http://127.0.0.1/callback"],"tokenEndpointAuthMethod":"private_key_jwt","jwks":{"keys":[\#(jwkJSON)]}}]}"#
            .write(toFile: config, atomically: true, encoding: .utf8)
        let sandbox = try SandboxProcess(["--auto-approve", "--access-token-ttl", "30", "--config", config])
        let base = try await sandbox.baseURL()
        let environment = ["REMOTE_AUTH_HOME": directory.appendingPathComponent("home").path]

        let authorize = try BackgroundCLI(
            [
                "authorize", "oauth2", "--profile", "op", "--issuer", base, "--client-id", "cli-jwt", "--oidc",
                "--scope", "profile email", "--client-auth", "private-key-jwt", "--client-key", keyPath,
                "--no-browser", "--timeout", CLI.hangGuardSeconds,
            ],
            environment: environment
        )
        try await authorize.waitForError("Waiting for the browser")
        let url = try #require(authorize.line(startingWith: base + "/oauth2/authorize?"), "\(authorize.errors)")
        #expect(url.contains("scope=openid%20profile%20email"))
        #expect(url.contains("&nonce="))
        let redirect = try await httpGetLocation(url)
        _ = try await httpExchange(try HTTPRequest(method: .get, absoluteURL: redirect))
        let signedIn = await authorize.finish()
        #expect(signedIn.status == 0, "\(signedIn.stderr)")
        let lines = signedIn.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines.first == url)
        #expect(lines.contains("ID token validated (OpenID Connect Core §3.1.3.7); claims:"))
        #expect(lines.contains("  iss: \"\(base)\""))
        #expect(lines.contains("  sub: \"1001\""))
        #expect(lines.contains("  aud: \"cli-jwt\""))
        #expect(lines.contains("  email: \"alice@sandbox.example\""))
        #expect(lines.contains { $0.hasPrefix("  nonce: \"") })
        #expect(lines.contains("UserInfo:"))
        #expect(lines.contains("  preferred_username: \"alice\""))
        #expect(lines.suffix(2) == ["Signed in; saved as profile 'op'.", ""])
        // No JWT on stdout: its header, {"alg":…, always starts eyJhbGciOi in base64url.
        #expect(!signedIn.stdout.contains("eyJhbGciOi"))

        let show = try await CLI.run(["profiles", "show", "op"], environment: environment)
        #expect(show.status == 0, "\(show.stderr)")
        #expect(show.stdout.contains("client: cli-jwt (private_key_jwt)\n"))
        #expect(show.stdout.contains("client key: \(URL(fileURLWithPath: keyPath).standardizedFileURL.path)\n"))
        #expect(!show.stdout.contains("BEGIN"))

        // The token expires within a minute: `token` refreshes, authenticating with the key again.
        let before = try await CLI.run(["token", "--profile", "op"], environment: environment)
        #expect(before.status == 0, "\(before.stderr)")
        let again = try await CLI.run(["token", "--profile", "op"], environment: environment)
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.stdout != before.stdout)

        // Without the key file, the refresh cannot authenticate, and says so.
        try FileManager.default.removeItem(atPath: keyPath)
        let missing = try await CLI.run(["token", "--profile", "op"], environment: environment)
        #expect(missing.status != 0)
        #expect(missing.stderr.contains("cannot read the client key"))
    }

    /// `remote-auth logout` (RP-Initiated Logout 1.0) after `authorize oauth2 --oidc`: the URL at
    /// the profile's `end_session_endpoint` with `id_token_hint`, `client_id`,
    /// `post_logout_redirect_uri` and a fresh `state`; the sandbox sends the browser back to the
    /// command's listener with that `state`; the profile is removed.
    @Test func logoutAtTheSandbox() async throws {
        // The port is picked free, then released for the command to bind: another test's bind(0)
        // can take it in between on a busy machine. The command then says so plainly (a port in
        // use, nothing revoked), and the scenario runs again with another port.
        for attempt in 1...3 {
            if try await logoutScenario() { return }
            #expect(attempt < 3, "the post-logout port was taken three times")
        }
    }

    /// One run of ``logoutAtTheSandbox()``; `false` when its port was taken before `logout` bound it.
    func logoutScenario() async throws -> Bool {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "oidc-logout-\(UUID().uuidString)"
        )
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let port = try #require(freeLoopbackPort())
        let postLogout = "http://127.0.0.1:\(port)/logged-out"
        let config = directory.appendingPathComponent("sandbox.json").path
        try
            #"{"oauth2Clients":[{"id":"rp-cli","redirectURIs":["http://127.0.0.1/callback"],"postLogoutRedirectURIs":["\#(postLogout)"]}]}"#
            .write(toFile: config, atomically: true, encoding: .utf8)
        let sandbox = try SandboxProcess(["--auto-approve", "--config", config])
        let base = try await sandbox.baseURL()
        let environment = ["REMOTE_AUTH_HOME": directory.appendingPathComponent("home").path]

        let authorize = try BackgroundCLI(
            [
                "authorize", "oauth2", "--profile", "rp", "--issuer", base, "--client-id", "rp-cli", "--oidc",
                "--no-browser", "--timeout", CLI.hangGuardSeconds,
            ],
            environment: environment
        )
        try await authorize.waitForError("Waiting for the browser")
        let url = try #require(authorize.line(startingWith: base + "/oauth2/authorize?"), "\(authorize.errors)")
        _ = try await httpExchange(try HTTPRequest(method: .get, absoluteURL: try await httpGetLocation(url)))
        let signedIn = await authorize.finish()
        #expect(signedIn.status == 0, "\(signedIn.stderr)")
        let show = try await CLI.run(["profiles", "show", "rp"], environment: environment)
        #expect(show.stdout.contains("\nopenid provider: jwks \(base)/oauth2/jwks\n"), "\(show.stdout)")
        #expect(show.stdout.hasSuffix("\nend session endpoint: \(base)/oauth2/logout\n"), "\(show.stdout)")

        let logout = try BackgroundCLI(
            ["logout", "--profile", "rp", "--post-logout-redirect-uri", postLogout, "--no-browser", "--timeout", CLI.hangGuardSeconds],
            environment: environment
        )
        try await logout.waitForError("Waiting for the browser to come back")
        if logout.errors.contains("port \(port) on 127.0.0.1 is in use") {
            _ = await logout.finish()
            return false
        }
        let logoutURL = try #require(logout.line(startingWith: base + "/oauth2/logout?"), "\(logout.errors)")
        let query = try #require(URLComponents(string: logoutURL)?.queryItems)
        #expect(query.map(\.name) == ["id_token_hint", "client_id", "post_logout_redirect_uri", "state"])
        #expect(query[1].value == "rp-cli")
        #expect(query[2].value == postLogout)
        let state = try #require(query[3].value)
        #expect(state.count == 22)
        let back = try await httpGetLocation(logoutURL)
        #expect(back == postLogout + "?state=" + state)
        let (landingStatus, landing) = try await httpExchange(try HTTPRequest(method: .get, absoluteURL: back))
        #expect(landingStatus == 200)
        #expect(landing.contains("<title>Signed out</title>"), "\(landing)")  // not "Signed in"
        let done = await logout.finish()
        #expect(done.status == 0, "\(done.stderr)")
        #expect(done.stdout.hasSuffix("\nSigned out; removed profile 'rp'.\n"), "\(done.stdout)")
        let gone = try await CLI.run(["token", "--profile", "rp"], environment: environment)
        #expect(gone.status != 0)
        #expect(gone.stderr.contains("unknown profile: 'rp'"), "\(gone.stderr)")
        // A usage error: the listener needs a loopback URL with a port.
        let bad = try await CLI.run(
            ["logout", "--profile", "rp", "--post-logout-redirect-uri", "https://rp.example/bye"],
            environment: environment
        )
        #expect(bad.status == 2)
        return true
    }

    /// Issue 22: `logout --no-browser` without a post-logout redirect revokes the tokens first
    /// (RFC 7009), says so, and only then removes the profile: the access token no longer
    /// answers UserInfo.
    @Test func logoutWithoutARedirectRevokesTheTokensFirst() async throws {
        let home = OAuth2CLITests.home()
        defer { try? FileManager.default.removeItem(atPath: home) }
        let sandbox = try SandboxProcess(["--auto-approve"])
        let base = try await sandbox.baseURL()
        let environment = ["REMOTE_AUTH_HOME": home]
        let authorize = try BackgroundCLI(
            [
                "authorize", "oauth2", "--profile", "op", "--issuer", base, "--client-id", "demo-app", "--oidc",
                "--no-browser", "--timeout", CLI.hangGuardSeconds,
            ],
            environment: environment
        )
        try await authorize.waitForError("Waiting for the browser")
        let url = try #require(authorize.line(startingWith: base + "/oauth2/authorize?"), "\(authorize.errors)")
        _ = try await httpExchange(try HTTPRequest(method: .get, absoluteURL: try await httpGetLocation(url)))
        #expect(await authorize.finish().status == 0)
        let token = try await CLI.run(["token", "--profile", "op"], environment: environment)
        let accessToken = token.stdout.trimmingCharacters(in: .newlines)
        func userInfo() async throws -> Int {
            var request = try HTTPRequest(method: .get, absoluteURL: base + "/oauth2/userinfo")
            request.headerFields[.authorization] = "Bearer " + accessToken
            return try await httpExchange(request).0
        }
        #expect(try await userInfo() == 200)

        let logout = try await CLI.run(["logout", "--profile", "op", "--no-browser"], environment: environment)
        #expect(logout.status == 0, "\(logout.stderr)")
        #expect(
            logout.stderr
                == "Revoked the profile's tokens at the provider (RFC 7009).\nOpen this URL in a browser to sign out:\n"
        )
        #expect(logout.stdout.hasPrefix(base + "/oauth2/logout?id_token_hint="))
        #expect(logout.stdout.hasSuffix("\nSigned out; removed profile 'op'.\n"))
        #expect(try await userInfo() == 401)
    }

    /// Core §12.2 from the command line: `token --profile` refreshes an `--oidc` profile whose
    /// token expires within a minute; the sandbox (hidden `--refreshed-id-token-subject` hook)
    /// answers with an ID token for another `sub`: refused, nothing printed on stdout, the
    /// token file unchanged. Without the hook the new ID token replaces the stored one.
    @Test(arguments: [nil, "someone-else"] as [String?])
    func refreshRevalidatesTheIDToken(_ otherSubject: String?) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "oidc-refresh-\(UUID().uuidString)"
        )
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let sandbox = try SandboxProcess(
            ["--auto-approve", "--access-token-ttl", "30"]
                + (otherSubject.map { ["--refreshed-id-token-subject", $0] } ?? [])
        )
        let base = try await sandbox.baseURL()
        let home = directory.appendingPathComponent("home").path
        let environment = ["REMOTE_AUTH_HOME": home]
        let authorize = try BackgroundCLI(
            [
                "authorize", "oauth2", "--profile", "op", "--issuer", base, "--client-id", "demo-app", "--oidc",
                "--no-browser", "--timeout", CLI.hangGuardSeconds,
            ],
            environment: environment
        )
        try await authorize.waitForError("Waiting for the browser")
        let url = try #require(authorize.line(startingWith: base + "/oauth2/authorize?"), "\(authorize.errors)")
        _ = try await httpExchange(try HTTPRequest(method: .get, absoluteURL: try await httpGetLocation(url)))
        let signedIn = await authorize.finish()
        #expect(signedIn.status == 0, "\(signedIn.stderr)")
        func storedIDToken() throws -> String? {
            let data = try Data(contentsOf: URL(fileURLWithPath: home + "/tokens.json"))
            func find(_ value: Any) -> String? {
                if let object = value as? [String: Any] {
                    if let token = object["idToken"] as? String { return token }
                    return object.values.lazy.compactMap(find).first
                }
                return (value as? [Any])?.lazy.compactMap(find).first
            }
            return find(try JSONSerialization.jsonObject(with: data))
        }
        let before = try #require(try storedIDToken())
        let file = try Data(contentsOf: URL(fileURLWithPath: home + "/tokens.json"))
        let token = try await CLI.run(["token", "--profile", "op"], environment: environment)
        if otherSubject == nil {
            #expect(token.status == 0, "\(token.stderr)")
            let after = try #require(try storedIDToken())
            #expect(after != before)
            let claims = try JOSE.CompactJWS(after).claims()
            #expect(claims["sub"] == "1001")
            #expect(claims["nonce"] == nil)
        } else {
            #expect(token.status != 0)
            #expect(token.stdout.isEmpty)
            #expect(token.stderr.contains("Core §12.2"), "\(token.stderr)")
            #expect(try Data(contentsOf: URL(fileURLWithPath: home + "/tokens.json")) == file)
        }
    }
}
