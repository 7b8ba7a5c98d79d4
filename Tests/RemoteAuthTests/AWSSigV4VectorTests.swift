import Foundation
import HTTPTypes
import RemoteAuth
import Testing

/// The AWS Signature Version 4 test suite (`Tests/Vectors/sigv4_suite.json`, sources in
/// SOURCES.md): for each header-form case the canonical request, the string to sign and the
/// `Authorization` field byte for byte; for each presigned-URL case the canonical request, the
/// signature and the URL's parameters.
struct SigV4Case: Decodable, Sendable, CustomTestStringConvertible {
    struct Published: Decodable, Sendable {
        let creq: String
        let sts: String?
        let authz: String?
        let signature: String?
    }

    let name: String
    let mode: String
    let method: String
    let url: String
    let headers: [Pair]
    let body: String?
    let region: String
    let service: String
    let access_key: String
    let secret_key: String
    let token: String?
    let date: String
    let presign: Int?
    let published: Published
    let expected: String

    var testDescription: String { name }

    static func all() throws -> [SigV4Case] {
        struct Suite: Decodable { let cases: [SigV4Case] }
        let url = try Vectors.directory().appendingPathComponent("sigv4_suite.json")
        let cases = try JSONDecoder().decode(Suite.self, from: Data(contentsOf: url)).cases
        guard cases.count == 54 else { throw Vectors.Missing(description: "sigv4_suite.json holds \(cases.count) cases, not 54") }
        return cases
    }

    var signer: AWS.SigV4Signer {
        AWS.SigV4Signer(
            credentials: AWS.Credentials(
                accessKeyID: access_key,
                secretAccessKey: Secret(secret_key),
                sessionToken: token.map { Secret($0) }
            ),
            region: region,
            service: service
        )
    }

    func request() throws -> HTTPRequest {
        var request = try HTTPRequest(method: HTTPRequest.Method(method)!, absoluteURL: url)
        for header in headers {
            request.headerFields.append(HTTPField(name: HTTPField.Name(header.name)!, value: header.value))
        }
        return request
    }

    static func queryItems(_ url: String) -> [String] {
        guard let mark = url.firstIndex(of: "?") else { return [] }
        return url[url.index(after: mark)...].split(separator: "&").map(String.init).sorted()
    }
}

@Suite struct AWSSigV4VectorTests {
    @Test(arguments: try SigV4Case.all()) func suite(_ vector: SigV4Case) throws {
        let request = try vector.request()
        let body = vector.body.map { Array($0.utf8) }
        if vector.mode == "header" {
            let signed = try vector.signer.sign(request, body: body, date: vector.date)
            #expect(signed.canonicalRequest == vector.published.creq)
            #expect(signed.stringToSign == vector.published.sts)
            #expect(signed.request.headerFields[.authorization] == vector.published.authz)
            #expect(signed.request.headerFields[.authorization] == vector.expected)
        } else {
            let signed = try vector.signer.presign(request, body: body, expires: try #require(vector.presign), date: vector.date)
            #expect(signed.canonicalRequest == vector.published.creq)
            #expect(signed.signature == vector.published.signature)
            #expect(SigV4Case.queryItems(signed.request.absoluteURL) == SigV4Case.queryItems(vector.expected))
            #expect(signed.request.absoluteURL.hasPrefix(String(vector.expected.prefix { $0 != "?" })))
        }
    }


    /// example, also in botocore's tests): the secret `wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY`,
    /// day 20120215, us-east-1, iam.
    @Test func negativesAndBounds() throws {
        let signer = AWS.SigV4Signer(
            credentials: AWS.Credentials(accessKeyID: "AKIDEXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"),
            region: "us-east-1",
            service: "service",
            now: { 1_440_938_160 }  // 2015-08-30T12:36:00Z
        )
        let request = try HTTPRequest(method: .get, absoluteURL: "https://example.amazonaws.com/")
        // The clock gives the suite's date: the same signature as get-vanilla.
        #expect(
            try signer.sign(request, body: nil).request.headerFields[.authorization]
                == "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, SignedHeaders=host;x-amz-date, Signature=5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31"
        )
        #expect(throws: AWS.SigV4Error.self) { try signer.presign(request, expires: 0) }
        #expect(throws: AWS.SigV4Error.self) { try signer.presign(request, expires: 604_801) }
        #expect(!"\(signer)".contains("wJalr"))
        #expect("\(signer.credentials)" == "AWS.Credentials(AKIDEXAMPLE, <redacted>)")
        #expect(
            AWS.Credentials.fromEnvironment(["AWS_ACCESS_KEY_ID": "A", "AWS_SECRET_ACCESS_KEY": "S", "AWS_SESSION_TOKEN": ""])
                == AWS.Credentials(accessKeyID: "A", secretAccessKey: "S")
        )
        #expect(AWS.Credentials.fromEnvironment(["AWS_ACCESS_KEY_ID": "A"]) == nil)
    }

    /// A key id or date with a control character other than NUL, CR and LF stays in
    /// `Authorization` as it is (the lenient rule); a plain one is written as it is too.
    @Test func authorizationKeepsItsText() throws {
        let request = try HTTPRequest(method: .get, absoluteURL: "https://example.amazonaws.com/")
        for (keyID, date) in [("AKID\u{01}X", "20150830T123600Z"), ("AKIDEXAMPLE", "2015\u{7F}830T123600Z")] {
            let signer = AWS.SigV4Signer(
                credentials: AWS.Credentials(accessKeyID: keyID, secretAccessKey: "secret"),
                region: "us-east-1",
                service: "service"
            )
            let value = try signer.sign(request, body: nil, date: date).request.headerFields[.authorization] ?? ""
            let day = String(date.prefix(8))
            #expect(value.hasPrefix("AWS4-HMAC-SHA256 Credential=\(keyID)/\(day)/us-east-1/service/aws4_request, "))
        }
    }
}

