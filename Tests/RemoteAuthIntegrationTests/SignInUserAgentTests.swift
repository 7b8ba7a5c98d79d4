import Foundation
import HTTPTypes
import RemoteAuth
import RemoteAuthAsyncHTTPClient
import RemoteAuthLoopback
import RemoteAuthSandbox
import Testing

/// The sign-in user agents, shared by OAuth 2 and OAuth 1.0a, against the sandbox.
@Suite(.timeLimit(.minutes(5))) struct SignInUserAgentTests {
    static func autoApproving() -> SandboxConfiguration {
        var configuration = SandboxConfiguration.demo()
        configuration.autoApprove = true
        return configuration
    }

    /// The sandbox's answer to an authorization URL: where it sends the browser.
    static func redirect(for url: String) async throws -> String {
        try #require(try await Wire.get(url).header("Location"))
    }

    /// A scripted browser brings back a forged redirect first (the right `state`, an injected
    /// token): it is ignored, and the real one signs in.
    @Test func scriptedAgentCodeFlowIgnoresAForgedRedirect() async throws {
        try await Sandbox.withSandbox(Self.autoApproving()) { sandbox in
            try await AsyncHTTPClientTransport.withTransport { transport in
                let flow = try await OAuth2.Flow(discovering: sandbox.baseURL, client: .public(id: "demo-app"), transport: transport)
                let shown = Locked<[String]>([])
                let agent = ScriptedUserAgent(redirectURI: "http://127.0.0.1:53123/callback") { url in
                    shown.withLock { $0.append(url) }
                    let real = try await Self.redirect(for: url)
                    let state = try #require(URLComponents(string: real)?.queryItems?.first { $0.name == "state" }?.value)
                    let forged = "http://127.0.0.1:53123/callback?access_token=ATTACKER&state=\(state)&iss="
                        + (sandbox.baseURL.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")
                    return [forged, real]
                }
                let tokens = try await flow.signIn(with: agent, scope: ["statuses:read"])
                #expect(tokens.accessToken.reveal() != "ATTACKER")
                #expect(shown.withLock { $0 }.count == 1)
                let (response, _) = try await AuthenticatingClient(
                    transport: transport,
                    session: try await flow.session(for: tokens, resources: [sandbox.baseURL])
                ).get(sandbox.baseURL + "/1.1/statuses/home_timeline.json")
                #expect(response.status == .ok)

                let nothing = ScriptedUserAgent(redirectURI: "http://127.0.0.1:53123/callback") { _ in
                    ["http://127.0.0.1:53123/callback?code=x&state=not-ours"]
                }
                let error = await #expect(throws: SignInError.self) {
                    _ = try await flow.signIn(with: nothing, scope: ["statuses:read"])
                }
                #expect(error?.code == .noCallback)
            }
        }
    }

    /// Print and paste: blank lines and another address are read past; the real address signs in.
    @Test func pasteAgent() async throws {
        try await Sandbox.withSandbox(Self.autoApproving()) { sandbox in
            try await AsyncHTTPClientTransport.withTransport { transport in
                let flow = try await OAuth2.Flow(discovering: sandbox.baseURL, client: .public(id: "demo-app"), transport: transport)
                let printed = Locked<String?>(nil)
                let ignored = Locked<[String]>([])
                let lines = Locked<[String]>([])
                let agent = PasteUserAgent(
                    redirectURI: "http://127.0.0.1:53123/callback",
                    present: { url in printed.withLock { $0 = url } },
                    readLine: {
                        if lines.withLock({ $0.isEmpty }), let url = printed.withLock({ $0 }) {
                            let real = try await Self.redirect(for: url)
                            lines.withLock { $0 = ["", "   ", "http://127.0.0.1:53123/callback?code=x&state=other", "  " + real + "\n"] }
                        }
                        return lines.withLock { $0.isEmpty ? nil : $0.removeFirst() }
                    },
                    onIgnored: { reason in ignored.withLock { $0.append(reason) } }
                )
                let tokens = try await flow.signIn(with: agent, scope: ["statuses:read"])
                #expect(!tokens.accessToken.reveal().isEmpty)
                #expect(ignored.withLock { $0 }.count == 1)
            }
        }
    }

    /// The loopback listener with a stand-in browser, for OAuth 2 (a free port) and a registered
    /// loopback URI without a port.
    @Test(arguments: [nil, "http://127.0.0.1/callback"]) func loopbackAgent(redirectURI: String?) async throws {
        try await Sandbox.withSandbox(Self.autoApproving()) { sandbox in
            try await AsyncHTTPClientTransport.withTransport { transport in
                let flow = try await OAuth2.Flow(discovering: sandbox.baseURL, client: .public(id: "demo-app"), transport: transport)
                let browser = LoopbackUserAgent(open: { url in
                    Task { _ = try await Wire.get(try await Self.redirect(for: url)) }
                })
                let tokens = try await flow.signIn(with: browser, redirectURI: redirectURI, scope: ["statuses:read"])
                #expect(!tokens.accessToken.reveal().isEmpty)
            }
        }
    }

    /// The same seam for OAuth 1.0a: a callback for another request token is ignored.
    @Test func oauth1ThroughTheSameSeam() async throws {
        try await Sandbox.withSandbox { sandbox in
            try await AsyncHTTPClientTransport.withTransport { transport in
                let flow = OAuth1.Flow(
                    provider: .twitterStyle(baseURL: sandbox.baseURL),
                    client: demoClient,
                    transport: transport,
                    now: UnixTime.now
                )
                let agent = ScriptedUserAgent(redirectURI: "http://127.0.0.1:9/cb") { url in
                    let token = try #require(URLComponents(string: url)?.queryItems?.first { $0.name == "oauth_token" }?.value)
                    let approved = try await consent(sandbox.baseURL, token: token)
                    return ["http://127.0.0.1:9/cb?oauth_token=other&oauth_verifier=v", try #require(approved.header("Location"))]
                }
                let access = try await flow.signIn(with: agent)
                #expect(access.screenName == "alice")
            }
        }
    }
}
