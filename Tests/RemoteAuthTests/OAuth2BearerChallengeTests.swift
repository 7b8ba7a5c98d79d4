import RemoteAuth
import Testing

@Suite struct OAuth2BearerChallengeTests {
    @Test(arguments: try OAuth2ResponseVector.all("www_authenticate"))
    func vector(_ v: OAuth2ResponseVector) throws {
        let challenges = try AuthenticationChallenge.parse(try #require(v.www_authenticate))
        guard challenges.first?.hasScheme("Bearer") == true else {
            // DPoP-only challenges hold no Bearer challenge.
            if !challenges.contains(where: { $0.hasScheme("Bearer") }) {
                #expect(try OAuth2.BearerChallenge.first(in: challenges) == nil)
            }
            return
        }
        let bearer = try #require(try OAuth2.BearerChallenge.first(in: challenges))
        #expect(bearer.realm == v.expected_realm)
        #expect(bearer.error?.rawValue == v.expected_error)
        #expect(bearer.errorDescription == v.expected_error_description)
        #expect(bearer.errorURI == v.expected_error_uri)
        #expect(bearer.scope == v.expected_scope.map { $0.split(separator: " ").map(String.init) })
        #expect(bearer.acrValues == v.expected_acr_values.map { $0.split(separator: " ").map(String.init) })
        #expect(bearer.maxAge == v.expected_max_age)
        #expect(bearer.isInvalidToken == (v.expected_error == "invalid_token"))
        #expect(bearer.errorResponse?.code.rawValue == v.expected_error)
    }

    @Test(arguments: try OAuth2ResponseVector.all("auth_param"))
    func scopeParameter(_ v: OAuth2ResponseVector) throws {
        let challenges = try AuthenticationChallenge.parse(
            #"Bearer realm="example", error="insufficient_scope", "# + (try #require(v.auth_param))
        )
        let bearer = try #require(try OAuth2.BearerChallenge.first(in: challenges))
        #expect(bearer.error == .insufficientScope)
        #expect(bearer.scope == v.expected_scope?.split(separator: " ").map(String.init))
    }

    @Test func rfc9470Codes() throws {
        let challenge = try #require(
            try AuthenticationChallenge.parse(
                #"Bearer error="insufficient_user_authentication", acr_values="phr phrh", max_age=0"#
            ).first
        )
        let bearer = try OAuth2.BearerChallenge(challenge)
        #expect(bearer.error == .insufficientUserAuthentication)
        #expect(bearer.acrValues == ["phr", "phrh"])
        #expect(bearer.maxAge == 0)
    }

    @Test(arguments: [
        #"Bearer error="insufficient_user_authentication", max_age="soon""#,
        #"Bearer error="insufficient_user_authentication", max_age="-5""#,
        #"Bearer error="insufficient_user_authentication", max_age="""#,
        "Bearer abc==",
        #"Basic realm="example""#,
    ])
    func malformed(_ field: String) throws {
        let challenge = try #require(try AuthenticationChallenge.parse(field).first)
        #expect(throws: OAuth2.Error(.malformedResponse, "")) { try OAuth2.BearerChallenge(challenge) }
    }

    /// The field parser already refuses a repeated parameter; a challenge built by hand is
    /// checked again.
    @Test func repeatedParameters() {
        let challenge = AuthenticationChallenge(
            scheme: "Bearer",
            parameters: [
                .init(name: "error", value: "invalid_token"), .init(name: "ERROR", value: "insufficient_scope"),
            ]
        )
        #expect(throws: OAuth2.Error(.malformedResponse, "")) { try OAuth2.BearerChallenge(challenge) }
    }
}
