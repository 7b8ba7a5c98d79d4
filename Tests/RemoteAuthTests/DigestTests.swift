import Crypto
import HTTPTypes
import RemoteAuth
import Testing

struct DigestVector: Decodable, Sendable, CustomTestStringConvertible {
    let name, challenge, username, password, method, uri, realm, nonce, algorithm: String
    let opaque, cnonce, nc, qop, entityBody: String?
    let userhash: Bool
    let expectedHA1, expectedHA2, expectedResponse, expectedUsernameParam, expectedHeader: String
    let rfcPrintedUserhash, rfcPrintedResponse: String?
    var testDescription: String { name }

    enum CodingKeys: String, CodingKey {
        case name, challenge, username, password, method, uri, realm, nonce, algorithm, opaque, cnonce, nc, qop,
            userhash
        case entityBody = "entity_body"
        case expectedHA1 = "expected_ha1"
        case expectedHA2 = "expected_ha2"
        case expectedResponse = "expected_response"
        case expectedUsernameParam = "expected_username_param"
        case expectedHeader = "expected_header"
        case rfcPrintedUserhash = "rfc_printed_userhash"
        case rfcPrintedResponse = "rfc_printed_response"
    }

    var httpMethod: HTTPRequest.Method {
        get throws {
            guard let method = HTTPRequest.Method(method) else { throw Vectors.Missing(description: "bad method") }
            return method
        }
    }
    var body: [UInt8]? { entityBody.map { Array($0.utf8) } }
    var nonceCount: UInt32 { nc.flatMap { UInt32($0, radix: 16) } ?? 1 }
    var credentials: DigestCredentials { DigestCredentials(username: username, password: password) }

    func response(password: String? = nil) throws -> DigestResponse {
        try DigestResponse(
            challenge: DigestChallenge(headerValue: challenge),
            credentials: DigestCredentials(username: username, password: password ?? self.password),
            method: httpMethod,
            uri: uri,
            body: body,
            nonceCount: nonceCount,
            cnonce: cnonce ?? "unused-in-rfc2069-mode",
            qop: qop.map(DigestQOP.init(rawValue:))
        )
    }
}

private func digestVectors() throws -> [DigestVector] { try Vectors.load("http_digest", as: DigestVector.self) }

private func hexBytes(_ hex: String) -> [UInt8] {
    var bytes: [UInt8] = []
    var index = hex.startIndex
    while index < hex.endIndex {
        let next = hex.index(index, offsetBy: 2)
        bytes.append(UInt8(hex[index..<next], radix: 16)!)
        index = next
    }
    return bytes
}

@Suite struct DigestVectorTests {
    @Test(arguments: try digestVectors())
    func clientAuthorizationHeader(_ v: DigestVector) throws {
        let response = try v.response()
        #expect(response.response == v.expectedResponse)
        #expect(response.usernameParameter == v.expectedUsernameParam)
        #expect(response.authorization == v.expectedHeader)
        #expect(response.description == v.expectedHeader)
    }

    @Test(arguments: try digestVectors())
    func ha1AndHA2(_ v: DigestVector) throws {
        let algorithm = DigestAlgorithm(rawValue: v.algorithm)
        let base = DigestComputation.baseHA1(
            algorithm: algorithm,
            username: v.username,
            realm: v.realm,
            password: v.password
        )
        let ha1 = DigestComputation.ha1(algorithm: algorithm, baseHA1: base, nonce: v.nonce, cnonce: v.cnonce)
        let ha2 = DigestComputation.ha2(
            algorithm: algorithm,
            method: v.method,
            uri: v.uri,
            qop: v.qop.map(DigestQOP.init(rawValue:)),
            body: v.body
        )
        #expect(ha1 == v.expectedHA1)
        #expect(ha2 == v.expectedHA2)
        #expect(algorithm.isSession == (base != ha1))
        let response = DigestComputation.response(
            algorithm: algorithm,
            ha1: ha1,
            nonce: v.nonce,
            nc: v.nc,
            cnonce: v.cnonce,
            qop: v.qop.map(DigestQOP.init(rawValue:)),
            ha2: ha2
        )
        #expect(response == v.expectedResponse)
    }

