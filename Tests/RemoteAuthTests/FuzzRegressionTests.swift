import RemoteAuth
import Testing

/// What the fuzz targets in `Fuzz/` found, one test per finding, with the input (or, for a
/// large one, the generator of it); the inputs are also in `Fuzz/Corpus/<target>/regression-*`.
@Suite(.timeLimit(.minutes(1)))
struct FuzzRegressionTests {
    /// `Digest p0=v, p1=v, …`: one challenge, `count` parameters.
    static func manyParameters(_ count: Int, scheme: String = "Digest", then tail: String = "") -> String {
        var value = scheme + " "
        for index in 0..<count {
            if index > 0 { value += ", " }
            value += "p\(index)=v"
        }
        return value + tail
    }

    /// Seconds that `body` takes.
    static func seconds(_ body: () throws -> Void) rethrows -> Double {
        let clock = ContinuousClock()
        let elapsed = try clock.measure(body)
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }

    // Finding 1 (challenges, credentials): the duplicate-parameter check searched the
    // parameters read so far for each new one, so a value with n parameters took n²/2
    // case-insensitive comparisons: 60,000 parameters (600 KB) did not parse in 100 s. The
    // names are now kept in a set; 50,000 parameters take well under a second.

    @Test func aChallengeWithManyParametersParsesInLinearTime() throws {
        let value = Self.manyParameters(50_000)
        var challenges: [AuthenticationChallenge] = []
        let elapsed = try Self.seconds { challenges = try AuthenticationChallenge.parse(value) }
        #expect(challenges.count == 1)
        #expect(challenges.first?.parameters.count == 50_000)
        #expect(challenges.first?.parameter("P49999") == "v")
        #expect(elapsed < 20, "took \(elapsed) s")
    }

    @Test func aDuplicateAfterManyParametersIsStillFound() throws {
        let value = Self.manyParameters(50_000, then: ", P17=w")
        let elapsed = Self.seconds {
            #expect(throws: ChallengeError(.duplicateParameter, "")) { try AuthenticationChallenge.parse(value) }
        }
        #expect(elapsed < 20, "took \(elapsed) s")
        // The set is per challenge: the same name in the next challenge is no duplicate.
        let two = try AuthenticationChallenge.parse("Digest realm=a, nonce=b, Digest REALM=c, nonce=d")
        #expect(two.map { $0.parameter("realm") } == ["a", "c"])
    }

    @Test func authenticationInfoWithManyParametersParsesInLinearTime() throws {
        var value = Self.manyParameters(50_000, scheme: "")
        value.removeFirst()
        var info: DigestAuthenticationInfo?
        let elapsed = try Self.seconds { info = try DigestAuthenticationInfo(headerValue: value + ", nc=00000001") }
        #expect(info?.nonceCount == 1)
        #expect(elapsed < 20, "took \(elapsed) s")
        #expect(throws: DigestError(.malformedAuthenticationInfo, "")) {
            try DigestAuthenticationInfo(headerValue: value + ", P0=x")
        }
    }

    @Test func digestCredentialsWithManyParametersParseInLinearTime() throws {
        let required =
            #", username="Mufasa", realm="http-auth@example.org", uri="/dir/index.html", "#
            + #"nonce="7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v", response="8ca523f5e9506fed4657c9700eebdbec""#
        let value = Self.manyParameters(50_000, then: required)
        var authorization: DigestAuthorization?
        let elapsed = try Self.seconds { authorization = try DigestAuthorization(headerValue: value) }
        #expect(authorization?.username == "Mufasa")
        #expect(authorization?.parameters.count == 50_005)
        #expect(elapsed < 20, "took \(elapsed) s")
        #expect(throws: DigestError(.malformedAuthorization, "")) {
            try DigestAuthorization(headerValue: value + ", P49999=x")
        }
    }
}

/// Finding 2 (uri_reference): dot-segment removal (RFC 3986 §5.2.4) replaced a leading `/./` or
/// `/../` by building `"/" + rest`, a copy of the rest of the path at each step, so a
/// `Location` with a 900 KB path of dot segments did not resolve in 60 s. It now drops the
/// segment in place, linear in the path's length.
@Suite(.timeLimit(.minutes(1)))
struct FuzzRegressionDotSegmentTests {
    @Test func longPathsOfDotSegmentsResolveInLinearTime() {
        // "/a/a/…/a/./././…/../../…/g": every "/." dropped, every "/.." removing one "/a".
        let path =
            String(repeating: "/a", count: 100_000) + String(repeating: "/.", count: 100_000)
            + String(repeating: "/..", count: 100_000) + "/g"
        var removed = ""
        let elapsed = FuzzRegressionTests.seconds { removed = URIReference.removeDotSegments(path) }
        let isG = removed == "/g"
        #expect(isG, "\(removed.utf8.count) bytes left, not \"/g\"")
        #expect(elapsed < 20, "took \(elapsed) s")
        let reference = URIReference(parsing: String(repeating: "../", count: 100_000) + "g")
        let target = reference.resolved(against: URIReference(parsing: "http://a/b/c/d;p?q"))
        #expect(target.description == "http://a/g")
    }

    @Test func dotSegmentsStillFollowRFC3986() {
        // §5.2.4's own examples, and B and C at the end of the input.
        #expect(URIReference.removeDotSegments("/a/b/c/./../../g") == "/a/g")
        #expect(URIReference.removeDotSegments("mid/content=5/../6") == "mid/6")
        #expect(URIReference.removeDotSegments("/a/./b/.") == "/a/b/")
        #expect(URIReference.removeDotSegments("/a/b/..") == "/a/")
        #expect(URIReference.removeDotSegments("/./././") == "/")
        #expect(URIReference.removeDotSegments("/../../a/../b") == "/b")
    }
}

/// Finding 3 (credentials): `DigestAuthenticationInfo.headerValue` wrote `qop` bare, so a qop
/// that is not a token (read from a quoted-string) rendered as a value that parses as other
/// parameters: `qop="auth, rspauth=x"` came back with an `rspauth` of its own. It is now
/// quoted unless it is a token (RFC 9110 §11.2).
@Suite struct FuzzRegressionAuthenticationInfoTests {
    @Test func aQopThatIsNotATokenRoundTrips() throws {
        let info = try DigestAuthenticationInfo(headerValue: #"qop="auth, rspauth=forged", nc=00000001"#)
        #expect(info.qop?.rawValue == "auth, rspauth=forged")
        #expect(info.rspauth == nil)
        #expect(info.headerValue == #"qop="auth, rspauth=forged", nc=00000001"#)
        #expect(try DigestAuthenticationInfo(headerValue: info.headerValue) == info)
        // The fuzzer's input (invalid UTF-8 repaired, as the target reads it).
        let found: [UInt8] =
            Array("DLGHAcqlm92mj7xp5E=00000001, cnnexeonc`=\"5E=00ds69v\", qop=\"4".utf8) + [0xD6]
            + Array("r=auth, response=\t\t\t\t\t0\"".utf8)
        let parsed = try DigestAuthenticationInfo(headerValue: String(decoding: found, as: UTF8.self))
        #expect(try DigestAuthenticationInfo(headerValue: parsed.headerValue) == parsed)
        // A token qop is still written bare.
        #expect(
            DigestAuthenticationInfo(qop: .auth, rspauth: "ab", cnonce: "c", nonceCount: 1).headerValue
                == #"qop=auth, rspauth="ab", cnonce="c", nc=00000001"#
        )
    }
}
