import Foundation
import RemoteAuth
import Testing

@Suite struct OAuth2CallbackTests {
    func pending(state: String, issuer: String? = nil, requiresIssuer: Bool = false) -> OAuth2.PendingAuthorization {
        OAuth2.PendingAuthorization(
            state: Secret(state),
            codeVerifier: "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk",
            redirectURI: "https://client.example/cb",
            issuer: issuer,
            requiresIssuer: requiresIssuer
        )
    }

    @Test(arguments: try OAuth2ResponseVector.all("authorization_response"))
    func vector(_ v: OAuth2ResponseVector) throws {
        let pending = pending(state: try #require(v.expected_state), issuer: v.configured_issuer)
        let location = try #require(v.location)
        if v.expected_iss_accepted == false {
            #expect(throws: OAuth2.Error(.issuerMismatch, "")) { try pending.parseCallback(location, now: 1000) }
        } else if let error = v.expected_error {
            let thrown = #expect(throws: OAuth2.Error.self) { try pending.parseCallback(location, now: 1000) }
            #expect(thrown?.code == .serverRefused)
            #expect(thrown?.serverError?.code == OAuth2.ErrorCode(rawValue: error))
            #expect(thrown?.serverError?.code == .accessDenied)
        } else if let code = v.expected_code {
            #expect(try pending.parseCallback(location, now: 1000) == .code(Secret(code)))
        } else {
            let expected = OAuth2.Tokens(
                accessToken: Secret(try #require(v.expected_access_token)),
                tokenType: try #require(v.expected_token_type),
                expiresAt: 1000 + (try #require(v.expected_expires_in))
            )
            #expect(try pending.parseCallback(location, now: 1000) == .tokens(expected))
        }
    }

    /// Every vector fails with another state, before anything else is looked at.
    @Test(arguments: try OAuth2ResponseVector.all("authorization_response"))
    func wrongStateIsRefused(_ v: OAuth2ResponseVector) throws {
        let pending = pending(state: (v.expected_state ?? "") + "x", issuer: v.configured_issuer)
        let location = try #require(v.location)
        #expect(throws: OAuth2.Error(.stateMismatch, "")) { try pending.parseCallback(location, now: 1000) }
    }

    @Test func facebookStyleFragment() throws {
        let state = "ZWVlNDBlYzA1NjdkMDNhYjg3ZjUxZjAyNGQzMTM2NzI"
        let url = "fb123456://authorize/#access_token=EAAB%2Bx&expires_in=5183999&state=\(state)"
        let tokens = OAuth2.Tokens(accessToken: "EAAB+x", tokenType: "Bearer", expiresAt: 1_700_000_000 + 5_183_999)
        #expect(try pending(state: state).parseCallback(url, now: 1_700_000_000) == .tokens(tokens))
        #expect(throws: OAuth2.Error(.stateMismatch, "")) {
            try pending(state: state + "A").parseCallback(url, now: 0)
        }
        #expect(throws: OAuth2.Error(.malformedResponse, "")) {
            try pending(state: state).parseCallback(
                "fb1://authorize/#access_token=x&expires_in=soon&state=\(state)",
                now: 0
            )
        }
    }

    @Test func customSchemeAndLoopbackCallbacks() throws {
        let state = "ZWVlNDBlYzA1NjdkMDNhYjg3ZjUxZjAyNGQzMTM2NzI"
        let p = pending(state: state)
        #expect(try p.parseCallback("com.example.app:/oauth2redirect?code=abc&state=\(state)", now: 0) == .code("abc"))
        #expect(
            try p.parseCallback("http://127.0.0.1:49152/callback?state=\(state)&code=a%2Bb", now: 0) == .code("a+b")
        )
        // An empty fragment does not hide the query.
        #expect(try p.parseCallback("myapp://cb?code=c1&state=\(state)#", now: 0) == .code("c1"))
    }

    @Test func rfc9207IssuerChecks() throws {
        let state = "ZWVlNDBlYzA1NjdkMDNhYjg3ZjUxZjAyNGQzMTM2NzI"
        let withIss = "https://client.example/cb?code=c&state=\(state)&iss=https%3A%2F%2Fas.example"
        let withoutIss = "https://client.example/cb?code=c&state=\(state)"
        // Required by metadata: present and equal passes, absent fails.
        let strict = pending(state: state, issuer: "https://as.example", requiresIssuer: true)
        #expect(try strict.parseCallback(withIss, now: 0) == .code("c"))
        #expect(throws: OAuth2.Error(.issuerMismatch, "")) { try strict.parseCallback(withoutIss, now: 0) }
        // Not required: absent passes, present is still checked.
        let lenient = pending(state: state, issuer: "https://other.example")
        #expect(try lenient.parseCallback(withoutIss, now: 0) == .code("c"))
        #expect(throws: OAuth2.Error(.issuerMismatch, "")) { try lenient.parseCallback(withIss, now: 0) }
        // An iss with no issuer configured cannot be checked: refused.
        #expect(throws: OAuth2.Error(.issuerMismatch, "")) { try pending(state: state).parseCallback(withIss, now: 0) }
        // An error redirect is checked too (RFC 9207 §2.2).
        let error = "https://client.example/cb?error=access_denied&state=\(state)&iss=https%3A%2F%2Fevil.example"
        #expect(throws: OAuth2.Error(.issuerMismatch, "")) { try strict.parseCallback(error, now: 0) }
    }

    @Test func errorResponseKeepsDescriptionAndURI() throws {
        let state = "ZWVlNDBlYzA1NjdkMDNhYjg3ZjUxZjAyNGQzMTM2NzI"
        let url =
            "https://client.example/cb?error=invalid_scope&error_description=Unknown+scope%3A+x"
            + "&error_uri=https%3A%2F%2Fas.example%2Ferr&state=\(state)"
        let thrown = #expect(throws: OAuth2.Error.self) { try pending(state: state).parseCallback(url, now: 0) }
        #expect(thrown?.code == .serverRefused)
        #expect(
            thrown?.serverError
                == OAuth2.ErrorResponse(
                    code: .invalidScope,
                    errorDescription: "Unknown scope: x",
                    errorURI: "https://as.example/err"
                )
        )
        #expect(thrown?.serverError?.code != .accessDenied)
    }

    @Test func malformedRedirects() throws {
        let state = "ZWVlNDBlYzA1NjdkMDNhYjg3ZjUxZjAyNGQzMTM2NzI"
        let p = pending(state: state)
        for url in [
            "/cb?code=c&state=\(state)",  // not absolute
            "https://client.example/cb?code=c&state=\(state)&state=\(state)",  // repeated
            "https://client.example/cb?code=c&code=d&state=\(state)",
            "https://client.example/cb?state=\(state)",  // no code, no token, no error
            "https://client.example/cb?code=&state=\(state)",  // empty code
            "https://client.example/cb?code=%ZZ&state=\(state)",  // bad escape
        ] {
            #expect(throws: OAuth2.Error(.malformedResponse, ""), "\(url)") { try p.parseCallback(url, now: 0) }
        }
        #expect(throws: OAuth2.Error(.stateMismatch, "")) {
            try p.parseCallback("https://client.example/cb?code=c", now: 0)
        }
    }

    @Test func pendingAuthorizationRoundTripsThroughCodable() throws {
        let p = pending(
            state: "ZWVlNDBlYzA1NjdkMDNhYjg3ZjUxZjAyNGQzMTM2NzI",
            issuer: "https://as.example",
            requiresIssuer: true
        )
        let data = try JSONEncoder().encode(p)
        #expect(try JSONDecoder().decode(OAuth2.PendingAuthorization.self, from: data) == p)
    }
}
