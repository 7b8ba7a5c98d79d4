import Foundation
import HTTPTypes
import RemoteAuth
import Testing

private let twitterClient = OAuth1.ClientCredentials(
    key: "xvz1evFS4wEEPTGEFPHBog",
    secret: "kAcSOqF21Fu85e7zjz7ZN2U4ZRhfV3WpwPAoE3Z7kBw"
)
private let twitterToken = OAuth1.TokenCredentials(
    token: "370773112-GmHxMAgYyLbNEtIKZeRNFsMKPR9EyMZeS9weJAEb",
    secret: "LswwdoUaIvS8ltyTt5jkRh4J50vUPVVHtR2YPi5kE"
)
private let twitterNonce = "kYjzVBB8Y0ZFabxSWbWovY3uYSQ2pTgmZeNu2VS4cg"
private let twitterBody = Array("status=Hello%20Ladies%20%2B%20Gentlemen%2C%20a%20signed%20OAuth%20request%21".utf8)

private func twitterRequest() throws -> HTTPRequest {
    try HTTPRequest(
        method: .post,
        absoluteURL: "https://api.twitter.com/1.1/statuses/update.json?include_entities=true",
        headerFields: [.contentType: "application/x-www-form-urlencoded"]
    )
}

@Suite struct BaseStringURITests {
    @Test(arguments: [
        ("HTTP", "Example.COM:80", "/r%20v/X?id=123", "http://example.com/r%20v/X"),
        ("https", "www.example.net:8080", "/?q=1", "https://www.example.net:8080/"),
        ("https", "EXAMPLE.com:443", "", "https://example.com/"),
        ("http", "[::1]:8080", "/a/B#frag", "http://[::1]:8080/a/B"),
        ("http", "[::1]:80", "/", "http://[::1]/"),
        ("https", "user:pw@host.example", "/p", "https://host.example/p"),
        ("http", "h.example:0443", "/", "http://h.example:443/"),
    ])
    func uri(scheme: String, authority: String, path: String, expected: String) throws {
        #expect(
            try OAuth1.SignatureBaseString.baseStringURI(scheme: scheme, authority: authority, path: path) == expected
        )
    }

    @Test func badPortIsAnError() {
        #expect(throws: OAuth1Error(.malformedRequest, "")) {
            try OAuth1.SignatureBaseString.baseStringURI(scheme: "http", authority: "host:8x", path: "/")
        }
        #expect(throws: OAuth1Error(.malformedRequest, "")) {
            try OAuth1.SignatureBaseString.baseStringURI(scheme: "http", authority: "", path: "/")
        }
    }

    @Test func malformedEscapeInQueryIsAnError() throws {
        let signer = try OAuth1.Signer(client: twitterClient)
        let request = try HTTPRequest(method: .get, absoluteURL: "https://example.com/?a=%zz")
        #expect(throws: OAuth1Error(.malformedEncoding, "")) {
            try signer.sign(request, nonce: "n", timestamp: "1")
        }
    }

    @Test func formParametersHandleEmptyAndBareNames() throws {
        let parsed = try FormURLEncoding.decode("a=&b&&c=1=2&d+e=f+g&=v").map { OAuth1.Parameter($0.name, $0.value) }
        #expect(parsed == [.init("a", ""), .init("b", ""), .init("c", "1=2"), .init("d e", "f g"), .init("", "v")])
    }
}