    @Test(arguments: try digestVectors())
    func challengeDecodesAndRoundTrips(_ v: DigestVector) throws {
        let challenge = try DigestChallenge(headerValue: v.challenge)
        #expect(challenge.realm == v.realm)
        #expect(challenge.nonce == v.nonce)
        #expect(challenge.opaque == v.opaque)
        #expect(challenge.effectiveAlgorithm == DigestAlgorithm(rawValue: v.algorithm))
        #expect(challenge.effectiveAlgorithm.rawValue == v.algorithm)
        #expect(challenge.userhash == v.userhash)
        #expect(challenge.qop.isEmpty == (v.qop == nil))
        #expect(try DigestChallenge(headerValue: challenge.headerValue) == challenge)
    }

    /// RFC 7616 §3.9.2 prints values computed with truncated SHA-512 (erratum EID 4897): we
    /// must not produce them, and they are indeed SHA-512 truncated to 256 bits.
    @Test(arguments: try digestVectors().filter { $0.rfcPrintedResponse != nil || $0.rfcPrintedUserhash != nil })
    func rfc7616Section3_9_2PrintedValuesAreNotProduced(_ v: DigestVector) throws {
        let response = try v.response()
        if let printed = v.rfcPrintedResponse {
            #expect(response.response != printed)
            #expect(!response.authorization.contains(printed))
        }
        if let printed = v.rfcPrintedUserhash {
            #expect(response.usernameParameter != printed)
            let truncatedSHA512 = SHA512.hash(data: Array("\(v.username):\(v.realm)".utf8)).prefix(32)
            #expect(
                truncatedSHA512.map {
                    String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16)
                }.joined() == printed
            )
        }
    }

    @Test(arguments: try digestVectors())
    func serverVerifiesExpectedHeader(_ v: DigestVector) throws {
        let challenge = try DigestChallenge(headerValue: v.challenge)
        let authorization = try DigestAuthorization(headerValue: v.expectedHeader)
        #expect(authorization.username == v.expectedUsernameParam)
        #expect(authorization.userhash == v.userhash)
        #expect(authorization.uri == v.uri)
        #expect(authorization.nonceCount == v.nc.flatMap { UInt32($0, radix: 16) })
        #expect(authorization.matchesUserhash(of: v.username))
        #expect(!authorization.matchesUserhash(of: v.username + "x"))
        let method = try v.httpMethod
        #expect(
            authorization.verify(v.credentials, challenge: challenge, method: method, requestURI: v.uri, body: v.body)
                == .valid
        )

        // The same with a stored HA1 instead of the password.
        let algorithm = challenge.effectiveAlgorithm
        let stored = hexBytes(
            DigestComputation.baseHA1(algorithm: algorithm, username: v.username, realm: v.realm, password: v.password)
        )
        let ha1Credentials = DigestCredentials(username: v.username, ha1: stored)
        #expect(authorization.verify(ha1Credentials, challenge: challenge, method: method, body: v.body).isValid)
        let truncated = DigestCredentials(username: v.username, ha1: Array(stored.dropLast()))
        #expect(
            authorization.verify(truncated, challenge: challenge, method: method, body: v.body).failure
                == .invalidStoredHA1
        )
    }

    @Test(arguments: try digestVectors())
    func serverRejectsWrongPasswordAndTampering(_ v: DigestVector) throws {
        let challenge = try DigestChallenge(headerValue: v.challenge)
        let method = try v.httpMethod
        func verify(
            _ header: String,
            credentials: DigestCredentials? = nil,
            challenge c: DigestChallenge? = nil,
            method m: HTTPRequest.Method? = nil,
            requestURI: String? = nil,
            body: [UInt8]?? = .none
        ) throws
            -> DigestVerification.Failure?
        {
            try DigestAuthorization(headerValue: header).verify(
                credentials ?? v.credentials,
                challenge: c ?? challenge,
                method: m ?? method,
                requestURI: requestURI,
                body: body ?? v.body
            ).failure
        }
        // Wrong password: the client computes a different response; the server rejects it.
        let wrong = try v.response(password: v.password + "!")
        #expect(wrong.response != v.expectedResponse)
        #expect(try verify(wrong.authorization) == .responseMismatch)
        #expect(
            try verify(v.expectedHeader, credentials: DigestCredentials(username: v.username, password: "Circle"))
                == .responseMismatch
        )
        // Another user.
        #expect(
            try verify(v.expectedHeader, credentials: DigestCredentials(username: "Simba", password: v.password))
                == .usernameMismatch
        )
        // Tampered uri: the digest no longer matches; and a uri that differs from the request line.
        let tamperedURI = v.expectedHeader.replacing("uri=\"\(v.uri)\"", with: "uri=\"\(v.uri)x\"")
        #expect(tamperedURI != v.expectedHeader)
        #expect(try verify(tamperedURI) == .responseMismatch)
        #expect(try verify(v.expectedHeader, requestURI: v.uri + "x") == .uriMismatch)
        // Another method.
        #expect(try verify(v.expectedHeader, method: method == .get ? .post : .get) == .responseMismatch)
        // Tampered nonce, realm, opaque in the challenge the server issued.
        var other = challenge
        other.nonce += "x"
        #expect(try verify(v.expectedHeader, challenge: other) == .nonceMismatch)
        other = challenge
        other.realm += "x"
        #expect(try verify(v.expectedHeader, challenge: other) == .realmMismatch)
        if challenge.opaque != nil {
            other = challenge
            other.opaque! += "x"
            #expect(try verify(v.expectedHeader, challenge: other) == .opaqueMismatch)
        }
        other = challenge
        other.algorithm = challenge.effectiveAlgorithm == .sha256 ? .md5 : .sha256
        #expect(try verify(v.expectedHeader, challenge: other) == .algorithmMismatch)
        if let nc = v.nc, let qop = v.qop {
            // Wrong nc.
            let tamperedNC = v.expectedHeader.replacing("nc=\(nc)", with: "nc=0000ffff")
            #expect(tamperedNC != v.expectedHeader)
            #expect(try verify(tamperedNC) == .responseMismatch)
            // A qop the challenge did not offer.
            other = challenge
            other.qop = qop == "auth" ? [.authInt] : [.auth]
            #expect(try verify(v.expectedHeader, challenge: other) == .qopMismatch)
            // Tampered cnonce.
            let tamperedCnonce = v.expectedHeader.replacing("cnonce=\"", with: "cnonce=\"x")
            #expect(try verify(tamperedCnonce) == .responseMismatch)
        }
        if v.qop == "auth-int" {
            #expect(try verify(v.expectedHeader, body: .some(Array("{\"hello\":\"w0rld\"}".utf8))) == .responseMismatch)
            #expect(try verify(v.expectedHeader, body: .some(Array("x".utf8))) == .responseMismatch)
            #expect(try verify(v.expectedHeader, body: .some(nil)) == .bodyRequired)
        }
    }

    @Test(arguments: try digestVectors())
    func authenticationInfoRoundTrip(_ v: DigestVector) throws {
        let response = try v.response()
        let authorization = try DigestAuthorization(headerValue: response.authorization)
        let responseBody: [UInt8] = Array("ok".utf8)
        let info = try authorization.authenticationInfo(v.credentials, responseBody: responseBody, nextnonce: "next\"1")
        let parsed = try DigestAuthenticationInfo(headerValue: info.headerValue)
        #expect(parsed == info)
        #expect(parsed.nextnonce == "next\"1")
        #expect(parsed.qop == response.qop)
        #expect(parsed.cnonce == response.cnonce)
        #expect(parsed.nonceCount == response.nonceCount)
        #expect(response.isValid(parsed, credentials: v.credentials, responseBody: responseBody))
        // Negatives: wrong password, tampered rspauth, missing rspauth.
        #expect(!response.isValid(parsed, credentials: DigestCredentials(username: v.username, password: "x")))
        var tampered = parsed
        tampered.rspauth = String(parsed.rspauth!.reversed())
        #expect(!response.isValid(tampered, credentials: v.credentials, responseBody: responseBody))
        tampered.rspauth = nil
        #expect(!response.isValid(tampered, credentials: v.credentials, responseBody: responseBody))
        if response.qop == .authInt {
            #expect(!response.isValid(parsed, credentials: v.credentials, responseBody: Array("ko".utf8)))
        }
        if response.qop != nil {
            tampered = parsed
            tampered.cnonce = "other"
            #expect(!response.isValid(tampered, credentials: v.credentials, responseBody: responseBody))
        }
    }
}

