import RemoteAuth
import Testing

@Suite struct CallbackMatcherTests {
    @Test(arguments: [
        ("myapp://oauth-callback", "myapp://oauth-callback?oauth_token=t&oauth_verifier=v", true),
        ("myapp://oauth-callback", "MyApp://OAuth-Callback/?oauth_token=t", true),
        ("myapp://oauth-callback/", "MYAPP://OAUTH-CALLBACK/?oauth_token=t#x", true),
        ("https://callback.invalid/oauth", "https://CALLBACK.invalid:443/oauth?denied=t", true),
        ("https://callback.invalid/oauth", "https://callback.invalid/oauth/more?x", false),
        ("https://callback.invalid/oauth", "http://callback.invalid/oauth", false),
        ("https://callback.invalid/oauth", "https://callback.invalid.evil.example/oauth", false),
        ("http://127.0.0.1:8765/cb", "http://127.0.0.1:8766/cb", false),
        ("http://127.0.0.1:8765/cb", "not a url", false),
    ])
    func matches(callback: String, url: String, expected: Bool) throws {
        #expect(try OAuth1.CallbackMatcher(callback: callback).matches(url) == expected)
    }

    @Test func refusesARelativeCallback() {
        #expect(throws: RequestURLError.self) { try OAuth1.CallbackMatcher(callback: "/callback") }
    }
}
