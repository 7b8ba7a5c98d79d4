import HTTPTypes
import RemoteAuth
import Testing

/// A case of `oauth2_responses.json` with the members these tests read (fields described in
/// Tests/Vectors/SOURCES.md): the printed message as the generator split it, and what to expect.
struct RegistrationVector: Decodable, Sendable, CustomTestStringConvertible {
    struct Challenge: Decodable, Sendable {
        let scheme: String
        let token68: String?
        let params: [Pair]
    }

    let name: String
    let kind: String
    let status: Int?
    let request_line: String?
    let headers: [Pair]
    let body: String?
    let www_authenticate: String?
    let expected_json: OAuth2.JSONValue?
    let expected_error: String?
    let expected_error_description: String?
    let expected_challenges: [Challenge]?
    var testDescription: String { name }

    static func all(_ kind: String) throws -> [RegistrationVector] {
        try Vectors.load("oauth2_responses", as: RegistrationVector.self).filter { $0.kind == kind }
    }

    static func named(_ name: String) throws -> RegistrationVector {
        let found = try Vectors.load("oauth2_responses", as: RegistrationVector.self).filter { $0.name == name }
        return try #require(found.count == 1 ? found.first : nil, "one case named \(name)")
    }

    var bodyBytes: [UInt8] { Array((body ?? "").utf8) }

    func member(_ name: String) -> OAuth2.JSONValue? {
        guard case .object(let members)? = expected_json else { return nil }
        return members[name]
    }

