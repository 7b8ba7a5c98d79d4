import Crypto
import Foundation
import HTTPTypes
import RemoteAuth
import Testing

/// The component values of RFC 9421 §2.1–§2.2's examples, several signatures on one message,
/// `Accept-Signature`, redaction, and the authenticator through ``AuthenticatingClient``.
@Suite struct HTTPMessageSignatureComponentTests {
    typealias F = SignatureFixtures

    func value(_ message: HMS.Message, _ component: HMS.ComponentIdentifier) throws -> String {
        let base = try HMS.signatureBase(
            for: message,
            input: HMS.SignatureInput(components: [component], parameters: [])
        )
        let line = try #require(base.split(separator: "\n").first)
        let prefix = "\(component): "
        #expect(line.hasPrefix(prefix))
        return String(line.dropFirst(prefix.count))
    }

    /// §2.2.1–§2.2.7: `POST /path?param=value` to `www.example.com` over https.
    @Test func derivedComponents() throws {
        let request = HMS.Message.request(
            HTTPRequest(method: .post, scheme: "https", authority: "www.example.com", path: "/path?param=value")
        )
        #expect(try value(request, .method) == "POST")
        #expect(try value(request, .targetURI) == "https://www.example.com/path?param=value")
        #expect(try value(request, .authority) == "www.example.com")
        #expect(try value(request, .scheme) == "https")
        #expect(try value(request, .requestTarget) == "/path?param=value")
        #expect(try value(request, .path) == "/path")
        #expect(try value(request, .query) == "?param=value")
        // §2.2.3: the host lowercased, the default port dropped; §2.2.6–7: empty path, no query.
        let other = HMS.Message.request(
            HTTPRequest(method: .get, scheme: "HTTPS", authority: "WWW.Example.com:443", path: "/")
        )
        #expect(try value(other, .authority) == "www.example.com")
        #expect(try value(other, .scheme) == "https")
        #expect(try value(other, .query) == "?")
        let bare = HMS.Message.request(HTTPRequest(method: .get, scheme: "https", authority: "a.example", path: "?x=1"))
        #expect(try value(bare, .path) == "/")
        // §2.2.9: the status, three digits.
        #expect(try value(.response(HTTPResponse(status: .ok)), .status) == "200")
    }

    /// §2.2.8: names and values decoded as a form, then percent-encoded again (space as `%20`).
    @Test func queryParameters() throws {
        let request = HMS.Message.request(
            HTTPRequest(
                method: .get,
                scheme: "https",
                authority: "example.com",
                path:
                    "/parameters?var=this%20is%20a%20big%0Avalue&bar=with+plus+whitespace&fa%C3%A7ade%22%3A%20=something"
            )
        )
        #expect(try value(request, .queryParameter("var")) == "this%20is%20a%20big%0Avalue")
        #expect(try value(request, .queryParameter("bar")) == "with%20plus%20whitespace")
        #expect(try value(request, .queryParameter("fa%C3%A7ade%22%3A%20")) == "something")
        #expect("\(HMS.ComponentIdentifier.queryParameter("bar"))" == #""@query-param";name="bar""#)
        // A parameter given twice cannot be signed by name.
        let twice = HMS.Message.request(
            HTTPRequest(method: .get, scheme: "https", authority: "e.example", path: "/?a=1&a=2")
        )
        #expect(throws: F.error(.invalidComponent)) { try value(twice, .queryParameter("a")) }
    }