@Suite struct DigestChallengeTests {
    @Test(arguments: [
        #"Digest nonce="n""#, #"Digest realm="r""#, #"Basic realm="r""#, "Digest abc==", "Bearer", "",
        #"Digest realm="r"#,
    ])
    func malformedChallenge(_ value: String) {
        #expect(throws: DigestError(.malformedChallenge, "")) { try DigestChallenge(headerValue: value) }
    }

    @Test func unknownAlgorithmIsUnsupported() {
        #expect(throws: DigestError(.unsupportedAlgorithm, "")) {
            try DigestChallenge(headerValue: #"Digest realm="r", nonce="n", algorithm=SHA-1"#)
        }
        #expect(throws: DigestError(.unsupportedAlgorithm, "")) {
            try DigestChallenge(realm: "r", nonce: "n", algorithm: DigestAlgorithm(rawValue: "SHA-512"))
        }
    }

    @Test func decodesEveryParameter() throws {
        let challenge = try DigestChallenge(
            headerValue:
                #"digest REALM="r", domain="/a  /b http://x/c", nonce="n", opaque="o", stale=TRUE, algorithm=sha-256-sess, qop="auth-int, auth, future", charset=UTF-8, userhash=true"#
        )
        #expect(challenge.domain == ["/a", "/b", "http://x/c"])
        #expect(challenge.stale)
        #expect(challenge.algorithm == .sha256Sess)
        #expect(challenge.algorithm?.rawValue == "sha-256-sess")
        #expect(challenge.qop == [.authInt, .auth, DigestQOP(rawValue: "future")])
        #expect(challenge.charset == "UTF-8")
        #expect(challenge.userhash)
        #expect(try DigestChallenge(headerValue: challenge.headerValue) == challenge)
    }

    @Test func serverRendersChallenge() throws {
        let challenge = try DigestChallenge(
            realm: "api@example.org",
            nonce: "abc/+=",
            domain: ["/api"],
            opaque: "o\"q",
            stale: true,
            algorithm: .sha512_256,
            qop: [.auth, .authInt],
            userhash: true
        )
        #expect(
            challenge.headerValue
                == #"Digest realm="api@example.org", domain="/api", nonce="abc/+=", opaque="o\"q", stale=true, algorithm=SHA-512-256, qop="auth, auth-int", charset=UTF-8, userhash=true"#
        )
        #expect(try DigestChallenge(headerValue: challenge.headerValue) == challenge)
        #expect(throws: DigestError(.invalidParameter, "")) {
            try DigestChallenge(realm: "a\r\nSet-Cookie: x", nonce: "n")
        }
    }

    @Test func algorithmComparesCaseInsensitively() {
        #expect(DigestAlgorithm(rawValue: "md5-SESS") == .md5Sess)
        #expect(Set([DigestAlgorithm(rawValue: "sha-512-256"), .sha512_256]).count == 1)
        #expect(DigestAlgorithm.sha512_256Sess.isSession)
        #expect(!DigestAlgorithm.sha256.isSession)
        #expect(DigestAlgorithm(rawValue: "SHA-512").isSupported == false)
        #expect(DigestAlgorithm.sha512_256 != .sha512_256Sess)
    }
}

