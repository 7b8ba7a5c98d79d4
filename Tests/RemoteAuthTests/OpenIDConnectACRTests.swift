import RemoteAuth
import Testing

extension OpenIDConnectIDTokenTests {
    /// Rule 12 after a step-up (RFC 9470 §4): `acr` required and one of the `acr_values` asked
    /// for, when the caller needs the class; otherwise returned for the caller to judge.
    @Test func requiredAuthenticationClass() async throws {
        let mfa = OpenIDConnect.IDTokenValidator.Expectation(
            nonce: F.nonce,
            requiredACRValues: ["urn:example:mfa", "urn:example:hwk"]
        )
        let stepped = try await F.validator().validate(
            F.token(["acr": "urn:example:hwk"]),
            expecting: mfa,
            now: F.now
        )
        #expect(stepped.authenticationContextClass == "urn:example:hwk")
        try await refused(.authenticationClassNotMet, F.token(["acr": "urn:example:password"]), expecting: mfa)
        try await refused(.authenticationClassNotMet, F.token(["acr": nil]), expecting: mfa)
        do {
            _ = try await F.validator().validate(F.token(["acr": "urn:example:password"]), expecting: mfa, now: F.now)
            Issue.record("a token of another class was accepted")
        } catch let error as OpenIDConnect.Error {
            #expect(
                error.reason
                    == "the ID token's acr is urn:example:password, not one of the acr_values asked for: urn:example:mfa urn:example:hwk (rule 12, RFC 9470 §4)"
            )
        }
        // Not required: any class, or none, passes.
        let any = try await F.validator().validate(
            F.token(["acr": "urn:example:password"]),
            expecting: expect,
            now: F.now
        )
        #expect(any.authenticationContextClass == "urn:example:password")
    }
}