    /// §2.1: lines trimmed and joined; `sf` re-serializes; `key` takes one member; `bs` wraps each line.
    @Test func fields() throws {
        let dict = HTTPField.Name("Example-Dict")!
        let header = HTTPField.Name("Example-Header")!
        var fields = HTTPFields()
        fields.append(HTTPField(name: HTTPField.Name("X-OWS-Header")!, value: "   Leading and trailing whitespace.   "))
        fields.append(HTTPField(name: .cacheControl, value: "max-age=60"))
        fields.append(HTTPField(name: .cacheControl, value: "   must-revalidate"))
        fields.append(HTTPField(name: dict, value: "a=1,    b=2;x=1;y=2,   c=(a   b   c)"))
        fields.append(HTTPField(name: header, value: "value, with, lots"))
        fields.append(HTTPField(name: header, value: "of, commas"))
        fields.append(HTTPField(name: HTTPField.Name("X-Empty-Header")!, value: ""))
        let message = HMS.Message.request(
            HTTPRequest(method: .get, scheme: "https", authority: "e.example", path: "/", headerFields: fields)
        )
        #expect(try value(message, .field(HTTPField.Name("X-OWS-Header")!)) == "Leading and trailing whitespace.")
        #expect(try value(message, .field(.cacheControl)) == "max-age=60, must-revalidate")
        #expect(try value(message, .field(dict)) == "a=1,    b=2;x=1;y=2,   c=(a   b   c)")
        #expect(try value(message, .field(dict, structured: true)) == "a=1, b=2;x=1;y=2, c=(a b c)")
        #expect(try value(message, .field(dict, key: "a")) == "1")
        #expect(try value(message, .field(dict, key: "b")) == "2;x=1;y=2")
        #expect(try value(message, .field(dict, key: "c")) == "(a b c)")
        #expect(
            try value(message, .field(header, byteSequence: true)) == ":dmFsdWUsIHdpdGgsIGxvdHM=:, :b2YsIGNvbW1hcw==:"
        )
        #expect(try value(message, .field(header)) == "value, with, lots, of, commas")
        let empty = try HMS.signatureBase(
            for: message,
            input: HMS.SignatureInput(components: [.field(HTTPField.Name("X-Empty-Header")!)], parameters: [])
        )
        #expect(empty.hasPrefix("\"x-empty-header\": \n"))
    }

    /// Two signatures by two keys on one request, each verified by its label; the second
    /// covers the first (`"signature";key="sig1"`), as a proxy would (§4.3).
    @Test func severalSignatures() throws {
        var request = F.request()
        try F.signer().sign(&request)
        let hmac = try HMS.SigningKey.hmacSHA256(F.secret, keyID: "shared")
        let second = HMS.Signer(
            key: hmac,
            label: "proxy",
            components: [.method, .field(HMS.signatureField, key: "sig1")],
            now: { F.now }
        )
        try second.sign(&request)
        let verifier = HMS.Verifier(keys: [
            .ed25519(F.edKey.publicKey, keyID: "ed"), try .hmacSHA256(F.secret, keyID: "shared"),
        ])
        #expect(try verifier.verify(request, label: "sig1", now: F.now).keyID == "ed")
        let proxy = try verifier.verify(request, label: "proxy", now: F.now)
        #expect(proxy.algorithm == .hmacSHA256)
        #expect(proxy.signatureBase.contains("\"signature\";key=\"sig1\": :"))
        #expect(request.headerFields[values: HMS.signatureInputField].count == 2)
        // `Accept-Signature` (§5.1) reads and writes the same shape.
        let accept = HMS.AcceptSignature([
            (label: "sig1", input: HMS.SignatureInput(components: [.method, .targetURI], parameters: [.tag("app")]))
        ])
        let field = try accept.fieldValue()
        #expect(field == #"sig1=("@method" "@target-uri");tag="app""#)
        let parsed = try HMS.AcceptSignature([HMS.acceptSignatureField: field])
        #expect(parsed.requests.map(\.label) == ["sig1"])
        #expect(parsed.requests.first?.input == accept.requests.first?.input)
    }

    @Test func descriptionsHideKeys() throws {
        let secret = Array("a secret of thirty-two octets!!!".utf8)
        let key = try HMS.SigningKey.hmacSHA256(secret, keyID: "k1")
        let signer = HMS.Signer(key: key, components: [.method])
        var dumped = ""
        dump(signer, to: &dumped)
        dump(key, to: &dumped)
        dump(key.verificationKey, to: &dumped)
        let shown = [dumped, "\(signer)", "\(key)", "\(key.verificationKey)", String(reflecting: key)].joined()
        for form in [
            "a secret", Data(secret).base64EncodedString(), secret.map { String(format: "%02x", $0) }.joined(),
        ] {
            #expect(!shown.contains(form))
        }
        #expect(shown.contains("k1"))
    }
}

/// A server in the test: verifies each request's signature and `Content-Digest`, and answers
/// with a response it signs, bound to the request (§2.4).
struct SigningServer: HTTPTransport {
    let verifier: HMS.Verifier
    let signer: HMS.Signer
    let signs: Bool
    var tampersWithBody = false

