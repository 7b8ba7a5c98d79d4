import HTTPTypes
import RemoteAuth
import Testing

struct PercentEncodingVector: Decodable, Sendable, CustomTestStringConvertible {
    let input: String
    let expected: String
    var testDescription: String { expected }
}

struct BaseStringVector: Decodable, Sendable, CustomTestStringConvertible {
    let name: String
    let method: String
    let url: String
    let form_body: String?
    let params: [Pair]
    let expected_base_string_uri: String
    let expected_normalized_parameters: String
    let expected_base_string: String
    var testDescription: String { name }
}

struct SigningVector: Decodable, Sendable, CustomTestStringConvertible {
    let name: String
    let method: String
    let url: String
    let params: [Pair]
    let query_params: [Pair]
    let body_params: [Pair]
    let form_body: String?
    let consumer_key: String
    let consumer_secret: String
    let token: String?
    let token_secret: String
    let nonce: String?
    let timestamp: String?
    let signature_method: String
    let oauth_version: String?
    let realm: String?
    let callback: String?
    let verifier: String?
    let rsa_private_key_pem: String?
    let rsa_private_key_pkcs1_pem: String?
    let rsa_public_key_pem: String?
    let expected_oauth_params: [Pair]
    let expected_base_string: String?
    let expected_signature: String
    let expected_authorization_header: String
    let published_signature: String?
    let published_signature_matches: Bool?
    var testDescription: String { name }

    var parameters: [OAuth1.Parameter] { params.map { OAuth1.Parameter($0.name, $0.value) } }

    /// The request as the vector describes it: the URL, and a form body when there is one.
    func request() throws -> (HTTPRequest, [UInt8]?) {
        var fields = HTTPFields()
        if form_body != nil { fields[.contentType] = "application/x-www-form-urlencoded" }
        let request = try HTTPRequest(method: HTTPRequest.Method(method)!, absoluteURL: url, headerFields: fields)
        return (request, form_body.map { Array($0.utf8) })
    }

    func signer(key: String? = nil) throws -> OAuth1.Signer {
        let method = OAuth1.SignatureMethod(rawValue: signature_method)
        let privateKey = try (key ?? rsa_private_key_pem).map { try OAuth1.RSAPrivateKey(pemRepresentation: $0) }
        return try OAuth1.Signer(
            client: .init(key: consumer_key, secret: consumer_secret),
            token: token.map { .init(token: $0, secret: token_secret) },
            signatureMethod: method,
            privateKey: privateKey
        )
    }

    var options: OAuth1.SigningOptions {
        OAuth1.SigningOptions(
            realm: realm,
            callback: callback,
            verifier: verifier,
            includeVersion: oauth_version != nil
        )
    }

    func sign(key: String? = nil) throws -> OAuth1.SignedRequest {
        let (request, body) = try request()
        return try signer(key: key).sign(request, body: body, options: options, nonce: nonce, timestamp: timestamp)
    }
}

@Suite struct PercentEncodingVectorTests {
    @Test(arguments: try Vectors.load("oauth1_percent_encoding", as: PercentEncodingVector.self))
    func encodes(_ v: PercentEncodingVector) throws {
        #expect(OAuth1.PercentEncoding.encode(v.input) == v.expected)
        #expect(try OAuth1.PercentEncoding.decode(v.expected) == v.input)
    }
}

@Suite struct BaseStringVectorTests {
    @Test(arguments: try Vectors.load("oauth1_base_string", as: BaseStringVector.self))
    func baseString(_ v: BaseStringVector) throws {
        let request = try HTTPRequest(method: HTTPRequest.Method(v.method)!, absoluteURL: v.url)
        let uri = try OAuth1.SignatureBaseString.baseStringURI(of: request)
        #expect(uri == v.expected_base_string_uri)
        let parameters = v.params.map { OAuth1.Parameter($0.name, $0.value) }
        #expect(OAuth1.SignatureBaseString.normalizedParameters(parameters) == v.expected_normalized_parameters)
        #expect(
            OAuth1.SignatureBaseString.make(method: request.method, baseStringURI: uri, parameters: parameters)
                == v.expected_base_string
        )
    }

    /// The query and body of the vector's request, parsed, are the non-`oauth_` parameters the
    /// vector lists (§3.4.1.3.1), in order. (Vectors whose parameters are given without a
    /// query or body to carry them are skipped here; their base string is checked above.)
    @Test(
        arguments: try Vectors.load("oauth1_base_string", as: BaseStringVector.self).filter {
            $0.url.contains("?") || $0.form_body != nil
        }
    )
    func collectsRequestParameters(_ v: BaseStringVector) throws {
        let request = try HTTPRequest(method: HTTPRequest.Method(v.method)!, absoluteURL: v.url)
        let path = request.path!
        var collected: [OAuth1.Parameter] = []
        if let mark = path.firstIndex(of: "?") {
            collected += try FormURLEncoding.decode(path[path.index(after: mark)...]).map { OAuth1.Parameter($0.name, $0.value) }
        }
        if let body = v.form_body {
            collected += try FormURLEncoding.decode(body).map { OAuth1.Parameter($0.name, $0.value) }
        }
        let expected = v.params.filter { !$0.name.hasPrefix("oauth_") }.map { OAuth1.Parameter($0.name, $0.value) }
        #expect(collected == expected)
    }
}

