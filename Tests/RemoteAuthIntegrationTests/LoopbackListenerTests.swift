import AsyncHTTPClient
import Foundation
import HTTPTypes
import NIOCore
import NIOPosix
import RemoteAuth
import RemoteAuthAsyncHTTPClient
import RemoteAuthSandbox
import Testing

@testable import RemoteAuthLoopback

/// A listener as `withListener` makes it, except that a connection may take the hang guard to
/// send its request head instead of 10 s: these tests tell answers apart, not times, and on a
/// loaded machine or under ThreadSanitizer the client's head can come later than 10 s after its
/// connection (the 10 s bound itself is `closesAnIdleConnection`'s).
func patientListener<Result>(
    path: String = "/callback",
    port: Int = 0,
    _ body: (String, LoopbackCallbackListener) async throws -> Result
) async throws -> Result {
    try await LoopbackCallbackListener.withListener(
        path: path,
        port: port,
        page: "You are signed in. You can close this window and return to the application.",
        deniedPage: "Access was denied. You can close this window and return to the application.",
        maximumRequestBytes: LoopbackCallbackListener.maximumRequestBytes,
        readTimeout: TestTime.hangGuardAmount,
        isolation: nil,
        body
    )
}

/// RFC 8252 §7.3: the flow with a loopback listener as its callback, the browser played over
/// HTTP (consent form, then the redirect to the listener).
@Suite(.timeLimit(.minutes(5))) struct LoopbackListenerTests {
    @Test func signInThroughTheListener() async throws {
        try await Sandbox.withSandbox { sandbox in
            try await AsyncHTTPClientTransport.withTransport { transport in
                let flow = OAuth1.Flow(
                    provider: .twitterStyle(baseURL: sandbox.baseURL),
                    client: demoClient,
                    transport: transport,
                    now: { Int64(Date().timeIntervalSince1970) }
                )
                let access = try await patientListener { callbackURL, listener in
                    #expect(callbackURL.hasPrefix("http://127.0.0.1:") && callbackURL.hasSuffix("/callback"))
                    let requestToken = try await flow.requestToken(callback: callbackURL)
                    // The browser: consent, then follow the redirect to the listener.
                    let approved = try await consent(sandbox.baseURL, token: requestToken.token)
                    let location = try #require(approved.header("Location"))
                    #expect(try OAuth1.CallbackMatcher(callback: callbackURL).matches(location))
                    // The browser's request is answered once the app has its token credentials.
                    async let landing = Wire.get(location)
                    let access = try await listener.accessToken(for: requestToken, flow: flow, timeout: TestTime.hangGuard)
                    #expect(try await landing.status == 200)
                    #expect(try await landing.body.contains("id=\"done\""))
                    return access
                }
                #expect(access.screenName == "alice")
            }
        }
    }

    /// OAuth 1.0a through `listener.accessToken(for:flow:)`: a callback for another request token
    /// (or without a verifier) gets an error page and the wait goes on; the real one signs in.
    @Test func aForgedOAuth1CallbackIsIgnored() async throws {
        try await Sandbox.withSandbox { sandbox in
            try await AsyncHTTPClientTransport.withTransport { transport in
                let flow = OAuth1.Flow(
                    provider: .twitterStyle(baseURL: sandbox.baseURL),
                    client: demoClient,
                    transport: transport,
                    now: { Int64(Date().timeIntervalSince1970) }
                )
                let access = try await patientListener { callbackURL, listener in
                    let requestToken = try await flow.requestToken(callback: callbackURL)
                    async let browser: Void = {
                        let forged = try await Wire.get(callbackURL + "?oauth_token=someone-else&oauth_verifier=v")
                        #expect(forged.status == 400)
                        #expect(forged.body.contains("not the pending request token"))
                        let noVerifier = try await Wire.get(callbackURL + "?oauth_token=" + requestToken.token)
                        #expect(noVerifier.status == 400)
                        let approved = try await consent(sandbox.baseURL, token: requestToken.token)
                        let landing = try await Wire.get(try #require(approved.header("Location")))
                        #expect(landing.status == 200)
                        #expect(landing.body.contains("You are signed in."))
                    }()
                    var ignored: [String] = []
                    let access = try await listener.accessToken(
                        for: requestToken,
                        flow: flow,
                        timeout: .seconds(60),
                        onIgnored: { ignored.append($0) }
                    )
                    try await browser
                    #expect(
                        ignored == [
                            "the callback's oauth_token is not the pending request token",
                            "the callback has no oauth_verifier",
                        ]
                    )
                    return access
                }
                #expect(access.screenName == "alice")
            }
        }
    }

    @Test func timesOutWhenTheBrowserNeverComes() async throws {
        _ = try await patientListener { _, listener in
            await #expect(throws: LoopbackCallbackListener.ListenerError.self) {
                _ = try await listener.callback(timeout: .milliseconds(200))
            }
        }
    }

    /// Only a GET of the callback path is handed over: another path gets 404, a POST or a HEAD
    /// 405; the first GET the app accepts ends the wait.
    @Test func onlyTheCallbackPathIsTaken() async throws {
        try await patientListener(path: "cb") { callbackURL, listener in
            #expect(callbackURL.hasSuffix("/cb"))
            let base = String(callbackURL.dropLast("/cb".count))
            let other = try await Wire.get(base + "/other?oauth_verifier=x")
            #expect(other.status == 404)
            let post = try await Wire.send(try HTTPRequest(method: .post, absoluteURL: callbackURL + "?a=b"))
            #expect(post.status == 405)
            let head = try await Wire.send(try HTTPRequest(method: .head, absoluteURL: callbackURL + "?a=b"))
            #expect(head.status == 405)
            async let first = Wire.get(callbackURL + "?oauth_verifier=first")
            #expect(try await listener.callback(timeout: TestTime.hangGuard) == callbackURL + "?oauth_verifier=first")
            #expect(try await first.status == 200)
            #expect(try await first.header("Cache-Control") == "no-store")
            #expect(try await first.header("Content-Type") == "text/html; charset=utf-8")
        }
    }

    /// RFC 8252 §8.9: a request the app does not recognize (another state) is shown an error
    /// page (400, the reason escaped) and the wait goes on; the right one ends it and is shown
    /// "signed in" only then.
    @Test func aRequestTheAppIgnoresLeavesItWaiting() async throws {
        try await patientListener { callbackURL, listener in
            async let real: String = {
                // The real browser arrives after the forged request was answered.
                let page = try await Wire.get(callbackURL + "?state=forged&x=%3Cscript%3E")
                #expect(page.status == 400)
                #expect(page.body.contains("<title>Not this sign-in</title>"))
                #expect(page.body.contains("wrong state &lt;script&gt;"))
                #expect(!page.body.contains("signed in"))
                let landing = try await Wire.get(callbackURL + "?state=right")
                #expect(landing.status == 200)
                #expect(landing.body.contains("You are signed in."))
                return landing.body
            }()
            var ignored: [String] = []
            let accepted: String = try await listener.callback(timeout: TestTime.hangGuard) {
                (url: String) -> LoopbackCallbackListener.Decision<String> in
                guard url.hasSuffix("state=right") else {
                    ignored.append(url)
                    return .ignore(reason: "wrong state <script>")
                }
                return .accept(url)
            }
            #expect(accepted == callbackURL + "?state=right")
            #expect(ignored == [callbackURL + "?state=forged&x=%3Cscript%3E"])
            _ = try await real
        }
    }

    /// When the app fails after accepting the request (a code that does not redeem), the page
    /// says the sign-in failed, not that it succeeded.
    @Test func aFailureIsShownAsAFailure() async throws {
        struct Refused: Error, CustomStringConvertible {
            var description: String { "invalid_grant <b>" }
        }
        try await patientListener { callbackURL, listener in
            async let landing = Wire.get(callbackURL + "?code=forged&state=s")
            await #expect(throws: Refused.self) {
                _ = try await listener.callback(timeout: TestTime.hangGuard) {
                    (_: String) -> LoopbackCallbackListener.Decision<String> in
                    throw Refused()
                }
            }
            let page = try await landing
            #expect(page.status == 200)
            #expect(page.body.contains("<title>Sign-in failed</title>"))
            #expect(page.body.contains("The sign-in failed: invalid_grant &lt;b&gt;"))
            #expect(!page.body.contains("signed in"))
        }
    }

    /// A fixed port is honoured; a port in use is an error that names it.
    @Test func aFixedPortInUseIsNamed() async throws {
        try await patientListener { callbackURL, _ in
            let port = try #require(Int(callbackURL.split(separator: ":").last?.split(separator: "/").first ?? ""))
            let error = await #expect(throws: LoopbackCallbackListener.ListenerError.self) {
                try await patientListener(port: port) { _, _ in }
            }
            #expect(error?.reason.hasPrefix("port \(port) on 127.0.0.1 is in use") == true)
        }
    }

    /// A request head larger than 16 KiB is not read: the connection is closed without an answer.
    @Test func boundsWhatItReads() async throws {
        try await patientListener { callbackURL, listener in
            var fields = HTTPFields()
            fields[HTTPField.Name("X-Padding")!] = String(repeating: "a", count: 20_000)
            let error = await #expect(throws: HTTPClientError.self) {
                _ = try await Wire.get(callbackURL + "?oauth_verifier=big", headers: fields)
            }
            #expect(error == .remoteConnectionClosed)
            await #expect(throws: LoopbackCallbackListener.ListenerError.self) {
                _ = try await listener.callback(timeout: .milliseconds(200))
            }
        }
    }

    /// A refusal (OAuth 1.0a `denied`, OAuth 2 `error`) shows the denied page, not "signed in",
    /// and is still handed to the app, which decides what it means.
    @Test(arguments: ["?denied=request-token", "?error=access_denied&state=s"])
    func aRefusalShowsTheDeniedPage(_ query: String) async throws {
        try await patientListener { callbackURL, listener in
            async let landing = Wire.get(callbackURL + query)
            #expect(try await listener.callback(timeout: TestTime.hangGuard) == callbackURL + query)
            let page = try await landing
            #expect(page.status == 200)
            #expect(page.body.contains("<title>Access denied</title>"))
            #expect(page.body.contains("Access was denied. You can close this window"))
            #expect(!page.body.contains("signed in"))
        }
    }

    @Test func anApprovalShowsTheSignedInPage() async throws {
        try await patientListener { callbackURL, listener in
            async let landing = Wire.get(callbackURL + "?code=c&state=s&error_hint=x")
            _ = try await listener.callback(timeout: TestTime.hangGuard)
            #expect(try await landing.body.contains("<title>Signed in</title>"))
            #expect(try await landing.body.contains("You are signed in."))
        }
    }

    /// A connection that sends nothing is closed at the read deadline.
    @Test(.timeLimit(.minutes(5)))
    func closesAnIdleConnection() async throws {
        try await LoopbackCallbackListener.withListener(
            path: "/callback",
            page: "done",
            maximumRequestBytes: 1024,
            readTimeout: .milliseconds(200),
            isolation: nil
        ) { callbackURL, _ in
            let port = try #require(Int(callbackURL.split(separator: ":").last?.split(separator: "/").first ?? ""))
            let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .connect(host: "127.0.0.1", port: port)
                .get()
            let clock = ContinuousClock()
            let start = clock.now
            try await channel.closeFuture.get()
            // The 200 ms read deadline closed it: nothing else would before the test's time limit.
            #expect(clock.now - start < .seconds(30), "\(clock.now - start)")
        }
    }
}
