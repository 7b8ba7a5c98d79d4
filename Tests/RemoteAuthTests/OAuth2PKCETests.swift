import RemoteAuth
import Testing

struct PKCEVector: Decodable, Sendable, CustomTestStringConvertible {
    let name: String
    let verifier_octets: [UInt8]?
    let code_verifier: String
    let code_challenge_method: String
    let expected_code_challenge: String
    var testDescription: String { name }
}

@Suite struct OAuth2PKCETests {
    @Test(arguments: try Vectors.load("pkce", as: PKCEVector.self).filter { $0.code_challenge_method == "S256" })
    func s256Challenge(_ v: PKCEVector) throws {
        #expect(OAuth2.PKCE.challenge(for: v.code_verifier) == v.expected_code_challenge)
        let pkce = try OAuth2.PKCE(verifier: Secret(v.code_verifier))
        #expect(pkce.challenge == v.expected_code_challenge)
        #expect(pkce.challengeMethod == "S256")
        #expect(pkce.verifier.reveal() == v.code_verifier)
        if let octets = v.verifier_octets {
            // The 32 octets, as a random source would give them, make the RFC's verifier.
            let generated = OAuth2.PKCE(random: .repeating(octets))
            #expect(generated.verifier.reveal() == v.code_verifier)
            #expect(generated.challenge == v.expected_code_challenge)
        }
    }

    @Test func appendixB() throws {
        let pkce = try OAuth2.PKCE(verifier: "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk")
        #expect(pkce.challenge == "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM")
    }

    /// `plain` cannot be built: the same verifier always gets the S256 challenge.
    @Test(arguments: try Vectors.load("pkce", as: PKCEVector.self).filter { $0.code_challenge_method == "plain" })
    func plainIsNeverBuilt(_ v: PKCEVector) throws {
        let pkce = try OAuth2.PKCE(verifier: Secret(v.code_verifier))
        #expect(pkce.challengeMethod == "S256")
        #expect(pkce.challenge != v.expected_code_challenge)
        #expect(pkce.challenge == "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM")
    }

    @Test func randomVerifierIs43Base64URLCharacters() {
        let pkce = OAuth2.PKCE(random: .repeating([0x01]))
        #expect(pkce.verifier.reveal() == "AQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQE")
        #expect(pkce.challenge == "VtX6czP210fbQsI5QH5dpMMvTHnzXQkrE0_TWkAtnFw")
        let seeded = OAuth2.PKCE(random: .seeded(7))
        #expect(seeded.verifier.reveal().count == 43)
        #expect(seeded.verifier.reveal().utf8.allSatisfy(FormURLEncoding.isUnreserved))
    }

    @Test(arguments: [
        String(repeating: "a", count: 42),  // too short (RFC 7636 §4.1: 43..128)
        String(repeating: "a", count: 129),  // too long
        String(repeating: "a", count: 42) + "+",  // not unreserved
        String(repeating: "a", count: 42) + " ",
        "",
    ])
    func invalidVerifiersAreRefused(_ verifier: String) {
        #expect(throws: OAuth2.Error(.invalidConfiguration, "")) { try OAuth2.PKCE(verifier: Secret(verifier)) }
    }

    @Test func descriptionHidesTheVerifier() throws {
        let pkce = try OAuth2.PKCE(verifier: "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk")
        #expect(!"\(pkce)".contains("dBjftJeZ4CVP"))
        #expect("\(pkce)".contains("E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"))
    }
}

@Suite struct OAuth2AuthorizationRequestTests {
    let state = "AQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQE"
    let challenge = "VtX6czP210fbQsI5QH5dpMMvTHnzXQkrE0_TWkAtnFw"