@Suite struct SigningVectorTests {
    @Test func vectorsArePresent() throws {
        #expect(try Vectors.load("oauth1_signing", as: SigningVector.self).count == 18)
    }

    @Test(arguments: try Vectors.load("oauth1_signing", as: SigningVector.self))
    func signs(_ v: SigningVector) throws {
        let signed = try v.sign()
        #expect(signed.signature == v.expected_signature)
        #expect(signed.signatureBaseString == v.expected_base_string)
        #expect(signed.authorization == v.expected_authorization_header)
        #expect(signed.protocolParameters == v.expected_oauth_params.map { OAuth1.Parameter($0.name, $0.value) })
        #expect(signed.request.headerFields[.authorization] == v.expected_authorization_header)
        if let published = v.published_signature, let matches = v.published_signature_matches {
            #expect((signed.signature == published) == matches)
        }
    }

    @Test(
        arguments: try Vectors.load("oauth1_signing", as: SigningVector.self).filter {
            $0.rsa_private_key_pkcs1_pem != nil
        }
    )
    func signsWithPKCS1Key(_ v: SigningVector) throws {
        #expect(try v.sign(key: v.rsa_private_key_pkcs1_pem).signature == v.expected_signature)
    }

    /// A server accepts each vector's request with the vector's secrets, and refuses it with a
    /// wrong client secret, a wrong token secret, a tampered parameter or a dropped token.
    @Test(arguments: try Vectors.load("oauth1_signing", as: SigningVector.self))
    func verifies(_ v: SigningVector) throws {
        let signed = try v.sign()
        let publicKey = try v.rsa_public_key_pem.map { try OAuth1.RSAPublicKey(pemRepresentation: $0) }
        let received = try OAuth1.ReceivedRequest(signed.request, body: signed.body)
        if let expected = v.expected_base_string {
            #expect(received.signatureBaseString == expected)
        } else {
            // PLAINTEXT signs no base string: what travels is the signature itself, the encoded
            // client secret, "&", the encoded token secret (RFC 5849 §3.4.4).
            #expect(v.signature_method == "PLAINTEXT")
            #expect(signed.signatureBaseString == nil)
            #expect(received.signature == v.expected_signature)
        }
        #expect(received.consumerKey == v.consumer_key)
        #expect(received.token == v.token)
        #expect(received.realm == v.realm)
        try received.verify(clientSecret: v.consumer_secret, tokenSecret: v.token_secret, publicKey: publicKey)

        if publicKey == nil {
            #expect(throws: OAuth1Error(.invalidSignature, "")) {
                try received.verify(clientSecret: v.consumer_secret + "x", tokenSecret: v.token_secret)
            }
            #expect(throws: OAuth1Error(.invalidSignature, "")) {
                try received.verify(clientSecret: v.consumer_secret, tokenSecret: v.token_secret + "x")
            }
        } else {
            // Another published key (the vectors carry two): its signature check must fail.
            let otherPEM = try Vectors.load("oauth1_signing", as: SigningVector.self)
                .compactMap(\.rsa_public_key_pem).first { $0 != v.rsa_public_key_pem }!
            let other = try OAuth1.RSAPublicKey(pemRepresentation: otherPEM)
            #expect(throws: OAuth1Error(.invalidSignature, "")) {
                try received.verify(clientSecret: "", tokenSecret: nil, publicKey: other)
            }
        }

        // A tampered request: one more query parameter.
        var tampered = signed.request
        tampered.path = (tampered.path ?? "/") + ((tampered.path ?? "").contains("?") ? "&" : "?") + "extra=1"
        let receivedTampered = try OAuth1.ReceivedRequest(tampered, body: signed.body)
        if v.signature_method != "PLAINTEXT" {
            #expect(throws: OAuth1Error(.invalidSignature, "")) {
                try receivedTampered.verify(
                    clientSecret: v.consumer_secret,
                    tokenSecret: v.token_secret,
                    publicKey: publicKey
                )
            }
        }

        // The token dropped from the header: the signature no longer matches.
        if v.token != nil, v.signature_method != "PLAINTEXT" {
            var fields = signed.request.headerFields
            fields[.authorization] = OAuth1.Signer.authorizationHeader(
                signed.protocolParameters.filter { $0.name != "oauth_token" },
                realm: v.realm
            )
            var dropped = signed.request
            dropped.headerFields = fields
            let receivedDropped = try OAuth1.ReceivedRequest(dropped, body: signed.body)
            #expect(throws: OAuth1Error(.invalidSignature, "")) {
                try receivedDropped.verify(clientSecret: v.consumer_secret, tokenSecret: nil, publicKey: publicKey)
            }
        }
    }
}