@Suite struct OAuth1PlacementTests {
    /// Query placement (§3.5.3): the protocol parameters follow the request's own query, encoded
    /// per §3.6, in name order; the signature is the Twitter documentation's.
    @Test func queryPlacement() throws {
        let signer = try OAuth1.Signer(client: twitterClient, token: twitterToken)
        let signed = try signer.sign(
            try twitterRequest(),
            body: twitterBody,
            options: .init(placement: .query),
            nonce: twitterNonce,
            timestamp: "1318622958"
        )
        #expect(signed.signature == "hCtSmYh+iHYCEqBWrE7C7hYmtUk=")
        #expect(signed.request.headerFields[.authorization] == nil)
        #expect(
            signed.url
                == "https://api.twitter.com/1.1/statuses/update.json?include_entities=true&oauth_consumer_key=xvz1evFS4wEEPTGEFPHBog&oauth_nonce=kYjzVBB8Y0ZFabxSWbWovY3uYSQ2pTgmZeNu2VS4cg&oauth_signature=hCtSmYh%2BiHYCEqBWrE7C7hYmtUk%3D&oauth_signature_method=HMAC-SHA1&oauth_timestamp=1318622958&oauth_token=370773112-GmHxMAgYyLbNEtIKZeRNFsMKPR9EyMZeS9weJAEb&oauth_version=1.0"
        )
        #expect(signed.body == twitterBody)
        let received = try OAuth1.ReceivedRequest(signed.request, body: signed.body)
        #expect(received.placement == .query)
        try received.verify(clientSecret: twitterClient.secret, tokenSecret: twitterToken.secret)
    }

    /// Body placement (§3.5.2): appended to the form body with `&`.
    @Test func bodyPlacement() throws {
        let signer = try OAuth1.Signer(client: twitterClient, token: twitterToken)
        let signed = try signer.sign(
            try twitterRequest(),
            body: twitterBody,
            options: .init(placement: .body),
            nonce: twitterNonce,
            timestamp: "1318622958"
        )
        #expect(signed.signature == "hCtSmYh+iHYCEqBWrE7C7hYmtUk=")
        #expect(
            String(decoding: signed.body!, as: UTF8.self)
                == "status=Hello%20Ladies%20%2B%20Gentlemen%2C%20a%20signed%20OAuth%20request%21&oauth_consumer_key=xvz1evFS4wEEPTGEFPHBog&oauth_nonce=kYjzVBB8Y0ZFabxSWbWovY3uYSQ2pTgmZeNu2VS4cg&oauth_signature=hCtSmYh%2BiHYCEqBWrE7C7hYmtUk%3D&oauth_signature_method=HMAC-SHA1&oauth_timestamp=1318622958&oauth_token=370773112-GmHxMAgYyLbNEtIKZeRNFsMKPR9EyMZeS9weJAEb&oauth_version=1.0"
        )
        let received = try OAuth1.ReceivedRequest(signed.request, body: signed.body)
        #expect(received.placement == .body)
        try received.verify(clientSecret: twitterClient.secret, tokenSecret: twitterToken.secret)
    }

    @Test func bodyPlacementOnEmptyBodySetsContentType() throws {
        let signer = try OAuth1.Signer(client: twitterClient)
        let request = try HTTPRequest(method: .post, absoluteURL: "https://example.com/oauth/request_token")
        let signed = try signer.sign(
            request,
            options: .init(placement: .body, callback: "oob"),
            nonce: "n",
            timestamp: "1"
        )
        #expect(signed.request.headerFields[.contentType] == "application/x-www-form-urlencoded")
        #expect(
            String(decoding: signed.body!, as: UTF8.self).hasPrefix(
                "oauth_callback=oob&oauth_consumer_key=xvz1evFS4wEEPTGEFPHBog&"
            )
        )
        try OAuth1.ReceivedRequest(signed.request, body: signed.body).verify(
            clientSecret: twitterClient.secret,
            tokenSecret: nil
        )
    }

    /// GET and HEAD carry no body a server must read: body placement is refused for them.
    @Test func bodyPlacementRefusesGETAndHEAD() throws {
        let signer = try OAuth1.Signer(client: twitterClient)
        for method in [HTTPRequest.Method.get, .head] {
            let request = try HTTPRequest(method: method, absoluteURL: "https://example.com/x")
            #expect(throws: OAuth1Error(.malformedRequest, "")) {
                try signer.sign(request, options: .init(placement: .body), nonce: "n", timestamp: "1")
            }
        }
    }

    @Test func bodyPlacementRefusesNonFormBody() throws {
        let signer = try OAuth1.Signer(client: twitterClient)
        let request = try HTTPRequest(
            method: .post,
            absoluteURL: "https://example.com/x",
            headerFields: [.contentType: "application/json"]
        )
        #expect(throws: OAuth1Error(.malformedRequest, "")) {
            try signer.sign(
                request,
                body: Array("{}".utf8),
                options: .init(placement: .body),
                nonce: "n",
                timestamp: "1"
            )
        }
    }

    /// A JSON body is not signed (§3.4.1.3.1 signs only form bodies), and the request verifies.
    @Test func nonFormBodyIsNotSigned() throws {
        let signer = try OAuth1.Signer(client: twitterClient)
        let request = try HTTPRequest(
            method: .post,
            absoluteURL: "https://example.com/x",
            headerFields: [.contentType: "application/json"]
        )
        let signed = try signer.sign(
            request,
            body: Array("{\"a\":1}".utf8),
            options: .init(includeVersion: false),
            nonce: "n",
            timestamp: "1"
        )
        #expect(
            signed.signatureBaseString
                == "POST&https%3A%2F%2Fexample.com%2Fx&oauth_consumer_key%3Dxvz1evFS4wEEPTGEFPHBog%26oauth_nonce%3Dn%26oauth_signature_method%3DHMAC-SHA1%26oauth_timestamp%3D1"
        )
    }

    /// Extra parameters such as Twitter's `x_auth_mode=reverse_auth` are signed like any other
    /// body parameter, in byte order among the `oauth_*` names.
    @Test func reverseAuthModeIsSigned() throws {
        let signer = try OAuth1.Signer(client: twitterClient)
        let request = try HTTPRequest(
            method: .post,
            absoluteURL: "https://api.twitter.com/oauth/request_token",
            headerFields: [.contentType: "application/x-www-form-urlencoded"]
        )
        let signed = try signer.sign(
            request,
            body: Array("x_auth_mode=reverse_auth".utf8),
            nonce: "abc",
            timestamp: "1700000000"
        )
        #expect(
            signed.signatureBaseString
                == "POST&https%3A%2F%2Fapi.twitter.com%2Foauth%2Frequest_token&oauth_consumer_key%3Dxvz1evFS4wEEPTGEFPHBog%26oauth_nonce%3Dabc%26oauth_signature_method%3DHMAC-SHA1%26oauth_timestamp%3D1700000000%26oauth_version%3D1.0%26x_auth_mode%3Dreverse_auth"
        )
        let received = try OAuth1.ReceivedRequest(signed.request, body: signed.body)
        #expect(received.requestParameters == [.init("x_auth_mode", "reverse_auth")])
        try received.verify(clientSecret: twitterClient.secret, tokenSecret: nil)
    }

    @Test func signerRefusesAnOAuthParameterAlreadyInTheRequest() throws {
        let signer = try OAuth1.Signer(client: twitterClient)
        let request = try HTTPRequest(method: .get, absoluteURL: "https://example.com/?oauth_nonce=x")
        #expect(throws: OAuth1Error(.duplicateParameter, "")) {
            try signer.sign(request, nonce: "n", timestamp: "1")
        }
    }

    @Test func rsaWithoutKeyAndUnknownMethodAreErrors() {
        #expect(throws: OAuth1Error(.missingKey, "")) {
            try OAuth1.Signer(client: twitterClient, signatureMethod: .rsaSHA1)
        }
        #expect(throws: OAuth1Error(.unsupportedSignatureMethod, "")) {
            try OAuth1.Signer(client: twitterClient, signatureMethod: .init(rawValue: "HMAC-MD5"))
        }
        #expect(throws: OAuth1Error(.invalidKey, "")) {
            try OAuth1.RSAPrivateKey(
                pemRepresentation: "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n"
            )
        }
    }
}

