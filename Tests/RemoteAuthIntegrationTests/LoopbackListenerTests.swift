import Foundation
import HTTPTypes
import RemoteAuth
import RemoteAuthAsyncHTTPClient
import RemoteAuthLoopback
import RemoteAuthSandbox
import Testing

/// RFC 8252 §7.3: the flow with a loopback listener as its callback, the browser played over
/// HTTP (consent form, then the redirect to the listener).
@Suite struct LoopbackListenerTests {
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
}
