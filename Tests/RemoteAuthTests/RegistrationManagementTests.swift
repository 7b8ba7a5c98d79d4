import Foundation
import HTTPTypes
import RemoteAuth
import Testing

/// RFC 7592 read and delete with a scripted server: what is sent, and every refusal.
@Suite struct RegistrationManagementTests {
    static let managed = OAuth2.ClientRegistration(
        clientID: "c1",
        registrationAccessToken: Secret("reg-token"),
        registrationClientURI: "https://as.example/register/c1"
    )

    @Test func readSendsTheRegistrationAccessToken() async throws {
        let transport = ScriptedTransport([
            ResourceDiscoveryTests.json(
                #"{"client_id":"c1","redirect_uris":["http://127.0.0.1:5/cb"],"token_endpoint_auth_method":"none"}"#
            )
        ])
        let registered = try await OAuth2.DynamicRegistration.read(Self.managed, transport: transport)
        #expect(registered.clientID == "c1")
        #expect(registered.members["redirect_uris"] == .array([.string("http://127.0.0.1:5/cb")]))
        let sent = try #require(transport.sent.first?.request)
        #expect(sent.method == .get)
        #expect(sent.url?.absoluteString == "https://as.example/register/c1")
        #expect(sent.headerFields[.authorization] == "Bearer reg-token")
    }

    /// §2.1: the server answers for this client only.
    @Test func anotherClientsRegistrationIsRefused() async throws {
        let transport = ScriptedTransport([ResourceDiscoveryTests.json(#"{"client_id":"c2"}"#)])
        let error = await #expect(throws: OAuth2.Error.self) {
            _ = try await OAuth2.DynamicRegistration.read(Self.managed, transport: transport)
        }
        #expect(error?.code == .malformedResponse)
        #expect(
            error?.reason
                == "GET https://as.example/register/c1: the registration is for client 'c2', not 'c1' (RFC 7592 §2.1)"
        )
    }

    @Test(arguments: [401, 403, 404]) func aBareRefusal(status: Int) async throws {
        let transport = ScriptedTransport([ScriptedTransport.status(status)])
        let error = await #expect(throws: OAuth2.Error.self) {
            try await OAuth2.DynamicRegistration.delete(Self.managed, transport: transport)
        }
        #expect(error?.code == .serverRefused)
        #expect(error?.status == status)
        #expect(error?.reason.hasPrefix("DELETE https://as.example/register/c1: HTTP \(status): ") == true)
        #expect(transport.sent.first?.request.method == .delete)
    }

    @Test func deleteIs204() async throws {
        try await OAuth2.DynamicRegistration.delete(
            Self.managed,
            transport: ScriptedTransport([ScriptedTransport.status(204)])
        )
        let error = await #expect(throws: OAuth2.Error.self) {
            try await OAuth2.DynamicRegistration.delete(
                Self.managed,
                transport: ScriptedTransport([ResourceDiscoveryTests.json(#"{"client_id":"c1"}"#)])
            )
        }
        #expect(error?.code == .malformedResponse)
    }

    /// A client registered by hand has nothing to manage: refused before any request.
    @Test func withoutManagement() async throws {
        let transport = ScriptedTransport([])
        let error = await #expect(throws: OAuth2.Error.self) {
            _ = try await OAuth2.DynamicRegistration.read(
                OAuth2.ClientRegistration(clientID: "c1"),
                transport: transport
            )
        }
        #expect(error?.code == .invalidConfiguration)
        #expect(transport.sent.isEmpty)
    }
}
