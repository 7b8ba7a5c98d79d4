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
            #expect(throws: OAuth2.Error(.issuerMismatch, "")) { try pending.parseCallback(location) }
        } else if let error = v.expected_error {
            let thrown = #expect(throws: OAuth2.Error.self) { try pending.parseCallback(location) }
            #expect(thrown?.code == .serverRefused)
            #expect(thrown?.serverError?.code == OAuth2.ErrorCode(rawValue: error))
            #expect(thrown?.serverError?.code == .accessDenied)
        } else if let code = v.expected_code {
            #expect(try pending.parseCallback(location) == .code(Secret(code)))
            // The same redirect answers no implicit request: its parameters are in the query.
            #expect(throws: OAuth2.Error(.malformedResponse, "")) {
                try implicit(state: try #require(v.expected_state), issuer: v.configured_issuer)
                    .parseCallback(location, now: 1000)
            }
        } else {
            // RFC 6749 §4.2.2: tokens in the fragment. A code flow refuses them (RFC 9700 §4.5);
            // only the implicit request's reader takes them.
            let thrown = #expect(throws: OAuth2.Error.self) { try pending.parseCallback(location) }
            #expect(thrown?.code == .unexpectedTokens)
            let expected = OAuth2.Tokens(
                accessToken: Secret(try #require(v.expected_access_token)),
                tokenType: try #require(v.expected_token_type),
                expiresAt: 1000 + (try #require(v.expected_expires_in))
            )
            let implicit = implicit(state: try #require(v.expected_state), issuer: v.configured_issuer)
            #expect(try implicit.parseCallback(location, now: 1000) == expected)
        }
    }

    func implicit(
        state: String,
        issuer: String? = nil,
        requiresIssuer: Bool = false
    )
        -> OAuth2.PendingImplicitAuthorization
    {
        OAuth2.PendingImplicitAuthorization(
            state: Secret(state),
            redirectURI: "https://client.example/cb",
            issuer: issuer,
            requiresIssuer: requiresIssuer
        )
    }

    /// Every vector fails with another state, before anything else is looked at.
    @Test(arguments: try OAuth2ResponseVector.all("authorization_response"))
    func wrongStateIsRefused(_ v: OAuth2ResponseVector) throws {
        let pending = pending(state: (v.expected_state ?? "") + "x", issuer: v.configured_issuer)
        let location = try #require(v.location)
        #expect(throws: OAuth2.Error(.stateMismatch, "")) { try pending.parseCallback(location) }
        #expect(throws: OAuth2.Error.self) {
            try implicit(state: (v.expected_state ?? "") + "x", issuer: v.configured_issuer)
                .parseCallback(location, now: 1000)
        }
    }

    /// The explicit opt-in still reads a Facebook-style fragment (no `token_type`).
    @Test func facebookStyleFragmentThroughTheImplicitOptIn() throws {
        let state = "ZWVlNDBlYzA1NjdkMDNhYjg3ZjUxZjAyNGQzMTM2NzI"
        let url = "fb123456://authorize/#access_token=EAAB%2Bx&expires_in=5183999&state=\(state)"
        let tokens = OAuth2.Tokens(accessToken: "EAAB+x", tokenType: "Bearer", expiresAt: 1_700_000_000 + 5_183_999)
        #expect(try implicit(state: state).parseCallback(url, now: 1_700_000_000) == tokens)
        #expect(throws: OAuth2.Error(.stateMismatch, "")) {
            try implicit(state: state + "A").parseCallback(url, now: 0)
        }
        #expect(throws: OAuth2.Error(.malformedResponse, "")) {
            try implicit(state: state).parseCallback(
                "fb1://authorize/#access_token=x&expires_in=soon&state=\(state)",
                now: 0
            )
        }
        // The code flow's reader refuses the same URL.
        #expect(throws: OAuth2.Error(.unexpectedTokens, "")) { try pending(state: state).parseCallback(url) }
    }

    /// RFC 9700 §4.5: an access token injected into a code flow's redirect, with the right
    /// `state` and `iss`, in the query or the fragment, alone or beside a code, is refused.
    @Test func codeFlowRefusesInjectedTokens() throws {
        let state = "ZWVlNDBlYzA1NjdkMDNhYjg3ZjUxZjAyNGQzMTM2NzI"
        let p = pending(state: state, issuer: "https://as.example", requiresIssuer: true)
        let iss = "iss=https%3A%2F%2Fas.example"
        for url in [
            "http://127.0.0.1:49152/callback?access_token=ATTACKER-TOKEN&token_type=Bearer&expires_in=3600&state=\(state)&\(iss)",
            "http://127.0.0.1:49152/callback#access_token=ATTACKER-TOKEN&token_type=Bearer&state=\(state)&\(iss)",
            "http://127.0.0.1:49152/callback?code=c&access_token=ATTACKER-TOKEN&state=\(state)&\(iss)",
            "http://127.0.0.1:49152/callback?code=c&id_token=eyJhbGciOiJub25lIn0.e30.&state=\(state)&\(iss)",
        ] {
            let thrown = #expect(throws: OAuth2.Error.self, "\(url)") { try p.parseCallback(url) }
            #expect(thrown?.code == .unexpectedTokens, "\(url)")
            #expect(thrown?.reason.contains("ATTACKER") == false)
        }
    }

    /// The implicit reader takes tokens only from the fragment, never beside a query, never
    /// with a code.
    @Test func implicitReadsOnlyTheFragment() throws {
        let state = "ZWVlNDBlYzA1NjdkMDNhYjg3ZjUxZjAyNGQzMTM2NzI"
        let p = implicit(state: state)
        #expect(throws: OAuth2.Error(.malformedResponse, "")) {
            try p.parseCallback("https://client.example/cb?access_token=t&token_type=Bearer&state=\(state)", now: 0)
        }
        #expect(throws: OAuth2.Error(.malformedResponse, "")) {
            try p.parseCallback("https://client.example/cb?x=1#access_token=t&state=\(state)", now: 0)
        }
        #expect(throws: OAuth2.Error(.unexpectedTokens, "")) {
            try p.parseCallback("https://client.example/cb#access_token=t&code=c&state=\(state)", now: 0)
        }
        #expect(throws: OAuth2.Error(.malformedResponse, "")) {
            try p.parseCallback("https://client.example/cb#state=\(state)", now: 0)
        }
        #expect(
            try p.parseCallback(
                "https://client.example/cb#access_token=t&token_type=DPoP&scope=a%20b&state=\(state)",
                now: 5
            )
                == OAuth2.Tokens(accessToken: "t", tokenType: "DPoP", expiresAt: nil, scope: ["a", "b"])
        )
    }

    /// The implicit request asks for `response_type=token` and carries nothing that needs a code.
    @Test func implicitRequestParameters() throws {
        let request = try OAuth2.ImplicitAuthorizationRequest(
            authorizationEndpoint: "https://www.facebook.com/v19.0/dialog/oauth",
            clientID: "123456",
            redirectURI: "fb123456://authorize/",
            scope: ["email"],
            random: .repeating([0x01])
        )
        #expect(
            request.url
                == "https://www.facebook.com/v19.0/dialog/oauth?response_type=token&client_id=123456"
                + "&redirect_uri=fb123456%3A%2F%2Fauthorize%2F&scope=email&state=AQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQE"
        )
        #expect(!request.description.contains("AQEB"))
        for parameters in [
            [("code_challenge", "x")], [("nonce", "n")], [("dpop_jkt", "j")], [("response_type", "code")],
        ] {
            #expect(throws: OAuth2.Error(.invalidConfiguration, "")) {
                try OAuth2.ImplicitAuthorizationRequest(
                    authorizationEndpoint: "https://as.example/authorize",
                    clientID: "c",
                    redirectURI: "https://client.example/cb",
                    additionalParameters: parameters,
                    random: .repeating([0x01])
                )
            }
        }
        #expect(throws: OAuth2.Error(.invalidConfiguration, "")) {
            try OAuth2.ImplicitAuthorizationRequest(
                authorizationEndpoint: "https://as.example/authorize",
                clientID: "c",
                redirectURI: "https://client.example/cb",
                scope: ["openid"],
                random: .repeating([0x01])
            )
        }
    }

    @Test func customSchemeAndLoopbackCallbacks() throws {
        let state = "ZWVlNDBlYzA1NjdkMDNhYjg3ZjUxZjAyNGQzMTM2NzI"
        let p = pending(state: state)
        #expect(try p.parseCallback("com.example.app:/oauth2redirect?code=abc&state=\(state)") == .code("abc"))
        #expect(
            try p.parseCallback("http://127.0.0.1:49152/callback?state=\(state)&code=a%2Bb") == .code("a+b")
        )
        // An empty fragment does not hide the query.
        #expect(try p.parseCallback("myapp://cb?code=c1&state=\(state)#") == .code("c1"))
    }

    @Test func rfc9207IssuerChecks() throws {
        let state = "ZWVlNDBlYzA1NjdkMDNhYjg3ZjUxZjAyNGQzMTM2NzI"
        let withIss = "https://client.example/cb?code=c&state=\(state)&iss=https%3A%2F%2Fas.example"
        let withoutIss = "https://client.example/cb?code=c&state=\(state)"
        // Required by metadata: present and equal passes, absent fails.
        let strict = pending(state: state, issuer: "https://as.example", requiresIssuer: true)
        #expect(try strict.parseCallback(withIss) == .code("c"))
        #expect(throws: OAuth2.Error(.issuerMismatch, "")) { try strict.parseCallback(withoutIss) }
        // Not required: absent passes, present is still checked.
        let lenient = pending(state: state, issuer: "https://other.example")
        #expect(try lenient.parseCallback(withoutIss) == .code("c"))
        #expect(throws: OAuth2.Error(.issuerMismatch, "")) { try lenient.parseCallback(withIss) }
        // An iss with no issuer configured cannot be checked: refused.
        #expect(throws: OAuth2.Error(.issuerMismatch, "")) { try pending(state: state).parseCallback(withIss) }
        // An error redirect is checked too (RFC 9207 §2.2).
        let error = "https://client.example/cb?error=access_denied&state=\(state)&iss=https%3A%2F%2Fevil.example"
        #expect(throws: OAuth2.Error(.issuerMismatch, "")) { try strict.parseCallback(error) }
    }

    /// RFC 9207 §2.4: an error redirect without the promised `iss` is refused, and the reason
    /// says both that and the error it carried.
    @Test func aRefusalWithoutIssSaysBoth() throws {
        let state = "ZWVlNDBlYzA1NjdkMDNhYjg3ZjUxZjAyNGQzMTM2NzI"
        let strict = pending(state: state, issuer: "https://as.example", requiresIssuer: true)
        let thrown = #expect(throws: OAuth2.Error.self) {
            try strict.parseCallback("https://client.example/cb?error=access_denied&state=\(state)")
        }
        #expect(thrown?.code == .issuerMismatch)
        #expect(
            thrown?.reason
                == "the server supports the iss parameter but the redirect has none (RFC 9207 §2.4); it carried error 'access_denied'"
        )
    }

    @Test func errorResponseKeepsDescriptionAndURI() throws {
        let state = "ZWVlNDBlYzA1NjdkMDNhYjg3ZjUxZjAyNGQzMTM2NzI"
        let url =
            "https://client.example/cb?error=invalid_scope&error_description=Unknown+scope%3A+x"
            + "&error_uri=https%3A%2F%2Fas.example%2Ferr&state=\(state)"
        let thrown = #expect(throws: OAuth2.Error.self) { try pending(state: state).parseCallback(url) }
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
            #expect(throws: OAuth2.Error(.malformedResponse, ""), "\(url)") { try p.parseCallback(url) }
        }
        #expect(throws: OAuth2.Error(.stateMismatch, "")) {
            try p.parseCallback("https://client.example/cb?code=c")
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