@Suite struct DigestClientTests {
    private let credentials = DigestCredentials(username: "Mufasa", password: "Circle of Life")

    private func respond(_ challenge: String, body: [UInt8]? = nil, qop: DigestQOP? = nil) throws -> DigestResponse {
        try DigestResponse(
            challenge: DigestChallenge(headerValue: challenge),
            credentials: credentials,
            method: .post,
            uri: "/x",
            body: body,
            cnonce: "c",
            qop: qop
        )
    }

    @Test func qopChoice() throws {
        let both = #"Digest realm="r", nonce="n", qop="auth,auth-int""#
        let intOnly = #"Digest realm="r", nonce="n", qop="auth-int""#
        #expect(try respond(both).qop == .auth)
        #expect(try respond(both, body: [1]).qop == .auth)
        #expect(try respond(both, body: [1], qop: .authInt).qop == .authInt)
        #expect(try respond(both, qop: .authInt).qop == .auth)
        #expect(try respond(intOnly, body: []).qop == .authInt)
        #expect(throws: DigestError(.bodyRequired, "")) { try respond(intOnly) }
        #expect(throws: DigestError(.unsupportedQOP, "")) {
            try respond(#"Digest realm="r", nonce="n", qop="auth-conf""#)
        }
        #expect(try respond(#"Digest realm="r", nonce="n""#, qop: .authInt).qop == nil)
        #expect(throws: DigestError(.malformedChallenge, "")) {
            try respond(#"Digest realm="r", nonce="n", algorithm=MD5-sess"#)
        }
    }

