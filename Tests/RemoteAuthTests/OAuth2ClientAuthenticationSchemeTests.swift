import Foundation
import RemoteAuth
import Testing

/// A vendor's method the library does not build in: the secret in a header field of its own.
struct HeaderSecretScheme: OAuth2.ClientAuthenticationScheme {
    let secret: Secret
    var methodName: String { "example_client_secret_header" }
    var usesMutualTLS: Bool { false }
    var secrets: [Secret] { [secret] }

    func authenticate(
        clientID: String,
        endpoint: String,
        fields: inout HTTPFields,
        parameters: inout [(name: String, value: String)]
    ) throws {
        fields[HTTPField.Name("X-Client-Secret")!] = secret.reveal()
        parameters.append(("client_id", clientID))
    }
}

/// Client authentication open for extension: a scheme from outside the module is used by every
/// endpoint request of a flow, named in sessions, kept out of error excerpts, and refused
/// clearly when a stored client names it without supplying it.
@Suite struct OAuth2ClientAuthenticationSchemeTests {
    let authentication = OAuth2.ClientAuthentication.custom(HeaderSecretScheme(secret: "s3cr3t-value"))

    @Test func aFlowSendsIt() async throws {
        let transport = ScriptedTransport([
            OAuth2Script.json(200, #"{"access_token":"at","token_type":"Bearer","expires_in":60}"#),
            OAuth2Script.json(400, #"{"error":"invalid_client","error_description":"bad s3cr3t-value"}"#),
        ])
        let flow = OAuth2.Flow(
            server: OAuth2.AuthorizationServer(tokenEndpoint: "https://as.example/token"),
            client: OAuth2.Client(id: "svc", authentication: authentication),
            transport: transport,
            now: { 1_000 }
        )
        #expect(try await flow.clientCredentials(scope: ["read"]).tokens.accessToken == "at")
        let sent = transport.sent[0]
        #expect(sent.request.headerFields[HTTPField.Name("X-Client-Secret")!] == "s3cr3t-value")
        #expect(sent.request.headerFields[.authorization] == nil)
        #expect(
            try OAuth2Script.form(sent.body)
                == [
                    Pair(name: "grant_type", value: "client_credentials"), Pair(name: "scope", value: "read"),
                    Pair(name: "client_id", value: "svc"),
                ]
        )
        // The scheme's secret never reaches an error's excerpt of the server's answer.
        let error = await #expect(throws: OAuth2.Error.self) { try await flow.clientCredentials() }
        #expect(error?.serverError?.code == .invalidClient)
        #expect(!"\(error!)".contains("s3cr3t-value"))
    }

    @Test func itIsNamedAndComparedByName() throws {
        #expect(authentication.methodName == "example_client_secret_header")
        #expect("\(authentication)" == "OAuth2.ClientAuthentication(example_client_secret_header)")
        #expect(authentication == .custom(HeaderSecretScheme(secret: "other")))
        #expect(authentication != .clientSecretBasic("s3cr3t-value"))
        #expect(!authentication.usesMutualTLS)

        let encoded = String(decoding: try JSONEncoder().encode(authentication), as: UTF8.self)
        #expect(encoded == #"{"method":"example_client_secret_header"}"#)
        let error = #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(OAuth2.ClientAuthentication.self, from: Data(encoded.utf8))
        }
        guard case .dataCorrupted(let context)? = error else { return }
        #expect(
            context.debugDescription
                == "the client authentication method 'example_client_secret_header' is not built in: supply it with ClientAuthentication.custom"
        )
        // The built-in methods still round-trip.
        let basic = OAuth2.ClientAuthentication.clientSecretBasic("x")
        #expect(try JSONDecoder().decode(OAuth2.ClientAuthentication.self, from: JSONEncoder().encode(basic)) == basic)
    }
}
