import Foundation
import HTTPTypes
import RemoteAuth
import Testing

@Suite struct OAuth2TokenRequestTests {
    let client = OAuth2.Client.public(id: "c")

    func form(_ request: OAuth2.TokenRequest) throws -> [Pair] {
        let (head, body) = try request.httpRequest(to: "https://as.example/token", client: client)
        #expect(head.method == .post)
        #expect(head.headerFields[.contentType] == "application/x-www-form-urlencoded")
        #expect(head.headerFields[.accept] == "application/json")
        #expect(head.absoluteURL == "https://as.example/token")
        return try OAuth2Script.form(body)
    }

    @Test func rfc6749TokenRequestVector() throws {
        let v = try #require(
            try OAuth2ResponseVector.all("form_request").first { $0.name == "rfc6749_4.1.3_token_request" }
        )
        let request = OAuth2.TokenRequest.authorizationCode(
            "SplxlOBeZQQYbYS6WxSbIA",
            redirectURI: "https://client.example.com/cb",
            codeVerifier: "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
        )
        let expected = try #require(v.expected_params)
        #expect(
            try form(request)
                == expected + [
                    Pair(name: "code_verifier", value: "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"),
                    Pair(name: "client_id", value: "c"),
                ]
        )
        // The RFC's own body (HTML 4.01 '%2E') decodes to the same parameters.
        let rfcBody = try #require(v.body)
        #expect(try OAuth2Script.form(Array(rfcBody.utf8)) == expected)
        #expect(!"\(request)".contains("SplxlOBeZQQYbYS6WxSbIA"))
    }

    @Test func everyGrant() throws {
        #expect(
            try form(.refreshToken("r", scope: ["a", "b"])) == [
                Pair(name: "grant_type", value: "refresh_token"), Pair(name: "refresh_token", value: "r"),
                Pair(name: "scope", value: "a b"), Pair(name: "client_id", value: "c"),
            ]
        )
        #expect(
            try form(.clientCredentials(resources: ["https://api.example/"])) == [
                Pair(name: "grant_type", value: "client_credentials"),
                Pair(name: "resource", value: "https://api.example/"), Pair(name: "client_id", value: "c"),
            ]
        )
        #expect(
            try form(.deviceCode("GmRhmhcxhwAzkoEqiMEg_DnyEysNkuNhszIySk9eS")) == [
                Pair(name: "grant_type", value: "urn:ietf:params:oauth:grant-type:device_code"),
                Pair(name: "device_code", value: "GmRhmhcxhwAzkoEqiMEg_DnyEysNkuNhszIySk9eS"),
                Pair(name: "client_id", value: "c"),
            ]
        )
        #expect(
            try form(.jwtBearer(assertion: "eyJ.x.y", scope: ["s"])) == [
                Pair(name: "grant_type", value: "urn:ietf:params:oauth:grant-type:jwt-bearer"),
                Pair(name: "assertion", value: "eyJ.x.y"), Pair(name: "scope", value: "s"),
                Pair(name: "client_id", value: "c"),
            ]
        )
        #expect(
            try form(
                .tokenExchange(
                    subjectToken: "accVzJ1c2",
                    subjectTokenType: "urn:ietf:params:oauth:token-type:access_token",
                    resources: ["https://backend.example.com/api"],
                    audiences: ["b"],
                    requestedTokenType: "urn:ietf:params:oauth:token-type:jwt"
                )
            ) == [
                Pair(name: "grant_type", value: "urn:ietf:params:oauth:grant-type:token-exchange"),
                Pair(name: "subject_token", value: "accVzJ1c2"),
                Pair(name: "subject_token_type", value: "urn:ietf:params:oauth:token-type:access_token"),
                Pair(name: "resource", value: "https://backend.example.com/api"), Pair(name: "audience", value: "b"),
                Pair(name: "requested_token_type", value: "urn:ietf:params:oauth:token-type:jwt"),
                Pair(name: "client_id", value: "c"),
            ]
        )
        #expect(
            try form(.init(grantType: .init(rawValue: "urn:example:grant"), parameters: [("x", "1")])) == [
                Pair(name: "grant_type", value: "urn:example:grant"), Pair(name: "x", value: "1"),
                Pair(name: "client_id", value: "c"),
            ]
        )
    }

    @Test func insecureTokenEndpointsAreRefused() throws {
        let request = OAuth2.TokenRequest.clientCredentials()
        #expect(throws: OAuth2.Error(.insecureEndpoint, "")) {
            try request.httpRequest(to: "http://as.example/token", client: client)
        }
        #expect(throws: OAuth2.Error(.insecureEndpoint, "")) {
            try request.httpRequest(to: "http://127.0.0.1.evil.example/token", client: client)
        }
        _ = try request.httpRequest(to: "http://127.0.0.1:8080/oauth2/token", client: client)
    }
}