/// The verifier: what the signer signs verifies; each tampering, an unknown key, a skewed clock
/// and a malformed `Authorization` get their own code.
@Suite struct AWSSigV4VerifierTests {
    static let secret: Secret = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"
    static let verifier = AWS.SigV4Verifier { $0 == "AKIDEXAMPLE" ? secret : nil }
    static let signer = AWS.SigV4Signer(
        credentials: AWS.Credentials(accessKeyID: "AKIDEXAMPLE", secretAccessKey: secret),
        region: "eu-west-3",
        service: "execute-api",
        now: { 1_440_938_160 }
    )

    static func signed(_ body: String = "a=1") throws -> HTTPRequest {
        var request = try HTTPRequest(method: .post, absoluteURL: "https://api.example/v1/items?b=2&a=%20")
        request.headerFields[.contentType] = "application/x-www-form-urlencoded"
        return try signer.sign(request, body: Array(body.utf8)).request
    }

    static func code(_ body: () throws -> Void) -> AWS.SigV4Error.Code? {
        do {
            try body()
            return nil
        } catch let error as AWS.SigV4Error {
            return error.code
        } catch {
            return nil
        }
    }

    @Test func roundTripAndTampering() throws {
        let request = try Self.signed()
        let verified = try Self.verifier.verify(request, body: Array("a=1".utf8), now: 1_440_938_160 + 899)
        #expect(verified == .init(accessKeyID: "AKIDEXAMPLE", region: "eu-west-3", service: "execute-api", signedHeaders: ["content-type", "host", "x-amz-date"]))

        #expect(Self.code { _ = try Self.verifier.verify(request, body: Array("a=2".utf8), now: 1_440_938_160) } == .signatureDoesNotMatch)
        var moved = request
        moved.path = "/v1/items?b=2&a=%21"
        #expect(Self.code { _ = try Self.verifier.verify(moved, body: Array("a=1".utf8), now: 1_440_938_160) } == .signatureDoesNotMatch)
        var retyped = request
        retyped.headerFields[.contentType] = "text/plain"
        #expect(Self.code { _ = try Self.verifier.verify(retyped, body: Array("a=1".utf8), now: 1_440_938_160) } == .signatureDoesNotMatch)
        #expect(Self.code { _ = try Self.verifier.verify(request, body: Array("a=1".utf8), now: 1_440_938_160 + 901) } == .requestTimeTooSkewed)
        let stranger = AWS.SigV4Verifier { _ in nil }
        #expect(Self.code { _ = try stranger.verify(request, body: Array("a=1".utf8), now: 1_440_938_160) } == .unknownKey)
        for value in [
            "Bearer x", "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/eu-west-3/execute-api/aws4_request",
            "AWS4-HMAC-SHA256 Credential=a, Credential=b, SignedHeaders=host, Signature=00",
            "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/aws4_request, SignedHeaders=host, Signature=00",
        ] {
            var malformed = request
            malformed.headerFields[.authorization] = value
            #expect(Self.code { _ = try Self.verifier.verify(malformed, body: Array("a=1".utf8), now: 1_440_938_160) } == .malformedAuthorization, "\(value)")
        }
    }

    /// X-Amz-Date read back is the clock that wrote it, across leap years and centuries.
    @Test func dateRoundTrip() {
        for seconds: Int64 in [0, 951_782_400, 1_440_938_160, 4_107_542_399, 253_402_300_799] {
            let date = AWS.SigV4Signer.amzDate(seconds)
            #expect(AWS.SigV4Verifier.seconds(date) == seconds, "\(date)")
        }
        #expect(AWS.SigV4Signer.amzDate(951_782_400) == "20000229T000000Z")
        #expect(AWS.SigV4Verifier.seconds("20150830T123600") == nil)
        #expect(AWS.SigV4Verifier.seconds("2015083XT123600Z") == nil)
        #expect(AWS.SigV4Verifier.seconds("20151330T123600Z") == nil)
    }
}

/// What a debugger or `dump` shows of the new values never holds a credential.
@Suite struct NewValuesRedactTests {
    @Test func dumpsHoldNoSecret() throws {
        var output = ""
        var attempt = AuthenticationAttempt(request: try HTTPRequest(method: .get, absoluteURL: "https://api.example/x"), body: nil)
        attempt.request.headerFields[.authorization] = "Bearer s3cret-token"
        attempt[AuthenticationAttempt.Key<String>("test.token")] = "s3cret-token"
        dump(attempt, to: &output)
        output += String(reflecting: attempt)

        let signer = AWS.SigV4Signer(
            credentials: AWS.Credentials(accessKeyID: "AKID", secretAccessKey: "s3cret-key", sessionToken: "s3cret-session"),
            region: "us-east-1",
            service: "s3"
        )
        let signed = try signer.sign(try HTTPRequest(method: .get, absoluteURL: "https://bucket.example/o"), body: nil)
        dump(signer, to: &output)
        dump(signed, to: &output)
        output += "\(signed)"

        let other = try StoredSession(kind: .init(rawValue: "vault"), payload: ["token": "s3cret-payload"])
        dump(other, to: &output)
        #expect(!output.contains("s3cret"), "\(output)")
        #expect(output.contains("AKID"))
    }
}
