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
        // RFC 8252 §7.1: a private-use scheme with a path and no authority.
        ("com.example.app:/oauth2redirect/example-provider",
         "com.example.app:/oauth2redirect/example-provider?code=c&state=s", true),
        ("com.example.app:/oauth2redirect/example-provider",
         "COM.Example.App:/oauth2redirect/example-provider#x", true),
        ("com.example.app:/oauth2redirect/example-provider", "com.example.app:/oauth2redirect/other?code=c", false),
        ("com.example.app:/oauth2redirect/example-provider", "com.evil.app:/oauth2redirect/example-provider", false),
        ("com.example.app:/oauth2redirect/example-provider", "com.example.app://oauth2redirect/example-provider", false),
    ])
    func matches(callback: String, url: String, expected: Bool) throws {
        #expect(try OAuth1.CallbackMatcher(callback: callback).matches(url) == expected)
    }

    @Test func refusesARelativeCallback() {
        #expect(throws: RequestURLError.self) { try CallbackMatcher(callback: "/callback") }
        #expect(throws: RequestURLError.self) { try CallbackMatcher(callback: "com.example.app:oauth2redirect") }
    }

    /// An OAuth 2 native app with a private-use redirect (RFC 8252 §7.1): the matcher picks the
    /// redirect out of the URLs the system hands the app, and the pending request reads it
    /// (state in constant time, RFC 9207 iss).
    @Test func oauth2PrivateUseSchemeRedirect() throws {
        let redirect = "com.example.app:/oauth2redirect/example-provider"
        let request = try OAuth2.AuthorizationRequest(
            authorizationEndpoint: "https://auth.example.com/authorize",
            clientID: "app",
            redirectURI: redirect,
            issuer: "https://auth.example.com",
            requiresIssuer: true,
            random: .seeded(7)
        )
        #expect(request.url.contains("redirect_uri=com.example.app%3A%2Foauth2redirect%2Fexample-provider"))
        let state = try #require(request.parameters.first { $0.name == "state" }?.value)
        let callback = "\(redirect)?code=SplxlOBeZQQYbYS6WxSbIA&state=\(state)&iss=https%3A%2F%2Fauth.example.com"
        let matcher = try CallbackMatcher(callback: redirect)
        #expect(matcher.matches(callback))
        #expect(!matcher.matches("https://auth.example.com/authorize?" + callback))
        #expect(try request.pending.parseCallback(callback) == .code("SplxlOBeZQQYbYS6WxSbIA"))
    }
}