    @Test func nonceCountIsEightLowercaseHexDigits() throws {
        let challenge = try DigestChallenge(headerValue: #"Digest realm="r", nonce="n", qop="auth", algorithm=SHA-256"#)
        for (count, text) in [(UInt32(1), "00000001"), (10, "0000000a"), (255, "000000ff"), (.max, "ffffffff")] {
            let response = try DigestResponse(
                challenge: challenge,
                credentials: credentials,
                method: .get,
                uri: "/",
                nonceCount: count,
                cnonce: "c"
            )
            #expect(response.authorization.contains(", nc=\(text), "))
            #expect(try DigestAuthorization(headerValue: response.authorization).nonceCount == count)
        }
    }

    @Test func usernameQuotingAndExtendedForm() throws {
        let challenge = try DigestChallenge(headerValue: #"Digest realm="r", nonce="n", qop="auth", algorithm=SHA-256"#)
        let cases: [(String, String)] = [
            (#"we"ird\name"#, #"username="we\"ird\\name""#),
            ("tab\there", "username*=UTF-8''tab%09here"),
            ("Jäsøn Doe", "username*=UTF-8''J%C3%A4s%C3%B8n%20Doe"),
            ("a'b%c", #"username="a'b%c""#),
        ]
        for (name, field) in cases {
            let user = DigestCredentials(username: name, password: "pw")
            let response = try DigestResponse(
                challenge: challenge,
                credentials: user,
                method: .get,
                uri: "/",
                cnonce: "c"
            )
            #expect(response.authorization.hasPrefix("Digest " + field + ", "), "\(response.authorization)")
            let parsed = try DigestAuthorization(headerValue: response.authorization)
            #expect(parsed.username == name)
            #expect(parsed.verify(user, challenge: challenge, method: .get, requestURI: "/").isValid)
        }
    }

    @Test func cnonceGenerator() throws {
        let a = DigestCnonceGenerator.system.next()
        let b = DigestCnonceGenerator.system.next()
        #expect(a.count == 32)
        #expect(a.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) })
        #expect(a != b)
        let challenge = try DigestChallenge(headerValue: #"Digest realm="r", nonce="n", qop="auth""#)
        let response = try DigestResponse(
            challenge: challenge,
            credentials: credentials,
            method: .get,
            uri: "/",
            cnonceGenerator: .fixed("0a4f113b")
        )
        #expect(response.cnonce == "0a4f113b")
        let random = try DigestResponse(challenge: challenge, credentials: credentials, method: .get, uri: "/")
        #expect(random.cnonce?.count == 32)
    }

    @Test func secretsNeverAppearInDescriptionsOrErrors() throws {
        let password = "Circle of Life"
        let v = try #require(try digestVectors().first { $0.name == "rfc7616_3.9.1_sha256" })
        let response = try v.response()
        let withHA1 = DigestCredentials(username: "Mufasa", ha1: hexBytes(v.expectedHA1))
        for text in [
            credentials.description, credentials.debugDescription, String(reflecting: credentials),
            "\(credentials)", withHA1.description, withHA1.debugDescription, String(reflecting: withHA1),
            response.description, String(reflecting: response), response.authorization,
        ] {
            #expect(!text.contains(password))
            #expect(!text.contains(v.expectedHA1))
            #expect(!text.contains(v.expectedHA2))
        }
        let errors: [any Error] = [
            #expect(throws: DigestError.self) { try respond(#"Digest realm="r", nonce="n", qop="auth-int""#) },
            #expect(throws: DigestError.self) { try respond(#"Digest realm="r", nonce="n", qop="x""#) },
            #expect(throws: DigestError.self) {
                try DigestResponse(
                    challenge: DigestChallenge(headerValue: v.challenge),
                    credentials: DigestCredentials(username: "u", ha1: [1, 2]),
                    method: .get,
                    uri: "/",
                    cnonce: "c"
                )
            },
        ].compactMap { $0 }
        #expect(errors.count == 3)
        for error in errors {
            #expect(!String(reflecting: error).contains(password))
            #expect(!"\(error)".contains("0102"))
        }
    }
}

@Suite struct DigestAuthorizationTests {
    private let base = #"Digest username="u", realm="r", nonce="n", uri="/", response="abc""#

    @Test(arguments: [
        (#"Digest realm="r", nonce="n", uri="/", response="abc""#, DigestError.Code.missingParameter),
        (#"Digest username="u", nonce="n", uri="/", response="abc""#, .missingParameter),
        (#"Digest username="u", realm="r", uri="/", response="abc""#, .missingParameter),
        (#"Digest username="u", realm="r", nonce="n", response="abc""#, .missingParameter),
        (#"Digest username="u", realm="r", nonce="n", uri="/""#, .missingParameter),
        (
            #"Digest username="u", realm="r", nonce="n", uri="/", response="abc", qop=auth, cnonce="c""#,
            .missingParameter
        ),
        (
            #"Digest username="u", realm="r", nonce="n", uri="/", response="abc", qop=auth, nc=00000001"#,
            .missingParameter
        ),
        (
            #"Digest username="u", realm="r", nonce="n", uri="/", response="abc", qop=auth, nc=1, cnonce="c""#,
            .invalidParameter
        ),
        (
            #"Digest username="u", realm="r", nonce="n", uri="/", response="abc", qop=auth, nc=0000000g, cnonce="c""#,
            .invalidParameter
        ),
        (#"Digest username="u", username*=UTF-8''u, realm="r", nonce="n", uri="/", response="abc""#, .invalidParameter),
        (#"Digest username*=UTF-8''%ZZ, realm="r", nonce="n", uri="/", response="abc""#, .invalidParameter),
        (#"Digest username*=latin1''u, realm="r", nonce="n", uri="/", response="abc""#, .invalidParameter),
        (
            #"Digest username*=UTF-8''u, realm="r", nonce="n", uri="/", response="abc", userhash=true"#,
            .invalidParameter
        ),
        (
            #"Digest username="u", realm="r", nonce="n", uri="/", response="abc", algorithm=SHA-1"#,
            .unsupportedAlgorithm
        ),
        (
            #"Digest username="u", realm="r", nonce="n", uri="/", response="abc", qop=auth-conf, nc=00000001, cnonce="c""#,
            .unsupportedQOP
        ),
        (#"Basic dXNlcjo="#, .malformedAuthorization),
        (#"Digest username="u", Basic realm="x""#, .malformedAuthorization),
        (#"Digest username="u"#, .malformedAuthorization),
        // The shared credentials grammar (RFC 9110 §11.4): one space after the scheme, each
        // parameter once, no token68 before parameters.
        ("Digest\tusername=\"u\", realm=\"r\", nonce=\"n\", uri=\"/\", response=\"abc\"", .malformedAuthorization),
        (
            #"Digest username="u", username="v", realm="r", nonce="n", uri="/", response="abc""#,
            .malformedAuthorization
        ),
        (#"Digest abc==, realm="r""#, .malformedAuthorization),
    ])
    func malformedAuthorization(_ header: String, _ code: DigestError.Code) {
        let error = #expect(throws: DigestError.self) { try DigestAuthorization(headerValue: header) }
        #expect(error?.code == code, "\(header): \(String(describing: error))")
    }

    @Test func parsesMinimalAuthorization() throws {
        let authorization = try DigestAuthorization(headerValue: base)
        #expect(authorization.username == "u")
        #expect(authorization.qop == nil)
        #expect(authorization.nonceCount == nil)
        #expect(authorization.effectiveAlgorithm == .md5)
        #expect(authorization.parameters.count == 5)
    }

    @Test func authenticationInfoParsing() throws {
        let info = try DigestAuthenticationInfo(
            headerValue: #"nextnonce="abc", qop=auth, rspauth="d3", cnonce="c", nc=0000000A"#
        )
        #expect(info.nextnonce == "abc")
        #expect(info.qop == .auth)
        #expect(info.rspauth == "d3")
        #expect(info.nonceCount == 10)
        #expect(info.headerValue == #"nextnonce="abc", qop=auth, rspauth="d3", cnonce="c", nc=0000000a"#)
        #expect(throws: DigestError(.malformedAuthenticationInfo, "")) {
            try DigestAuthenticationInfo(headerValue: #"Digest rspauth="x""#)
        }
        #expect(throws: DigestError(.malformedAuthenticationInfo, "")) {
            try DigestAuthenticationInfo(headerValue: #"rspauth="x"#)
        }
        #expect(throws: DigestError(.invalidParameter, "")) { try DigestAuthenticationInfo(headerValue: "nc=12") }
        #expect(try DigestAuthenticationInfo(headerValue: "") == DigestAuthenticationInfo())
    }

    @Test func userhashLookupAmongCandidates() throws {
        let v = try #require(try digestVectors().first { $0.userhash })
        let authorization = try DigestAuthorization(headerValue: v.expectedHeader)
        let users = ["Mufasa", "Jäsøn Doe", "Jason Doe"]
        #expect(users.filter(authorization.matchesUserhash(of:)) == ["Jäsøn Doe"])
        // A server whose challenge did not offer userhash refuses it.
        var challenge = try DigestChallenge(headerValue: v.challenge)
        challenge.userhash = false
        #expect(authorization.verify(v.credentials, challenge: challenge, method: .get).failure == .usernameMismatch)
    }
}
