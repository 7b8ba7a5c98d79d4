import Foundation
import HTTPTypes
import RemoteAuth
import Testing

/// RFC 9126: the PAR response read strictly, the front-channel URL after a push, and the
/// metadata members.
@Suite struct OAuth2PushedAuthorizationTests {
    @Test func parsesTheRFCExample() throws {
        // RFC 9126 §2.2's example response.
        let body = Array(
            #"{"request_uri":"urn:ietf:params:oauth:request_uri:6esc_11ACC5bwc014ltc14eY22c","expires_in":60}"#.utf8)
        let response = try OAuth2.PushedAuthorizationResponse.parse(status: 201, body: body, now: 1000)
        #expect(response.requestURI == "urn:ietf:params:oauth:request_uri:6esc_11ACC5bwc014ltc14eY22c")
        #expect(response.expiresIn == 60)
        #expect(response.expiresAt == 1060)
    }

    @Test func refusesWhatTheRFCDoesNotAllow() throws {
        for (status, body) in [
            (201, #"{"expires_in":60}"#),
            (201, #"{"request_uri":"urn:x"}"#),
            (201, #"{"request_uri":"urn:x","expires_in":0}"#),
            (201, #"{"request_uri":7,"expires_in":60}"#),
            (502, "<html>bad gateway</html>"),
        ] {
            #expect(throws: OAuth2.Error(.malformedResponse, ""), "\(body)") {
                try OAuth2.PushedAuthorizationResponse.parse(status: status, body: Array(body.utf8), now: 0)
            }
        }
        // RFC 9126 §2.3's error example.
        let error = #expect(throws: OAuth2.Error.self) {
            try OAuth2.PushedAuthorizationResponse.parse(
                status: 400,
                body: Array(#"{"error":"invalid_request","error_description":"The redirect_uri is not valid for the given client"}"#.utf8),
                now: 0)
        }
        #expect(error?.code == .serverRefused)
        #expect(error?.serverError?.code == .invalidRequest)
    }

    @Test func theRequestSentAndTheURLAfterwards() throws {
        let request = try OAuth2.AuthorizationRequest(
            authorizationEndpoint: "https://as.example/authorize",
            clientID: "s6BhdRkqt3",
            redirectURI: "https://client.example.org/cb",
            scope: ["read"],
            random: .seeded(7)
        )
        let client = OAuth2.Client(id: "s6BhdRkqt3", authentication: .clientSecretBasic("7Fjfp0ZBr1KtDRbnfVdmIw"))
        let (head, body) = try OAuth2.PushedAuthorizationResponse.httpRequest(
            to: "https://as.example/as/par", authorizationRequest: request, client: client)
        #expect(head.method == .post)
        #expect(head.headerFields[.contentType] == "application/x-www-form-urlencoded")
        // RFC 9126 §2.1's example: Basic czZCaGRSa3F0Mzo3RmpmcDBaQnIxS3REUmJuZlZkbUl3.
        #expect(head.headerFields[.authorization] == "Basic czZCaGRSa3F0Mzo3RmpmcDBaQnIxS3REUmJuZlZkbUl3")
        let sent = try FormURLEncoding.decode(bytes: body)
        #expect(sent.map(\.name) == request.parameters.map(\.name))
        #expect(sent.map(\.value) == request.parameters.map(\.value))
        #expect(request.pushedRequest == nil)
        #expect(request.frontChannelParameters.map(\.name) == request.parameters.map(\.name))
    }

    @Test func metadataMembers() async throws {
        let json = #"{"issuer":"https://as.example","pushed_authorization_request_endpoint":"https://as.example/par","require_pushed_authorization_requests":true}"#
        let metadata = try OAuth2.ServerMetadata.parse(status: 200, body: Array(json.utf8), expectedIssuer: "https://as.example")
        #expect(metadata.pushedAuthorizationRequestEndpoint == "https://as.example/par")
        #expect(metadata.requirePushedAuthorizationRequests)
        #expect(metadata.additionalParameters.isEmpty)
        let server = OAuth2.AuthorizationServer(metadata: metadata)
        #expect(server.pushedAuthorizationRequestEndpoint == "https://as.example/par")
        #expect(server.requiresPushedAuthorizationRequests)
        // Written back, and read back (an encoding from before PAR decodes too).
        let again = try JSONDecoder().decode(OAuth2.ServerMetadata.self, from: JSONEncoder().encode(metadata))
        #expect(again == metadata)
        let old = try JSONDecoder().decode(
            OAuth2.AuthorizationServer.self, from: Data(#"{"issuer":"https://as.example","requiresIssuerParameter":true}"#.utf8))
        #expect(old.requiresIssuerParameter)
        #expect(!old.requiresPushedAuthorizationRequests)
        #expect(try JSONDecoder().decode(OAuth2.AuthorizationServer.self, from: JSONEncoder().encode(server)) == server)
        // A flow without a PAR endpoint says so.
        let flow = OAuth2.Flow(
            server: .init(authorizationEndpoint: "https://as.example/authorize", tokenEndpoint: "https://as.example/token"),
            client: .public(id: "app"), transport: NoTransport(), now: { 0 })
        let request = try flow.authorizationRequest(redirectURI: "https://client.example.org/cb", random: .seeded(1))
        await #expect(throws: OAuth2.Error(.invalidConfiguration, "")) { try await flow.push(request) }
        await #expect(throws: OAuth2.Error(.invalidConfiguration, "")) {
            try await flow.startAuthorization(redirectURI: "https://client.example.org/cb", push: true, random: .seeded(1))
        }
    }
}

/// A transport that must not be used.
struct NoTransport: HTTPTransport {
    func send(_ request: HTTPRequest, body: [UInt8]?) async throws -> (HTTPResponse, [UInt8]) {
        Issue.record("no request was expected")
        throw TransportError(.connectionRefused, "no transport")
    }
}