@Suite struct OAuth1VerificationTests {
    func signedTwitter(_ options: OAuth1.SigningOptions = .init()) throws -> OAuth1.SignedRequest {
        try OAuth1.Signer(client: twitterClient, token: twitterToken)
            .sign(
                try twitterRequest(),
                body: twitterBody,
                options: options,
                nonce: twitterNonce,
                timestamp: "1318622958"
            )
    }

    func withAuthorization(_ value: String, path: String? = nil) throws -> HTTPRequest {
        var request = try twitterRequest()
        if let path { request.path = path }
        request.headerFields.append(HTTPField(name: .authorization, value: value))
        return request
    }

    @Test func duplicatedProtocolParameterIsRejected() throws {
        let header = try signedTwitter().authorization + ", oauth_nonce=\"again\""
        #expect(throws: OAuth1Error(.duplicateParameter, "")) {
            try OAuth1.ReceivedRequest(try withAuthorization(header), body: twitterBody)
        }
    }

    @Test func protocolParametersInTwoPlacesAreRejected() throws {
        let signed = try signedTwitter()
        let request = try withAuthorization(
            signed.authorization,
            path: "/1.1/statuses/update.json?include_entities=true&oauth_callback=oob"
        )
        #expect(throws: OAuth1Error(.parameterInTwoPlaces, "")) {
            try OAuth1.ReceivedRequest(request, body: twitterBody)
        }
    }

    @Test(arguments: [
        "oauth_consumer_key", "oauth_signature_method", "oauth_signature", "oauth_timestamp", "oauth_nonce",
    ])
    func missingParameterIsNamed(_ name: String) throws {
        let parameters = try signedTwitter().protocolParameters.filter { $0.name != name }
        let request = try withAuthorization(OAuth1.Signer.authorizationHeader(parameters))
        do {
            _ = try OAuth1.ReceivedRequest(request, body: twitterBody)
            Issue.record("accepted a request without \(name)")
        } catch let error as OAuth1Error {
            #expect(error.code == .missingParameter)
            #expect(error.reason.contains(name))
        }
    }

    @Test func unsupportedMethodAndVersion() throws {
        var parameters = try signedTwitter().protocolParameters
        parameters[parameters.firstIndex { $0.name == "oauth_signature_method" }!].value = "HMAC-MD5"
        #expect(throws: OAuth1Error(.unsupportedSignatureMethod, "")) {
            try OAuth1.ReceivedRequest(
                try withAuthorization(OAuth1.Signer.authorizationHeader(parameters)),
                body: twitterBody
            )
        }
        parameters = try signedTwitter().protocolParameters
        parameters[parameters.firstIndex { $0.name == "oauth_version" }!].value = "2.0"
        #expect(throws: OAuth1Error(.unsupportedVersion, "")) {
            try OAuth1.ReceivedRequest(
                try withAuthorization(OAuth1.Signer.authorizationHeader(parameters)),
                body: twitterBody
            )
        }
    }

    @Test func noProtocolParametersAtAll() throws {
        #expect(throws: OAuth1Error(.missingParameter, "")) {
            try OAuth1.ReceivedRequest(try twitterRequest(), body: twitterBody)
        }
    }

    @Test func malformedHeaders() throws {
        for header in [
            "OAuth oauth_consumer_key=\"abc", "OAuth oauth_consumer_key", "OAuth a=\"b\" c=\"d\"", "OAuth =\"x\"",
        ] {
            #expect(throws: OAuth1Error(.malformedHeader, ""), "\(header)") {
                try OAuth1.ReceivedRequest(try withAuthorization(header), body: twitterBody)
            }
        }
    }

    /// The one auth-param parser (RFC 9110 §11.4): `1*SP` after the scheme, no token68 for
    /// OAuth, control characters refused in a quoted-string, repeated names kept for the
    /// duplicate check, which names the parameter.
    @Test func headerGrammarIsTheSharedOne() throws {
        for header in ["OAuth\toauth_nonce=\"n\"", "OAuth abc==", "OAuth a=\"b\u{1}\"", "OAuth a=\"b\", c"] {
            #expect(throws: OAuth1Error(.malformedHeader, ""), "\(header)") {
                try OAuth1.AuthorizationHeader.parse(header)
            }
        }
        let repeated = try OAuth1.AuthorizationHeader.parse("OAuth oauth_nonce=\"a\", oauth_nonce=\"b\"")
        #expect(repeated?.parameters == [.init("oauth_nonce", "a"), .init("oauth_nonce", "b")])
        let header = OAuth1.Signer.authorizationHeader(try signedTwitter().protocolParameters)
        let error = #expect(throws: OAuth1Error.self) {
            try OAuth1.ReceivedRequest(try withAuthorization(header + ", oauth_nonce=\"again\""), body: twitterBody)
        }
        #expect(error?.code == .duplicateParameter)
        #expect(error?.parameter == "oauth_nonce")
        // A malformed field of another scheme is not ours to refuse.
        #expect(try OAuth1.AuthorizationHeader.parse("Digest a=\"b") == nil)
    }

    /// Errors name the offending parameter as a field, so a server needs no prose to report it.
    @Test func errorsCarryTheParameter() throws {
        let parameters = try signedTwitter().protocolParameters.filter { $0.name != "oauth_nonce" }
        let missing = #expect(throws: OAuth1Error.self) {
            try OAuth1.ReceivedRequest(
                try withAuthorization(OAuth1.Signer.authorizationHeader(parameters)),
                body: twitterBody
            )
        }
        #expect(missing?.code == .missingParameter)
        #expect(missing?.parameter == "oauth_nonce")
        let received = try OAuth1.ReceivedRequest(try signedTwitter().request, body: twitterBody)
        let late = #expect(throws: OAuth1Error.self) { try received.checkTimestamp(now: 1_318_622_958 + 301) }
        #expect(late?.code == .timestampRefused)
        #expect(late?.parameter == "oauth_timestamp")
        let wrong = #expect(throws: OAuth1Error.self) {
            try received.verify(clientSecret: twitterClient.secret, tokenSecret: "wrong")
        }
        #expect(wrong?.parameter == "oauth_signature")
        #expect(OAuth1Error(.malformedRequest, "x").parameter == nil)
    }

    /// `oauth_problem` is an open registry: known values by name, unknown ones kept.
    @Test func problemRegistry() throws {
        #expect(OAuth1.Problem.parameterAbsent.rawValue == "parameter_absent")
        #expect(OAuth1.Problem(rawValue: "signature_invalid") == .signatureInvalid)
        #expect(OAuth1.Problem("x_custom").rawValue == "x_custom")
        let data = try JSONEncoder().encode(OAuth1.Problem.tokenUsed)
        #expect(String(decoding: data, as: UTF8.self) == #""token_used""#)
        #expect("\(OAuth1.Problem.nonceUsed)" == "nonce_used")
    }

    /// Temporary and token credentials are different types; the request token signs only step 3.
    @Test func requestTokenIsNotAnAccessToken() {
        let requestToken = OAuth1.RequestToken(token: "rt", secret: "rts")
        #expect(requestToken.signingCredentials == OAuth1.TokenCredentials(token: "rt", secret: "rts"))
        #expect(!"\(requestToken)".contains("rts"))
        #expect(!String(reflecting: requestToken).contains("rts"))
    }

    /// The clock's `Int64` seconds sign exactly like the same value written out.
    @Test func int64TimestampSignsLikeItsDecimalText() throws {
        let signer = try OAuth1.Signer(client: twitterClient, token: twitterToken)
        let a = try signer.sign(try twitterRequest(), body: twitterBody, nonce: twitterNonce, timestamp: 1_318_622_958)
        let b = try signer.sign(try twitterRequest(), body: twitterBody, nonce: twitterNonce, timestamp: "1318622958")
        #expect(a.authorization == b.authorization)
        #expect(a.signature == "hCtSmYh+iHYCEqBWrE7C7hYmtUk=")
    }

    /// The header parser takes any case of scheme, optional spaces, a realm with escapes, and
    /// ignores other schemes.
    @Test func headerParsing() throws {
        let parsed = try OAuth1.AuthorizationHeader.parse(
            "oauth   realm=\"Ph\\\"otos\" ,oauth_token=\"a%2Bb\",,  oauth_nonce = \"n\""
        )
        #expect(parsed?.realm == "Ph\"otos")
        #expect(parsed?.parameters == [.init("oauth_token", "a+b"), .init("oauth_nonce", "n")])
        #expect(try OAuth1.AuthorizationHeader.parse("Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==") == nil)
        // The header the signer writes for a realm with a quote parses back to the same realm.
        let header = OAuth1.Signer.authorizationHeader([.init("oauth_nonce", "x y")], realm: "a\"b\\c")
        #expect(header == "OAuth realm=\"a\\\"b\\\\c\", oauth_nonce=\"x%20y\"")
        #expect(try OAuth1.AuthorizationHeader.parse(header)?.realm == "a\"b\\c")
    }

    @Test func timestampWindow() throws {
        let received = try OAuth1.ReceivedRequest(try signedTwitter().request, body: twitterBody)
        try received.checkTimestamp(now: 1_318_622_958 + 300)
        try received.checkTimestamp(now: 1_318_622_958 - 300)
        #expect(throws: OAuth1Error(.timestampRefused, "")) { try received.checkTimestamp(now: 1_318_622_958 + 301) }
        #expect(throws: OAuth1Error(.timestampRefused, "")) {
            try received.checkTimestamp(now: 1_318_622_958 - 1000, window: 60)
        }
    }

    @Test func signatureNotBase64() throws {
        var parameters = try signedTwitter().protocolParameters
        parameters[parameters.firstIndex { $0.name == "oauth_signature" }!].value = "***"
        let received = try OAuth1.ReceivedRequest(
            try withAuthorization(OAuth1.Signer.authorizationHeader(parameters)),
            body: twitterBody
        )
        #expect(throws: OAuth1Error(.invalidSignature, "")) {
            try received.verify(clientSecret: twitterClient.secret, tokenSecret: twitterToken.secret)
        }
    }

    @Test func rsaVerificationNeedsAKey() throws {
        var parameters = try signedTwitter().protocolParameters
        parameters[parameters.firstIndex { $0.name == "oauth_signature_method" }!].value = "RSA-SHA1"
        let received = try OAuth1.ReceivedRequest(
            try withAuthorization(OAuth1.Signer.authorizationHeader(parameters)),
            body: twitterBody
        )
        #expect(throws: OAuth1Error(.missingKey, "")) {
            try received.verify(clientSecret: twitterClient.secret, tokenSecret: twitterToken.secret)
        }
    }
}