@Suite struct OAuth2TokenResponseTests {
    @Test(arguments: try OAuth2ResponseVector.all("token_response"))
    func vector(_ v: OAuth2ResponseVector) throws {
        let response = try OAuth2.TokenResponse.parse(
            status: try #require(v.status),
            body: Array(try #require(v.body).utf8),
            now: 1_000_000
        )
        #expect(response.tokens.accessToken.reveal() == v.expected_access_token)
        #expect(response.tokens.tokenType == v.expected_token_type)
        #expect(response.expiresIn == v.expected_expires_in)
        #expect(response.tokens.expiresAt == v.expected_expires_in.map { 1_000_000 + $0 })
        #expect(response.tokens.refreshToken?.reveal() == v.expected_refresh_token)
        #expect(response.tokens.scope == v.expected_scope.map { $0.split(separator: " ").map(String.init) })
        #expect(response.additionalParameters == (v.expected_extra_members ?? [:]))
    }

    @Test(arguments: try OAuth2ResponseVector.all("error_response"))
    func errorVector(_ v: OAuth2ResponseVector) throws {
        let thrown = #expect(throws: OAuth2.Error.self) {
            try OAuth2.TokenResponse.parse(status: v.status ?? 400, body: Array((v.body ?? "").utf8), now: 0)
        }
        #expect(thrown?.code == .serverRefused)
        #expect(thrown?.status == v.status)
        #expect(
            thrown?.serverError
                == OAuth2.ErrorResponse(
                    code: .init(rawValue: try #require(v.expected_error)),
                    errorDescription: v.expected_error_description,
                    errorURI: v.expected_error_uri
                )
        )
    }

    @Test func refreshKeepsTheOldRefreshTokenAndScope() throws {
        let previous = OAuth2.Tokens(
            accessToken: "old",
            tokenType: "Bearer",
            expiresAt: 10,
            refreshToken: "r1",
            scope: ["a"]
        )
        let kept = try OAuth2.TokenResponse.parse(
            status: 200,
            body: Array(#"{"access_token":"new","token_type":"Bearer","expires_in":"60"}"#.utf8),
            now: 100,
            previous: previous
        )
        #expect(
            kept.tokens
                == OAuth2.Tokens(
                    accessToken: "new",
                    tokenType: "Bearer",
                    expiresAt: 160,
                    refreshToken: "r1",
                    scope: ["a"]
                )
        )
        let rotated = try OAuth2.TokenResponse.parse(
            status: 200,
            body: Array(
                #"{"access_token":"new","token_type":"bearer","refresh_token":"r2","scope":"a b","x":{"y":[1,2.5,null,true]}}"#
                    .utf8
            ),
            now: 100,
            previous: previous
        )
        #expect(rotated.tokens.refreshToken == "r2")
        #expect(rotated.tokens.scope == ["a", "b"])
        #expect(rotated.tokens.expiresAt == nil)
        #expect(rotated.tokens.isBearer)
        #expect(
            rotated.additionalParameters == [
                "x": .object(["y": .array([.integer(1), .number(2.5), .null, .bool(true)])])
            ]
        )
    }

    @Test func malformedBodiesKeepStatusAndAShortExcerpt() throws {
        let html =
            "<html><head><title>502 Bad Gateway</title></head><body>" + String(repeating: "x", count: 500)
            + "</body></html>"
        let thrown = #expect(throws: OAuth2.Error.self) {
            try OAuth2.TokenResponse.parse(status: 502, body: Array(html.utf8), now: 0)
        }
        #expect(thrown?.code == .malformedResponse)
        #expect(thrown?.status == 502)
        #expect(thrown?.reason.contains("<html><head><title>502 Bad Gateway</title>") == true)
        #expect((thrown?.reason.count ?? 999) < 260)

        // A body that echoes the request's secret does not carry it into the error.
        let echo = #expect(throws: OAuth2.Error.self) {
            try OAuth2.TokenResponse.parse(
                status: 400,
                body: Array("bad code SplxlOBeZQQYbYS6WxSbIA".utf8),
                now: 0,
                redacting: ["SplxlOBeZQQYbYS6WxSbIA"]
            )
        }
        #expect(echo?.reason.contains("SplxlOBeZQQYbYS6WxSbIA") == false)
        #expect(echo?.reason.contains("<redacted>") == true)

        for body in [
            #"{"token_type":"Bearer"}"#,  // no access_token
            #"{"access_token":"","token_type":"Bearer"}"#,
            #"{"access_token":"t"}"#,  // no token_type
            #"{"access_token":7,"token_type":"Bearer"}"#,
            #"{"access_token":"t","token_type":"Bearer","expires_in":"soon"}"#,
            #"{"access_token":"t","token_type":"Bearer","expires_in":-1}"#,
            #"{"access_token":"t","token_type":"Bearer","refresh_token":false}"#,
            #"["access_token"]"#,
            "",
        ] {
            #expect(throws: OAuth2.Error(.malformedResponse, ""), "\(body)") {
                try OAuth2.TokenResponse.parse(status: 200, body: Array(body.utf8), now: 0)
            }
        }
        // A JSON error status without an OAuth error.
        let noError = #expect(throws: OAuth2.Error.self) {
            try OAuth2.TokenResponse.parse(status: 500, body: Array(#"{"message":"boom"}"#.utf8), now: 0)
        }
        #expect(noError?.code == .malformedResponse)
        #expect(noError?.status == 500)
    }
}
