import Foundation
import HTTPTypes
import RemoteAuth
import SwiftASN1
import Testing
import X509

/// A case of `mtls.json`: a certificate made by OpenSSL and the values OpenSSL computed for it
/// (Tests/Vectors/SOURCES.md).
struct MutualTLSVector: Decodable, Sendable, CustomTestStringConvertible {
    let id: String
    let certificatePEM: String
    let privateKeyPEM: String
    let x5tS256: String
    let sha256Fingerprint: String
    let subjectDN: String
    var testDescription: String { id }

    var der: [UInt8] { get throws { try PEMDocument(pemString: certificatePEM).derBytes } }
}

@Suite struct MutualTLSTests {
    static let vectors = try! Vectors.load("mtls", as: MutualTLSVector.self)

    /// RFC 8705 §3.1: `x5t#S256` is the base64url SHA-256 of the DER certificate.
    @Test(arguments: vectors)
    func thumbprintMatchesOpenSSL(_ v: MutualTLSVector) throws {
        let der = try v.der
        #expect(OAuth2.CertificateBinding.thumbprint(certificateDER: der) == v.x5tS256)
        #expect(try OAuth2.CertificateBinding.thumbprint(of: Certificate(derEncoded: der)) == v.x5tS256)
        // OpenSSL's colon-separated fingerprint, re-encoded, is the same value.
        let bytes = v.sha256Fingerprint.split(separator: ":").map { UInt8($0, radix: 16)! }
        let base64url = Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
        #expect(base64url == v.x5tS256)
        // RFC 4514, as tls_client_auth_subject_dn (§2.1.2) takes it.
        #expect(String(describing: try Certificate(derEncoded: der).subject) == v.subjectDN)
    }

    @Test(arguments: vectors)
    func boundOnlyToThatCertificate(_ v: MutualTLSVector) throws {
        let der = try v.der
        #expect(OAuth2.CertificateBinding.isBound(v.x5tS256, toPresented: der))
        #expect(!OAuth2.CertificateBinding.isBound(v.x5tS256, toPresented: nil))
        var other = der
        other[other.count - 1] ^= 1
        #expect(!OAuth2.CertificateBinding.isBound(v.x5tS256, toPresented: other))
        #expect(!OAuth2.CertificateBinding.isBound(String(v.x5tS256.dropLast()), toPresented: der))
    }