@Suite struct OAuth1SecretsAndNonceTests {
    @Test func credentialsRedactSecrets() throws {
        let client = OAuth1.ClientCredentials(key: "key-1", secret: "very-secret-1")
        let token = OAuth1.TokenCredentials(token: "tok-1", secret: "very-secret-2")
        for text in [
            client.description, client.debugDescription, String(reflecting: client), "\(client)",
            token.description, token.debugDescription, String(reflecting: token), "\(token)",
        ] {
            #expect(!text.contains("very-secret"))
        }
        #expect(client.description.contains("key-1"))
        #expect(token.description.contains("tok-1"))
    }

    @Test func errorsNeverCarrySecrets() throws {
        let signer = try OAuth1.Signer(
            client: .init(key: "k", secret: "very-secret-1"),
            token: .init(token: "t", secret: "very-secret-2")
        )
        let signed = try signer.sign(
            try HTTPRequest(method: .get, absoluteURL: "https://example.com/"),
            nonce: "n",
            timestamp: "1"
        )
        let received = try OAuth1.ReceivedRequest(signed.request)
        do {
            try received.verify(clientSecret: "very-secret-wrong", tokenSecret: "very-secret-2")
            Issue.record("verified with a wrong secret")
        } catch {
            #expect(!"\(error)".contains("very-secret"))
            #expect(!String(reflecting: error).contains("very-secret"))
        }
    }

    @Test func noncesAre128BitHex() {
        let a = OAuth1.Nonce.random()
        let b = OAuth1.Nonce.random()
        #expect(a.utf8.count == 32)
        #expect(a.allSatisfy { $0.isHexDigit && !$0.isUppercase })
        #expect(a != b)
        var g1 = SplitMix64(seed: 7)
        var g2 = SplitMix64(seed: 7)
        #expect(OAuth1.Nonce.random(using: &g1) == OAuth1.Nonce.random(using: &g2))
        // The same bytes, the same hex, whichever way they come: a generator or a RandomSource.
        var g0 = SplitMix64(seed: 0)
        #expect(OAuth1.Nonce.random(using: &g0) == OAuth1.Nonce.random(from: .seeded(0)))
    }
}
