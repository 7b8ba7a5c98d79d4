import HTTPTypes
import RemoteAuth
import Testing

/// `WWW-Authenticate` parsed field by field (RFC 9110 §11.6.1): a malformed field costs only
/// its own challenges.
@Suite struct ChallengeFieldTests {
    func fields(_ values: String..., name: HTTPField.Name = .wwwAuthenticate) -> HTTPFields {
        var fields = HTTPFields()
        for value in values { fields.append(HTTPField(name: name, value: value)) }
        return fields
    }

    @Test func goodFieldsSurviveAMalformedOne() throws {
        let parsed = AuthenticationChallenge.parseEachField(
            fields("Digest realm=\"r\", nonce=\"n\"", "Basic realm=\"open", "Bearer realm=\"api\", Basic realm=\"b\"")
        )
        #expect(parsed.challenges.map(\.scheme) == ["Digest", "Bearer", "Basic"])
        #expect(parsed.errors.map(\.code) == [.unterminatedQuotedString])
        #expect(
            parsed.errors.first?.reason == "WWW-Authenticate field 2: quoted-string opened at offset 12 is not closed"
        )
        #expect(!parsed.allFieldsMalformed)
        // The strict form still refuses the response, naming the same field.
        let error = #expect(throws: ChallengeError.self) {
            try AuthenticationChallenge.parse(fields("Digest realm=\"r\", nonce=\"n\"", "Basic realm=\"open"))
        }
        #expect(error?.reason == "WWW-Authenticate field 2: quoted-string opened at offset 12 is not closed")
    }

    @Test func allMalformed() {
        let parsed = AuthenticationChallenge.parseEachField(fields("realm=\"r\"", "Basic a=1, a=2"))
        #expect(parsed.challenges.isEmpty && parsed.allFieldsMalformed)
        #expect(parsed.errors.map(\.code) == [.parameterWithoutScheme, .duplicateParameter])
        #expect(parsed.errors.count == 2)
        #expect(parsed.errors.first?.reason.hasPrefix("WWW-Authenticate field 1: ") == true)
        #expect(parsed.errors.last?.reason.hasPrefix("WWW-Authenticate field 2: ") == true)
    }

    @Test func noFieldsIsNotMalformed() {
        let parsed = AuthenticationChallenge.parseEachField(fields("Basic realm=\"p\"", name: .proxyAuthenticate))
        #expect(parsed == ParsedChallenges())
        #expect(!parsed.allFieldsMalformed)
        let proxy = AuthenticationChallenge.parseEachField(
            fields("Basic realm=\"p\"", name: .proxyAuthenticate),
            name: .proxyAuthenticate
        )
        #expect(proxy.challenges.map { $0.parameter("realm") } == ["p"])
    }
}
