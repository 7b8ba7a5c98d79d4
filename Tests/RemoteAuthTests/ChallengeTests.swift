import HTTPTypes
import RemoteAuth
import Testing

private typealias P = AuthenticationChallenge.Parameter

@Suite struct ChallengeParserTests {
    /// RFC 9110 §11.6.1's example: two challenges in one field value, an escaped quote.
    @Test func rfc9110Section11_6_1Example() throws {
        let value = #"Newauth realm="apps", type=1, title="Login to \"apps\"", Basic realm="simple""#
        let challenges = try AuthenticationChallenge.parse(value)
        #expect(
            challenges == [
                AuthenticationChallenge(
                    scheme: "Newauth",
                    parameters: [
                        P(name: "realm", value: "apps"), P(name: "type", value: "1"),
                        P(name: "title", value: #"Login to "apps""#),
                    ]
                ),
                AuthenticationChallenge(scheme: "Basic", parameters: [P(name: "realm", value: "simple")]),
            ]
        )
    }

    @Test func everyDigestVectorChallengeParses() throws {
        for vector in try Vectors.load("http_digest", as: DigestVector.self) {
            let challenges = try AuthenticationChallenge.parse(vector.challenge)
            #expect(challenges.count == 1)
            #expect(challenges.first?.scheme == "Digest")
            #expect(challenges.first?.parameter("REALM") == vector.realm)
            #expect(challenges.first?.parameter("nonce") == vector.nonce)
        }
    }