    /// RFC 8705 §2: `client_id` in the body, no secret, no Authorization field.
    @Test(arguments: [
        (OAuth2.ClientAuthentication.tlsClientAuth, "tls_client_auth"),
        (.selfSignedTLSClientAuth, "self_signed_tls_client_auth"),
    ])
    func certificateMethodsSendTheClientIDOnly(_ method: OAuth2.ClientAuthentication, _ name: String) throws {
        #expect(method.methodName == name)
        #expect(method.usesMutualTLS)
        #expect(method.secret == nil)
        let client = OAuth2.Client(id: "s6BhdRkqt3", authentication: method)
        let (request, body) = try OAuth2.TokenRequest.clientCredentials(scope: ["a"])
            .httpRequest(to: "https://as.example/token", client: client)
        #expect(request.headerFields[.authorization] == nil)
        #expect(
            try OAuth2Script.form(body) == [
                Pair(name: "grant_type", value: "client_credentials"), Pair(name: "scope", value: "a"),
                Pair(name: "client_id", value: "s6BhdRkqt3"),
            ]
        )
        // By name, as metadata and stored sessions give it; never with a secret.
        #expect(try OAuth2.ClientAuthentication(methodName: name, secret: nil) == method)
        #expect(throws: OAuth2.Error(.invalidConfiguration, "")) {
            try OAuth2.ClientAuthentication(methodName: name, secret: "s")
        }
        // Codable like the others.
        let encoded = try JSONEncoder().encode(client)
        #expect(try JSONDecoder().decode(OAuth2.Client.self, from: encoded) == client)
        #expect(!OAuth2.ClientAuthentication.none.usesMutualTLS)
        #expect(!OAuth2.ClientAuthentication.clientSecretBasic("s").usesMutualTLS)
    }

    static let metadataJSON = #"""
        {"issuer":"https://as.example","authorization_endpoint":"https://as.example/authorize",
         "token_endpoint":"https://as.example/token","revocation_endpoint":"https://as.example/revoke",
         "introspection_endpoint":"https://as.example/introspect",
         "pushed_authorization_request_endpoint":"https://as.example/par",
         "tls_client_certificate_bound_access_tokens":true,
         "mtls_endpoint_aliases":{"token_endpoint":"https://mtls.as.example/token",
           "revocation_endpoint":"https://mtls.as.example/revoke",
           "pushed_authorization_request_endpoint":"https://mtls.as.example/par",
           "registration_endpoint":"https://mtls.as.example/register"}}
        """#

    /// RFC 8705 §3.3 and §5: both members parsed, the unknown alias kept.
    @Test func metadataMembers() throws {
        let metadata = try JSONDecoder().decode(OAuth2.ServerMetadata.self, from: Data(Self.metadataJSON.utf8))
        #expect(metadata.tlsClientCertificateBoundAccessTokens)
        let aliases = try #require(metadata.mutualTLSEndpointAliases)
        #expect(aliases.tokenEndpoint == "https://mtls.as.example/token")
        #expect(aliases.revocationEndpoint == "https://mtls.as.example/revoke")
        #expect(aliases.introspectionEndpoint == nil)
        #expect(aliases.pushedAuthorizationRequestEndpoint == "https://mtls.as.example/par")
        #expect(aliases.additionalParameters["registration_endpoint"] == .string("https://mtls.as.example/register"))
        #expect(metadata.additionalParameters["mtls_endpoint_aliases"] == nil)
        let again = try JSONDecoder().decode(OAuth2.ServerMetadata.self, from: JSONEncoder().encode(metadata))
        #expect(again == metadata)
        // Absent: false and nil.
        let plain = try JSONDecoder().decode(
            OAuth2.ServerMetadata.self,
            from: Data(#"{"issuer":"https://as.example"}"#.utf8)
        )
        #expect(!plain.tlsClientCertificateBoundAccessTokens)
        #expect(plain.mutualTLSEndpointAliases == nil)
        // A wrong type is an error naming the member.
        #expect(throws: (any Error).self) {
            try JSONDecoder().decode(
                OAuth2.ServerMetadata.self,
                from: Data(#"{"issuer":"https://as.example","mtls_endpoint_aliases":"https://x"}"#.utf8)
            )
        }
    }

    /// RFC 8705 §5: a certificate client uses the alias where there is one, the top-level
    /// endpoint elsewhere; other clients never use the aliases.
    @Test func certificateClientsUseTheAliases() async throws {
        let metadata = try JSONDecoder().decode(OAuth2.ServerMetadata.self, from: Data(Self.metadataJSON.utf8))
        let server = OAuth2.AuthorizationServer(metadata: metadata)
        let transport = ScriptedTransport([
            OAuth2Script.json(200, #"{"access_token":"t","token_type":"Bearer"}"#),
            OAuth2Script.json(200, #"{"active":false}"#),
            OAuth2Script.json(200, #"{"access_token":"t","token_type":"Bearer"}"#),
        ])
        let mtls = OAuth2.Flow(
            server: server,
            client: .init(id: "c", authentication: .tlsClientAuth),
            transport: transport,
            now: { 0 }
        )
        #expect(mtls.server.tokenEndpoint == "https://mtls.as.example/token")
        #expect(mtls.server.introspectionEndpoint == "https://as.example/introspect")
        #expect(mtls.server.authorizationEndpoint == "https://as.example/authorize")
        _ = try await mtls.clientCredentials()
        _ = try await mtls.introspect("t")
        let secret = OAuth2.Flow(
            server: server,
            client: .init(id: "c", authentication: .clientSecretBasic("s")),
            transport: transport,
            now: { 0 }
        )
        _ = try await secret.clientCredentials()
        #expect(
            transport.sent.map { $0.request.url?.absoluteString } == [
                "https://mtls.as.example/token", "https://as.example/introspect", "https://as.example/token",
            ]
        )
        // Kept through Codable.
        let decoded = try JSONDecoder().decode(OAuth2.AuthorizationServer.self, from: JSONEncoder().encode(server))
        #expect(decoded == server)
    }

    /// A session of a certificate client restores that client, and keeps where its
    /// certificate is (never the key).
    @Test func sessionKeepsTheMethodAndTheCertificateReference() throws {
        let session = OAuth2.Session(
            tokens: OAuth2.Tokens(accessToken: "at", tokenType: "Bearer"),
            tokenEndpoint: "https://mtls.as.example/token",
            clientID: "c",
            clientAuthentication: .selfSignedTLSClientAuth,
            clientCertificate: .init(certificate: "/k/client.pem", key: "/k/client.key")
        )
        #expect(try session.client() == OAuth2.Client(id: "c", authentication: .selfSignedTLSClientAuth))
        let decoded = try JSONDecoder().decode(OAuth2.Session.self, from: JSONEncoder().encode(session))
        #expect(decoded.clientCertificate == .init(certificate: "/k/client.pem", key: "/k/client.key", format: "pem"))
        #expect(session.description.contains("clientCertificate: /k/client.pem"))
    }
}
