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
                let access = try await LoopbackCallbackListener.withListener { callbackURL, listener in
                    #expect(callbackURL.hasPrefix("http://127.0.0.1:") && callbackURL.hasSuffix("/callback"))
                    let requestToken = try await flow.requestToken(callback: callbackURL)
                    // The browser: consent, then follow the redirect to the listener.
                    let approved = try await consent(sandbox.baseURL, token: requestToken.token)
                    let location = try #require(approved.header("Location"))
                    #expect(try OAuth1.CallbackMatcher(callback: callbackURL).matches(location))
                    let landing = try await Wire.get(location)
                    #expect(landing.status == 200)
                    #expect(landing.body.contains("id=\"done\""))
                    let received = try await listener.callback(timeout: .seconds(10))
                    #expect(received == location)
                    let verifier = try flow.verifier(fromCallback: received, for: requestToken)
                    return try await flow.accessToken(for: requestToken, verifier: verifier)
                }
                #expect(access.screenName == "alice")
            }
        }
    }

    @Test func timesOutWhenTheBrowserNeverComes() async throws {
        _ = try await LoopbackCallbackListener.withListener { _, listener in
            await #expect(throws: LoopbackCallbackListener.ListenerError.self) {
                _ = try await listener.callback(timeout: .milliseconds(200))
            }
        }
    }

    /// Only the callback path is taken: another path gets 404, a POST 405, and neither is handed
    /// over; the first callback is, and the listener is one-shot.
    @Test func onlyTheCallbackPathIsTaken() async throws {
        try await LoopbackCallbackListener.withListener(path: "cb") { callbackURL, listener in
            #expect(callbackURL.hasSuffix("/cb"))
            let base = String(callbackURL.dropLast("/cb".count))
            let other = try await Wire.get(base + "/other?oauth_verifier=x")
            #expect(other.status == 404)
            let post = try await Wire.send(try HTTPRequest(method: .post, absoluteURL: callbackURL + "?a=b"))
            #expect(post.status == 405)
            let first = try await Wire.get(callbackURL + "?oauth_verifier=first")
            #expect(first.status == 200)
            #expect(first.header("Cache-Control") == "no-store")
            #expect(first.header("Content-Type") == "text/html; charset=utf-8")
            let second = try await Wire.get(callbackURL + "?oauth_verifier=second")
            #expect(second.status == 200)
            #expect(try await listener.callback(timeout: .seconds(5)) == callbackURL + "?oauth_verifier=first")
        }
    }

    /// A request head larger than 16 KiB is not read: the connection is closed without an answer.
    @Test func boundsWhatItReads() async throws {
        try await LoopbackCallbackListener.withListener { callbackURL, listener in
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
        try await LoopbackCallbackListener.withListener { callbackURL, listener in
            let landing = try await Wire.get(callbackURL + query)
            #expect(landing.status == 200)
            #expect(landing.body.contains("<title>Access denied</title>"))
            #expect(landing.body.contains("Access was denied. You can close this window"))
            #expect(!landing.body.contains("signed in"))
            #expect(try await listener.callback(timeout: .seconds(10)) == callbackURL + query)
        }
    }

    @Test func anApprovalShowsTheSignedInPage() async throws {
        try await LoopbackCallbackListener.withListener { callbackURL, _ in
            let landing = try await Wire.get(callbackURL + "?code=c&state=s&error_hint=x")
            #expect(landing.body.contains("<title>Signed in</title>"))
            #expect(landing.body.contains("You are signed in."))
        }
    }

    /// A connection that sends nothing is closed at the read deadline.
    @Test(.timeLimit(.minutes(1)))
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
            #expect(clock.now - start < .seconds(6), "\(clock.now - start)")  // loose: a busy 2-core machine
        }
    }
}