    /// The printed header fields, as an `HTTPFields`.
    func fields() throws -> HTTPFields {
        var fields = HTTPFields()
        for header in headers {
            fields.append(HTTPField(name: try #require(HTTPField.Name(header.name)), value: header.value))
        }
        return fields
    }

    /// The printed response, for a scripted transport.
    func answer() throws -> ScriptedTransport.Answer {
        let response = HTTPResponse(status: .init(code: try #require(status)), headerFields: try fields())
        let bytes = bodyBytes
        return { _, _ in (response, bytes) }
    }
}

/// RFC 9728 §3.2 and §5.1, RFC 7591 §3.2.1 and §3.2.2, RFC 7592 §2.1, §2.3 and §3: the
/// printed examples of `Tests/Vectors/oauth2_responses.json` through the library's parsers.
@Suite struct RegistrationVectorTests {
    typealias PRM = OAuth2.ProtectedResourceMetadata
    static let nameJaJpanJP = "\u{30AF}\u{30E9}\u{30A4}\u{30A2}\u{30F3}\u{30C8}\u{540D}"
    static let resource = "https://resource.example.com"

    /// RFC 9728 §3.2's example, checked against the identifier it was fetched for (§3.3).
    @Test func resourceMetadata() throws {
        let v = try RegistrationVector.named("rfc9728_3.2_metadata")
        #expect(v.kind == "resource_metadata_response")
        #expect(v.member("resource") == .string(Self.resource))
        let metadata = try PRM.parse(status: try #require(v.status), body: v.bodyBytes, expectedResource: Self.resource)
        #expect(metadata.resource == Self.resource)
        #expect(metadata.authorizationServers == ["https://as1.example.com", "https://as2.example.net"])
        #expect(metadata.bearerMethodsSupported == ["header", "body"])
        #expect(metadata.scopesSupported == ["profile", "email", "phone"])
        #expect(metadata.resourceDocumentation == "https://resource.example.com/resource_documentation.html")
        #expect(metadata.jwksURI == nil)
        #expect(metadata.resourceName == nil)
        #expect(!metadata.tlsClientCertificateBoundAccessTokens)
        #expect(!metadata.dpopBoundAccessTokensRequired)
        guard case .object(let printed)? = v.expected_json else {
            Issue.record("no expected_json")
            return
        }
        #expect(metadata.members == printed)
        #expect(printed.count == 5)
    }

    /// §3.3: another identifier, even one differing by a trailing `/`, must not use the document.
    @Test(arguments: [
        "https://resource.example.com/", "https://other.example.com", "https://resource.example.com/resource1",
        "http://resource.example.com",
    ])
    func resourceMetadataForAnotherResource(_ expected: String) throws {
        let v = try RegistrationVector.named("rfc9728_3.2_metadata")
        let mismatch = #expect(throws: OAuth2.Error.self) {
            try PRM.parse(status: 200, body: v.bodyBytes, expectedResource: expected)
        }
        #expect(mismatch?.code == .resourceMismatch)
    }

    /// RFC 9728 §5.1's challenge names §3.1's well-known URL of §3.2's resource.
    @Test func resourceMetadataChallenge() throws {
        let v = try RegistrationVector.named("rfc9728_5.1_challenge")
        let url = "https://resource.example.com/.well-known/oauth-protected-resource"
        let printed = try #require(v.expected_challenges?.first?.params.first)
        #expect(printed.name == "resource_metadata" && printed.value == url)
        #expect(try PRM.wellKnownURL(resource: Self.resource) == url)

        let response = HTTPResponse(status: .init(code: try #require(v.status)), headerFields: try v.fields())
        #expect(PRM.metadataURL(in: response) == url)

        let challenges = try AuthenticationChallenge.parse(try #require(v.www_authenticate))
        #expect(challenges.count == 1)
        #expect(challenges.first?.hasScheme("Bearer") == true)
        #expect(challenges.first?.parameter("resource_metadata") == url)
        let bearer = try #require(try OAuth2.BearerChallenge.first(in: challenges))
        #expect(bearer.error == nil)
        #expect(bearer.realm == nil)

        // The RFC breaks the line after '='; joined with a space it is the same (RFC 9110 §11.2 BWS).
        let spaced = try AuthenticationChallenge.parse(#"Bearer resource_metadata= ""# + url + #"""#)
        #expect(spaced.first?.parameter("resource_metadata") == url)
    }

    /// RFC 7591 §3.2.1's client information response.
    @Test func registrationResponse() throws {
        let v = try RegistrationVector.named("rfc7591_3.2.1_registration_response")
        #expect(v.kind == "registration_response")
        #expect(v.status == 201)
        let registered = try OAuth2.DynamicRegistration.parse(status: 201, body: v.bodyBytes)
        #expect(registered.clientID == "s6BhdRkqt3")
        #expect(registered.clientSecret?.reveal() == "cf136dc3c1fc93f31185e5885805d")
        #expect(registered.clientIDIssuedAt == 2_893_256_800)
        #expect(registered.clientSecretExpiresAt == 2_893_276_800)
        #expect(registered.tokenEndpointAuthMethod == .clientSecretBasic)
        #expect(registered.registrationAccessToken == nil)
        #expect(registered.registrationClientURI == nil)
        #expect(
            registered.members["redirect_uris"]
                == .array([
                    .string("https://client.example.org/callback"), .string("https://client.example.org/callback2"),
                ])
        )
        #expect(registered.members["grant_types"] == .array([.string("authorization_code"), .string("refresh_token")]))
        #expect(registered.members["client_name"] == .string("My Example Client"))
        #expect(registered.members["client_name#ja-Jpan-JP"] == .string(Self.nameJaJpanJP))
        #expect(registered.members["client_name#ja-Jpan-JP"] == v.member("client_name#ja-Jpan-JP"))
        #expect(registered.members["logo_uri"] == .string("https://client.example.org/logo.png"))
        #expect(registered.members["jwks_uri"] == .string("https://client.example.org/my_public_keys.jwks"))
        #expect(registered.members["example_extension_parameter"] == .string("example_value"))
        #expect(registered.members.count == 12)

        let registration = registered.registration
        #expect(registration.clientID == "s6BhdRkqt3")
        #expect(registration.authenticationMethod == .clientSecretBasic)
        #expect(registration.clientSecret?.reveal() == "cf136dc3c1fc93f31185e5885805d")
        #expect(registration.registrationAccessToken == nil)
        #expect(registration.registrationClientURI == nil)
        #expect(try registered.client().id == "s6BhdRkqt3")
        #expect(!registered.description.contains("cf136dc3c1fc93f31185e5885805d"))
    }

    /// RFC 7591 §3.2.2's two error responses: the server's code and description, exactly.
    @Test(arguments: try RegistrationVector.all("registration_error_response"))
    func registrationError(_ v: RegistrationVector) throws {
        let refused = #expect(throws: OAuth2.Error.self) {
            try OAuth2.DynamicRegistration.parse(status: try #require(v.status), body: v.bodyBytes)
        }
        #expect(refused?.code == .serverRefused)
        #expect(refused?.status == 400)
        #expect(refused?.serverError?.code.rawValue == v.expected_error)
        #expect(refused?.serverError?.errorDescription == v.expected_error_description)
        #expect(refused?.serverError?.errorURI == nil)
    }

    @Test func registrationErrorCases() throws {
        let cases = try RegistrationVector.all("registration_error_response")
        #expect(cases.map(\.expected_error) == ["invalid_redirect_uri", "invalid_client_metadata"])
        #expect(
            cases.first?.expected_error_description
                == "The redirection URI http://sketchy.example.com is not allowed by this server."
        )
    }

    /// RFC 7592 §3's read response, parsed, then served to `read` for the §2.1 request.
    @Test func readResponse() async throws {
        let v = try RegistrationVector.named("rfc7592_3_read_response")
        #expect(v.status == 200)
        let registered = try OAuth2.DynamicRegistration.parse(status: 200, body: v.bodyBytes)
        #expect(registered.registrationAccessToken?.reveal() == "reg-23410913-abewfq.123483")
        #expect(registered.registrationClientURI == "https://server.example.com/register/s6BhdRkqt3")
        #expect(registered.clientID == "s6BhdRkqt3")
        #expect(registered.clientSecret?.reveal() == "cf136dc3c1fc93f31185e5885805d")
        #expect(registered.clientIDIssuedAt == 2_893_256_800)
        #expect(registered.clientSecretExpiresAt == 2_893_276_800)
        #expect(registered.tokenEndpointAuthMethod == .clientSecretBasic)
        #expect(registered.members["client_name#ja-Jpan-JP"] == .string(Self.nameJaJpanJP))
        let registration = registered.registration
        #expect(registration.registrationAccessToken?.reveal() == "reg-23410913-abewfq.123483")
        #expect(registration.registrationClientURI == "https://server.example.com/register/s6BhdRkqt3")

        let transport = ScriptedTransport([try v.answer()])
        let read = try await OAuth2.DynamicRegistration.read(registration, transport: transport)
        #expect(read.clientID == "s6BhdRkqt3")
        #expect(read.registrationAccessToken?.reveal() == "reg-23410913-abewfq.123483")
        try Self.expectSent(transport, as: try RegistrationVector.named("rfc7592_2.1_read_request"))
    }

    /// RFC 7592 §2.3: the delete request, and its `204 No Content` as success.
    @Test func deleteRequest() async throws {
        let read = try RegistrationVector.named("rfc7592_3_read_response")
        let registration = try OAuth2.DynamicRegistration.parse(status: 200, body: read.bodyBytes).registration
        let deleted = try RegistrationVector.named("rfc7592_2.3_delete_response")
        #expect(deleted.status == 204)
        #expect(deleted.body == nil)
        let transport = ScriptedTransport([try deleted.answer()])
        try await OAuth2.DynamicRegistration.delete(registration, transport: transport)
        try Self.expectSent(transport, as: try RegistrationVector.named("rfc7592_2.3_delete_request"))
    }

    /// The one request `transport` saw is the printed one: request line, `Host` as the
    /// authority, every other printed field with its value, and no body.
    static func expectSent(_ transport: ScriptedTransport, as printed: RegistrationVector) throws {
        #expect(printed.kind == "registration_management_request")
        #expect(transport.sent.count == 1)
        let sent = try #require(transport.sent.first)
        let line = "\(sent.request.method.rawValue) \(sent.request.path ?? "") HTTP/1.1"
        #expect(line == printed.request_line)
        #expect(sent.request.scheme == "https")
        #expect(sent.body == nil)
        for header in printed.headers {
            if header.name == "Host" {
                #expect(sent.request.authority == header.value)
            } else {
                #expect(sent.request.headerFields[try #require(HTTPField.Name(header.name))] == header.value)
            }
        }
    }
}