    func send(_ request: HTTPRequest, body: [UInt8]?) async throws -> (HTTPResponse, [UInt8]) {
        let verified = try verifier.verify(request, body: body ?? [], now: SignatureFixtures.now)
        let responseBody = Array(#"{"verified": "\#(verified.keyID)"}"#.utf8)
        var response = HTTPResponse(status: .created, headerFields: [.contentType: "application/json"])
        HMS.ContentDigest.set(&response.headerFields, body: responseBody)
        if signs { try signer.sign(&response, for: request) }
        return (response, tampersWithBody ? Array(#"{"verified": "someone else"}"#.utf8) : responseBody)
    }
}

@Suite struct HTTPMessageSignatureClientTests {
    typealias F = SignatureFixtures
    static let serverKey = P256.Signing.PrivateKey()

    func client(serverSigns: Bool, now: Int64 = F.now, tampering: Bool = false) throws -> AuthenticatingClient {
        var requestVerifier = HMS.Verifier(keys: [.ed25519(F.edKey.publicKey, keyID: "ed")])
        requestVerifier.requiredComponents = [.method, .targetURI, .field(HMS.contentDigestField)]
        requestVerifier.nonceStore = HMS.BoundedNonceStore()
        let responseComponents: [HMS.ComponentIdentifier] = [
            .status, .field(HMS.contentDigestField), HMS.ComponentIdentifier.method.ofRequest,
            HMS.ComponentIdentifier.targetURI.ofRequest,
            HMS.ComponentIdentifier.field(HMS.signatureField, key: "sig1").ofRequest,
        ]
        let server = SigningServer(
            verifier: requestVerifier,
            signer: HMS.Signer(
                key: .p256(Self.serverKey, keyID: "server"),
                label: "res",
                components: responseComponents,
                now: { F.now }
            ),
            signs: serverSigns,
            tampersWithBody: tampering
        )
        var signer = F.signer([.method, .targetURI, .field(.contentType)], at: now)
        signer.nonceSource = .system
        var responseVerifier = HMS.Verifier(keys: [.p256(Self.serverKey.publicKey, keyID: "server")])
        responseVerifier.requiredComponents = responseComponents
        let authenticator = HMS.Authenticator(
            signer: signer,
            contentDigest: [.sha256],
            responseVerifier: responseVerifier
        )
        #expect(authenticator.writtenFields == [HMS.signatureInputField, HMS.signatureField])
        return AuthenticatingClient(
            transport: server,
            authenticators: [ScopedAuthenticator(authenticator, for: try AuthScope(url: "https://api.example.com"))]
        )
    }

    @Test func signsRequestsAndVerifiesResponses() async throws {
        let client = try client(serverSigns: true)
        let body = Array(#"{"name": "thing"}"#.utf8)
        for _ in 0..<2 {
            let (response, responseBody) = try await client.send(
                .post,
                to: "https://api.example.com/things?x=1",
                headerFields: [.contentType: "application/json"],
                body: body
            )
            #expect(response.status == .created)
            #expect(String(decoding: responseBody, as: UTF8.self) == #"{"verified": "ed"}"#)
            try HMS.ContentDigest.verify(response.headerFields, body: responseBody)
        }
    }

    @Test func refusesUnsignedResponses() async throws {
        let client = try client(serverSigns: false)
        await #expect(throws: F.error(.signatureNotFound)) {
            _ = try await client.send(
                .post,
                to: "https://api.example.com/things",
                headerFields: [.contentType: "application/json"],
                body: Array("{}".utf8)
            )
        }
    }

    /// The response's signature covers its `Content-Digest`; a body that does not match it (a
    /// proxy rewrote it) fails the request.
    @Test func refusesATamperedResponseBody() async throws {
        let client = try client(serverSigns: true, tampering: true)
        await #expect(throws: F.error(.digestMismatch)) {
            _ = try await client.send(
                .post,
                to: "https://api.example.com/things",
                headerFields: [.contentType: "application/json"],
                body: Array("{}".utf8)
            )
        }
    }

    @Test func serverRefusesStaleSignatures() async throws {
        // The client's clock is 10 minutes behind the server's: the server's verifier throws.
        let client = try client(serverSigns: true, now: F.now - 600)
        await #expect(throws: F.error(.tooOld)) {
            _ = try await client.send(
                .post,
                to: "https://api.example.com/things",
                headerFields: [.contentType: "application/json"],
                body: Array("{}".utf8)
            )
        }
    }
}