    @Test func buildsTheURLWithEveryParameterInOrder() throws {
        let request = try OAuth2.AuthorizationRequest(
            authorizationEndpoint: "https://as.example/authorize",
            clientID: "s6BhdRkqt3",
            redirectURI: "https://client.example.com/cb",
            scope: ["read", "write"],
            resources: ["https://api.example.com/", "https://files.example.com/"],
            additionalParameters: [("prompt", "consent"), ("login_hint", "a b")],
            issuer: "https://as.example",
            random: .repeating([0x01])
        )
        #expect(
            request.url
                == "https://as.example/authorize?response_type=code&client_id=s6BhdRkqt3"
                + "&redirect_uri=https%3A%2F%2Fclient.example.com%2Fcb&scope=read%20write"
                + "&state=\(state)&code_challenge=\(challenge)&code_challenge_method=S256"
                + "&resource=https%3A%2F%2Fapi.example.com%2F&resource=https%3A%2F%2Ffiles.example.com%2F"
                + "&prompt=consent&login_hint=a%20b"
        )
        #expect(request.pending.state.reveal() == state)
        #expect(request.pending.codeVerifier.reveal() == "AQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQE")
        #expect(request.pending.redirectURI == "https://client.example.com/cb")
        #expect(request.pending.issuer == "https://as.example")
        #expect(!"\(request)".contains(state))
        #expect(!"\(request.pending)".contains(state))
    }

    @Test func keepsTheEndpointsQuery() throws {
        let request = try OAuth2.AuthorizationRequest(
            authorizationEndpoint: "https://as.example/authorize?tenant=x",
            clientID: "c",
            redirectURI: "http://127.0.0.1:5000/callback",
            random: .repeating([0x01])
        )
        #expect(request.url.hasPrefix("https://as.example/authorize?tenant=x&response_type=code&client_id=c&"))
        #expect(!request.url.contains("scope="))
    }

    @Test func stateOf128BitsIsTheMinimum() throws {
        let pkce = OAuth2.PKCE(random: .repeating([2]))
        func build(_ state: String) throws -> OAuth2.AuthorizationRequest {
            try OAuth2.AuthorizationRequest(
                authorizationEndpoint: "https://as.example/authorize",
                clientID: "c",
                redirectURI: "https://client.example/cb",
                state: Secret(state),
                pkce: pkce
            )
        }
        #expect(try build(String(repeating: "x", count: 22)).pending.state.reveal().count == 22)
        #expect(throws: OAuth2.Error(.invalidConfiguration, "")) { try build(String(repeating: "x", count: 21)) }
        #expect(throws: OAuth2.Error(.invalidConfiguration, "")) { try build("xyz") }
        #expect(throws: OAuth2.Error(.invalidConfiguration, "")) { try build(String(repeating: "x", count: 22) + "\n") }
    }

    @Test func refusals() throws {
        func build(
            endpoint: String = "https://as.example/authorize",
            redirect: String = "https://client.example/cb",
            resources: [String] = [],
            extra: [(name: String, value: String)] = [],
            requiresIssuer: Bool = false
        ) throws {
            _ = try OAuth2.AuthorizationRequest(
                authorizationEndpoint: endpoint,
                clientID: "c",
                redirectURI: redirect,
                resources: resources,
                additionalParameters: extra,
                requiresIssuer: requiresIssuer,
                random: .seeded(1)
            )
        }
        #expect(throws: OAuth2.Error(.insecureEndpoint, "")) { try build(endpoint: "http://as.example/authorize") }
        #expect(throws: OAuth2.Error(.insecureEndpoint, "")) { try build(endpoint: "ftp://as.example/authorize") }
        #expect(throws: OAuth2.Error(.invalidConfiguration, "")) { try build(endpoint: "as.example/authorize") }
        #expect(throws: OAuth2.Error(.invalidConfiguration, "")) { try build(redirect: "https://client.example/cb#x") }
        #expect(throws: OAuth2.Error(.invalidConfiguration, "")) { try build(resources: ["/relative"]) }
        #expect(throws: OAuth2.Error(.invalidConfiguration, "")) { try build(resources: ["https://api.example/#f"]) }
        #expect(throws: OAuth2.Error(.invalidConfiguration, "")) { try build(extra: [("state", "x")]) }
        #expect(throws: OAuth2.Error(.invalidConfiguration, "")) {
            try build(extra: [("code_challenge_method", "plain")])
        }
        #expect(throws: OAuth2.Error(.invalidConfiguration, "")) { try build(requiresIssuer: true) }
        // Loopback over plain http is fine (RFC 8252 §8.3).
        try build(endpoint: "http://127.0.0.1:8080/oauth2/authorize")
        try build(endpoint: "http://[::1]:8080/oauth2/authorize")
        try build(endpoint: "http://localhost/oauth2/authorize")
    }
}