    @Test func severalFieldsAndSeveralChallengesPerField() throws {
        var fields = HTTPFields()
        fields.append(HTTPField(name: .wwwAuthenticate, value: #"Basic realm="a", Bearer"#))
        fields.append(HTTPField(name: .contentType, value: "text/plain"))
        fields.append(HTTPField(name: .wwwAuthenticate, value: #"Digest realm="b", nonce="n", algorithm=SHA-256"#))
        fields.append(HTTPField(name: .proxyAuthenticate, value: #"Basic realm="proxy""#))
        let challenges = try AuthenticationChallenge.parse(fields)
        #expect(challenges.map(\.scheme) == ["Basic", "Bearer", "Digest"])
        #expect(challenges[2].parameter("Algorithm") == "SHA-256")
        let proxy = try AuthenticationChallenge.parse(fields, name: .proxyAuthenticate)
        #expect(proxy == [AuthenticationChallenge(scheme: "Basic", parameters: [P(name: "realm", value: "proxy")])])
        #expect(try AuthenticationChallenge.parse(HTTPFields()) == [])
    }

    @Test func errorInSecondFieldNamesTheField() throws {
        var fields = HTTPFields()
        fields.append(HTTPField(name: .wwwAuthenticate, value: #"Basic realm="a""#))
        fields.append(HTTPField(name: .wwwAuthenticate, value: #"Digest realm="b"#))
        let error = try #require(throws: ChallengeError.self) { try AuthenticationChallenge.parse(fields) }
        #expect(error.code == .unterminatedQuotedString)
        #expect(error.reason.contains("WWW-Authenticate field 2"))
        #expect(error.reason.contains("offset 13"))
    }

    @Test(arguments: [
        (
            "Negotiate YIIB9wYGKwYBBQUCoIIB6zCCAeegDTALBgkqhkiG9xIBAgKiggHU", "Negotiate",
            "YIIB9wYGKwYBBQUCoIIB6zCCAeegDTALBgkqhkiG9xIBAgKiggHU"
        ),
        ("Bearer abc/def+ghi==", "Bearer", "abc/def+ghi=="),
        ("Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==", "Basic", "QWxhZGRpbjpvcGVuIHNlc2FtZQ=="),
        ("Foo a=", "Foo", "a="),
        ("Foo a==   ", "Foo", "a=="),
        ("Foo -._~+/", "Foo", "-._~+/"),
    ])
    func token68(_ value: String, _ scheme: String, _ token: String) throws {
        let challenges = try AuthenticationChallenge.parse(value)
        #expect(challenges == [AuthenticationChallenge(scheme: scheme, token68: token)])
    }

    @Test func token68FollowedByAnotherChallenge() throws {
        let challenges = try AuthenticationChallenge.parse(#"Negotiate abc==, Basic realm="x", NTLM"#)
        #expect(
            challenges == [
                AuthenticationChallenge(scheme: "Negotiate", token68: "abc=="),
                AuthenticationChallenge(scheme: "Basic", parameters: [P(name: "realm", value: "x")]),
                AuthenticationChallenge(scheme: "NTLM"),
            ]
        )
    }

    @Test func emptyElementsAndWhitespace() throws {
        let value = " ,, Basic \t realm = \"x\" ,  , charset=UTF-8 ,,Digest\trealm=\"y\",nonce=n , "
        let challenges = try AuthenticationChallenge.parse(value)
        #expect(
            challenges == [
                AuthenticationChallenge(
                    scheme: "Basic",
                    parameters: [
                        P(name: "realm", value: "x"), P(name: "charset", value: "UTF-8"),
                    ]
                ),
                AuthenticationChallenge(
                    scheme: "Digest",
                    parameters: [
                        P(name: "realm", value: "y"), P(name: "nonce", value: "n"),
                    ]
                ),
            ]
        )
        #expect(try AuthenticationChallenge.parse("") == [])
        #expect(try AuthenticationChallenge.parse(" , ,") == [])
    }

    @Test func quotedStringEscapesAndSpecials() throws {
        let value = #"X a="back\\slash", b="q\"uote", c="comma, and = sign", d="", e="\t tab", f="ünï""#
        let challenge = try #require(try AuthenticationChallenge.parse(value).first)
        #expect(challenge.parameter("a") == #"back\slash"#)
        #expect(challenge.parameter("b") == #"q"uote"#)
        #expect(challenge.parameter("c") == "comma, and = sign")
        #expect(challenge.parameter("d") == "")
        #expect(challenge.parameter("e") == "t tab")  // quoted-pair `\t` is just "t"
        #expect(challenge.parameter("f") == "ünï")
        #expect(try AuthenticationChallenge.parse("X a=\"\t\\\t\"").first?.parameter("a") == "\t\t")
        // Rendering and parsing again gives the same challenge.
        #expect(try AuthenticationChallenge.parse(challenge.headerValue) == [challenge])
    }

    @Test func namesAreCaseInsensitiveAndKeptAsSent() throws {
        let challenge = try #require(try AuthenticationChallenge.parse(#"dIgEsT ReAlM="r", NONCE="n""#).first)
        #expect(challenge.scheme == "dIgEsT")
        #expect(challenge.hasScheme("Digest"))
        #expect(challenge.parameters.map(\.name) == ["ReAlM", "NONCE"])
        #expect(challenge.parameter("realm") == "r")
        #expect(challenge.parameter("Nonce") == "n")
        #expect(challenge.parameter("opaque") == nil)
        #expect(try DigestChallenge(challenge).realm == "r")
    }

    @Test(arguments: [
        (#"Digest realm="unterminated"#, ChallengeError.Code.unterminatedQuotedString),
        (#"Digest realm="ends with backslash\"#, .unterminatedQuotedString),
        ("Digest realm=, nonce=\"x\"", .missingValue),
        ("Digest nonce=\"x\", realm=", .missingValue),
        ("Digest nonce=\"x\", realm=,", .missingValue),
        ("Digest realm=\"x\", @bad=1", .invalidCharacter),
        ("Digest realm=\"x\" extra", .invalidCharacter),
        ("Digest realm=\"x\"\"y\"", .invalidCharacter),
        ("Digest realm=a b", .invalidCharacter),
        ("Digest realm=\"new\nline\"", .invalidCharacter),
        ("Digest realm=\"nul\u{0}\"", .invalidCharacter),
        ("Digest realm={x}", .invalidCharacter),
        ("Dig€st realm=\"x\"", .invalidCharacter),
        ("Digest\"x\"", .invalidCharacter),
        ("Basic abc=def=", .invalidCharacter),
        ("Basic abc def", .invalidCharacter),
        ("Basic =abc", .parameterWithoutScheme),  // `Basic BWS "=" BWS abc` is a parameter named Basic
        ("realm=\"x\"", .parameterWithoutScheme),
        (", realm=\"x\", Basic", .parameterWithoutScheme),
        ("Digest realm=\"a\", REALM=\"b\"", .duplicateParameter),
        ("Digest realm=\"a\", nonce=1, nonce=2", .duplicateParameter),
        ("Negotiate abc==, realm=\"x\"", .parameterAfterToken68),
    ])
    func malformed(_ value: String, _ code: ChallengeError.Code) {
        let error = #expect(throws: ChallengeError.self) { try AuthenticationChallenge.parse(value) }
        #expect(error?.code == code, "\(value) gave \(String(describing: error))")
        #expect(error?.reason.contains("offset") == true)
    }

    @Test func errorReasonsNameThePosition() throws {
        let error = try #require(throws: ChallengeError.self) {
            try AuthenticationChallenge.parse(#"Digest realm="x", nonce="y", realm="z""#)
        }
        #expect(
            error.description
                == "ChallengeError.duplicateParameter: parameter 'realm' at offset 29 appears twice in one challenge"
        )
    }

    /// Random bytes, and random mixes of grammar pieces, must give a result or a ChallengeError:
    /// never a crash or another error. Seeded, so failures reproduce.
    @Test func fuzzNeverCrashes() {
        var generator = SplitMix64(seed: 0x5EED_D16E_57)
        let pieces = [
            "Digest", "Basic", " ", "\t", ",", "=", "==", "\"", "\\", "realm", "a/b", "x", "\"q\\\"\"", "é", "\u{0}",
            "\r\n", "+",
        ]
        var parsed = 0
        var rejected = 0
        for iteration in 0..<4000 {
            let value: String
            if iteration % 2 == 0 {
                let bytes = (0..<Int.random(in: 0..<40, using: &generator)).map { _ in
                    UInt8.random(in: .min ... .max, using: &generator)
                }
                value = String(decoding: bytes, as: UTF8.self)
            } else {
                value = (0..<Int.random(in: 0..<16, using: &generator)).map { _ in
                    pieces.randomElement(using: &generator)!
                }.joined()
            }
            do {
                let challenges = try AuthenticationChallenge.parse(value)
                parsed += 1
                // What parsed renders to something that parses to the same challenges.
                for challenge in challenges where challenge.token68 == nil {
                    #expect(
                        try AuthenticationChallenge.parse(challenge.headerValue) == [challenge],
                        "\(value.debugDescription)"
                    )
                }
            } catch is ChallengeError {
                rejected += 1
            } catch {
                Issue.record("unexpected error \(error) for \(value.debugDescription)")
            }
        }
        #expect(parsed > 100)
        #expect(rejected > 100)
    }
}

@Suite struct ChallengeChooserTests {
    private func challenge(_ value: String) throws -> AuthenticationChallenge {
        try #require(try AuthenticationChallenge.parse(value).first)
    }

    @Test func strongestSupportedWins() throws {
        let basic = try challenge(#"Basic realm="r""#)
        let md5 = try challenge(#"Digest realm="r", nonce="n""#)
        let md5Sess = try challenge(#"Digest realm="r", nonce="n", algorithm=MD5-sess"#)
        let sha256 = try challenge(#"Digest realm="r", nonce="n", algorithm=SHA-256"#)
        let sha256Sess = try challenge(#"Digest realm="r", nonce="n", algorithm=sha-256-SESS"#)
        let sha512 = try challenge(#"Digest realm="r", nonce="n", algorithm=SHA-512-256"#)
        let sha512Sess = try challenge(#"Digest realm="r", nonce="n", algorithm=SHA-512-256-sess"#)
        let unknown = try challenge(#"Digest realm="r", nonce="n", algorithm=SHA3-512"#)
        let noNonce = try challenge(#"Digest realm="r", algorithm=SHA-512-256"#)
        let bearer = try challenge(#"Bearer realm="r""#)
        let ordered = [sha512, sha512Sess, sha256, sha256Sess, md5, md5Sess, basic]
        for (index, expected) in ordered.enumerated() {
            let candidates = Array(ordered[index...]) + [unknown, noNonce, bearer]
            #expect(AuthenticationChallenge.preferred(candidates.reversed()) == expected)
            #expect(AuthenticationChallenge.preferred(candidates) == expected)
        }
        #expect(AuthenticationChallenge.preferred([unknown, noNonce, bearer]) == nil)
        #expect(AuthenticationChallenge.preferred([]) == nil)
    }

    @Test func firstOfEqualsWins() throws {
        let a = try challenge(#"Digest realm="a", nonce="n", algorithm=SHA-256"#)
        let b = try challenge(#"Digest realm="b", nonce="n", algorithm=SHA-256"#)
        #expect(AuthenticationChallenge.preferred([a, b]) == a)
    }
}

extension ChallengeChooserTests {
    @Test func digestWithOnlyUnknownQOPIsSkipped() throws {
        let conf = try challenge(#"Digest realm="r", nonce="n", algorithm=SHA-256, qop="auth-conf""#)
        let basic = try challenge(#"Basic realm="r""#)
        #expect(AuthenticationChallenge.preferred([conf, basic]) == basic)
    }

    @Test func digestChallengeFromValueTakesStrongestAnswerable() throws {
        let value =
            #"Digest realm="a", nonce="1", algorithm=MD5, Digest realm="b", nonce="2", algorithm=SHA3, "#
            + #"Digest realm="c", nonce="3", algorithm=SHA-256, Basic realm="d""#
        #expect(try DigestChallenge(headerValue: value).realm == "c")
        #expect(throws: DigestError(.unsupportedAlgorithm, "")) {
            try DigestChallenge(headerValue: #"Digest realm="b", nonce="2", algorithm=SHA3, Basic realm="x""#)
        }
    }
}

@Suite struct ReceivedValueFuzzTests {
    /// Every parser of received values gives a value or its own error type, never a crash or
    /// another error, on random bytes and on mutations of valid values. Seeded.
    @Test func parsersOfReceivedValuesNeverCrash() throws {
        var generator = SplitMix64(seed: 0xD16E_57F0)
        let seeds =
            try Vectors.load("http_digest", as: DigestVector.self).flatMap { [$0.challenge, $0.expectedHeader] }
            + ["Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==", #"nextnonce="a", qop=auth, rspauth="b", cnonce="c", nc=00000001"#]
        for iteration in 0..<3000 {
            var bytes: [UInt8]
            if iteration % 3 == 0 {
                bytes = (0..<Int.random(in: 0..<48, using: &generator)).map { _ in
                    UInt8.random(in: .min ... .max, using: &generator)
                }
            } else {
                bytes = Array(seeds.randomElement(using: &generator)!.utf8)
                for _ in 0..<Int.random(in: 1...4, using: &generator) where !bytes.isEmpty {
                    let index = Int.random(in: 0..<bytes.count, using: &generator)
                    switch Int.random(in: 0..<3, using: &generator) {
                    case 0: bytes[index] = UInt8.random(in: .min ... .max, using: &generator)
                    case 1: bytes.remove(at: index)
                    default: bytes.insert(Array(#"",= \"#.utf8).randomElement(using: &generator)!, at: index)
                    }
                }
            }
            let value = String(decoding: bytes, as: UTF8.self)
            expectOnly(DigestError.self, value) { _ = try DigestAuthorization(headerValue: value) }
            expectOnly(DigestError.self, value) { _ = try DigestChallenge(headerValue: value) }
            expectOnly(DigestError.self, value) { _ = try DigestAuthenticationInfo(headerValue: value) }
            expectOnly(BasicError.self, value) { _ = try BasicCredentials(authorization: value) }
            expectOnly(BasicError.self, value) { _ = try BasicCredentials(authorization: value, encoding: .isoLatin1) }
            if let decoded = RemoteAuthBase64.decode(value) {
                #expect(RemoteAuthBase64.encode(decoded) == value)
            }
        }
    }

    private func expectOnly<E: Error>(_ type: E.Type, _ value: String, _ body: () throws -> Void) {
        do {
            try body()
        } catch is E {
        } catch {
            Issue.record("unexpected \(error) for \(value.debugDescription)")
        }
    }
}
