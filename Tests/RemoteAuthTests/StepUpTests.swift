import Foundation
import HTTPTypes
import RemoteAuth
import Testing

/// What a refusal asks a new sign-in for: RFC 6750 §3.1's `insufficient_scope` and RFC 9470 §3's
/// `insufficient_user_authentication`, from Bearer and DPoP challenges.
@Suite struct StepUpTests {
    static func response(_ status: Int, _ challenges: [String]) -> HTTPResponse {
        var fields = HTTPFields()
        for challenge in challenges { fields.append(HTTPField(name: .wwwAuthenticate, value: challenge)) }
        return HTTPResponse(status: .init(code: status), headerFields: fields)
    }

    @Test func insufficientScopeAsksForTheUnion() throws {
        let stepUp = try #require(
            OAuth2.StepUp(
                response: Self.response(403, [#"Bearer realm="api", error="insufficient_scope", scope="write read""#]),
                currentScope: ["read", "profile"]
            )
        )
        #expect(stepUp.error == .insufficientScope)
        #expect(stepUp.scope == ["read", "profile", "write"])
        #expect(stepUp.namedScope == ["write", "read"])
        #expect(stepUp.authorizationParameters.isEmpty)
        #expect(stepUp.status == 403)
        #expect("\(stepUp)" == "the resource asks for the scope write read (insufficient_scope, RFC 6750 §3.1)")
    }

    /// RFC 9470 §3's example challenge, and the parameters of the new authorization request (§4).
    @Test func insufficientUserAuthentication() throws {
        let stepUp = try #require(
            OAuth2.StepUp(
                response: Self.response(
                    401,
                    [
                        #"Bearer error="insufficient_user_authentication", error_description="A different authentication level is required", acr_values="myACR""#
                    ]
                ),
                currentScope: nil
            )
        )
        #expect(stepUp.error == .insufficientUserAuthentication)
        #expect(stepUp.acrValues == ["myACR"])
        #expect(stepUp.authorizationParameters.map { "\($0.name)=\($0.value)" } == ["acr_values=myACR"])
        let aged = try #require(
            OAuth2.StepUp(
                response: Self.response(401, [#"Bearer error="insufficient_user_authentication", max_age="5""#]),
                currentScope: ["a"]
            )
        )
        #expect(aged.maxAge == 5)
        #expect(aged.scope == ["a"])
        // max_age is the authorization request's own parameter, not an additional one.
        #expect(aged.authorizationParameters.isEmpty)
        #expect(
            "\(aged)"
                == "the resource asks for a stronger or more recent sign-in: max_age 5 (insufficient_user_authentication, RFC 9470 §3)"
        )
    }

    /// A DPoP challenge's parameters are read as a Bearer one's; its `algs` is not a step-up's.
    @Test func fromADPoPChallenge() throws {
        let stepUp = try #require(
            OAuth2.StepUp(
                response: Self.response(
                    403,
                    [#"DPoP algs="ES256", error="insufficient_scope", scope="files:write""#]
                ),
                currentScope: ["files:read"]
            )
        )
        #expect(stepUp.scope == ["files:read", "files:write"])
    }

    /// No step-up: another error, another status, another scheme, a malformed challenge.
    @Test(arguments: [
        (401, #"Bearer error="invalid_token""#), (400, #"Bearer error="insufficient_scope", scope="x""#),
        (403, #"Basic realm="x""#), (403, #"OAuth realm="x", error="insufficient_scope""#),
        (403, #"Bearer error="insufficient_scope", error="insufficient_scope""#),
        (401, #"Bearer error="insufficient_user_authentication", max_age="-1""#),
    ])
    func notAStepUp(status: Int, challenge: String) {
        #expect(OAuth2.StepUp(response: Self.response(status, [challenge]), currentScope: nil) == nil)
    }
}
