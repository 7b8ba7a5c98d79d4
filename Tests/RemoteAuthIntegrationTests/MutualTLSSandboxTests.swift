import Crypto
import Foundation
import HTTPTypes
import NIOCore
import RemoteAuth
import RemoteAuthNIO
import RemoteAuthSandbox
import SwiftASN1
import Testing
import X509

/// RFC 8705 end to end over real TLS sockets: `tls_client_auth` and
/// `self_signed_tls_client_auth` at the sandbox's token endpoint through `NIOHTTP1Transport`'s
/// client identity, and certificate-bound access tokens at its status API.
@Suite("Mutual TLS client authentication and bound tokens", .timeLimit(.minutes(5)))
struct MutualTLSSandboxTests {
    static let now: @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970) }
    static let timeline = "/1.1/statuses/home_timeline.json"

    /// The OpenSSL-made self-signed certificate of `mtls.json`, and its `x5t#S256`.
    struct FixedClient: Decodable, Sendable {
        let certificatePEM: String
        let privateKeyPEM: String
        let x5tS256: String
    }

    static func fixedClient() throws -> FixedClient {
        let data = try Data(contentsOf: try vectorsFile("mtls.json"))
        return try #require(try JSONDecoder().decode([FixedClient].self, from: data).first)
    }

    /// The sandbox's server PKI, the client CA, and a CA-issued client certificate for each name.
    struct World: Sendable {
        let server: TestPKI
        let serverLeaf: TestPKI.Issued
        let clients: TestPKI
        let fixed: FixedClient
        let base: String

        func transport(_ identity: ClientIdentity?) throws -> NIOHTTP1Transport {
            try NIOHTTP1Transport(
                configuration: .init(
                    trust: ServerTrust(default: DefaultTrustPolicy(roots: try .pemBundle(server.ca.pem))),
                    clientIdentity: identity,
                    // A guard against a hang, not a measure: the suite's time limit bounds it too,
                    // and a loaded machine's handshakes may take many seconds.
                    connectTimeout: TestTime.hangGuardAmount,
                    timeout: TestTime.hangGuardAmount
                )
            )
        }

        func identity(_ issued: TestPKI.Issued) -> ClientIdentity {
            ClientIdentity(certificateChainPEM: issued.pem, privateKeyPEM: issued.keyPEM)
        }

        var fixedIdentity: ClientIdentity {
            ClientIdentity(certificateChainPEM: fixed.certificatePEM, privateKeyPEM: fixed.privateKeyPEM)
        }

        func flow(
            _ clientID: String,
            _ method: OAuth2.ClientAuthentication,
            over transport: any HTTPTransport
        )
            async throws -> OAuth2.Flow
        {
            let metadata = try await OAuth2.Flow.discover(issuer: base, transport: transport)
            return OAuth2.Flow(
                server: .init(metadata: metadata),
                client: .init(id: clientID, authentication: method),
                transport: transport,
                now: MutualTLSSandboxTests.now
            )
        }
    }

    /// A TLS sandbox that asks for (and does not require) client certificates, with the client
    /// CA, a `tls_client_auth` client (`CN=svc-client`) and two `self_signed_tls_client_auth`
    /// clients (the fixed certificate, by PEM and by thumbprint).
    static func withWorld<T: Sendable>(_ body: @Sendable (World) async throws -> T) async throws -> T {
        let server = try TestPKI()
        let serverLeaf = try server.issue()
        let clients = try TestPKI(name: "RemoteAuth Test Client CA")
        let fixed = try fixedClient()
        var configuration = SandboxConfiguration.demo()
        configuration.autoApprove = true
        configuration.tls = .init(
            certificateChainPEM: serverLeaf.pem + server.ca.pem,
            privateKeyPEM: serverLeaf.keyPEM,
            clientCAPEM: clients.ca.pem,
            requiresClientCertificate: false
        )
        configuration.oauth2Clients += [
            .init(
                id: "pki-client",
                tokenEndpointAuthMethod: "tls_client_auth",
                tlsClientAuthSubjectDN: "CN=svc-client"
            ),
            .init(
                id: "self-signed-client",
                tokenEndpointAuthMethod: "self_signed_tls_client_auth",
                tlsClientCertificatePEM: fixed.certificatePEM
            ),
            .init(
                id: "thumbprint-client",
                tokenEndpointAuthMethod: "self_signed_tls_client_auth",
                tlsClientCertificateSHA256: fixed.x5tS256
            ),
        ]
        return try await Sandbox.withSandbox(configuration) { sandbox in
            try await body(
                World(server: server, serverLeaf: serverLeaf, clients: clients, fixed: fixed, base: sandbox.baseURL)
            )
        }
    }

    /// A self-signed client certificate (not a CA) with the subject `CN=commonName`.
    static func selfSigned(_ commonName: String) throws -> TestPKI.Issued {
        let key = P256.Signing.PrivateKey()
        let name = try DistinguishedName { CommonName(commonName) }
        let certificate = try Certificate(
            version: .v3,
            serialNumber: Certificate.SerialNumber(),
            publicKey: .init(key.publicKey),
            notValidBefore: Date().addingTimeInterval(-60),
            notValidAfter: Date().addingTimeInterval(3600),
            issuer: name,
            subject: name,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                try ExtendedKeyUsage([.clientAuth])
            },
            issuerPrivateKey: .init(key)
        )
        return TestPKI.Issued(certificate: certificate, key: key)
    }

    /// A form POST, answered as (status, JSON object).
    static func post(
        _ url: String,
        _ form: [(name: String, value: String)],
        basic: (String, String)? = nil,
        over transport: NIOHTTP1Transport
    ) async throws -> (Int, [String: Any]) {
        var request = try HTTPRequest(method: .post, absoluteURL: url)
        request.headerFields[.contentType] = "application/x-www-form-urlencoded"
        if let basic {
            request.headerFields[.authorization] =
                OAuth2.ClientAuthentication.basicAuthorization(clientID: basic.0, secret: Secret(basic.1))
        }
        let (response, body) = try await transport.send(request, body: Array(FormURLEncoding.encode(form).utf8))
        let json = try JSONSerialization.jsonObject(with: Data(body)) as? [String: Any] ?? [:]
        return (response.status.code, json)
    }

    static func timeline(
        _ base: String,
        token: String,
        over transport: NIOHTTP1Transport
    ) async throws -> (
        Int, String?
    ) {
        var request = try HTTPRequest(method: .get, absoluteURL: base + timeline)
        request.headerFields[.authorization] = "Bearer " + token
        let (response, _) = try await transport.send(request, body: nil)
        return (response.status.code, response.headerFields[.wwwAuthenticate])
    }

    /// The `cnf` of `token`, asked by the confidential demo client.
    static func confirmation(
        _ base: String,
        token: String,
        over transport: NIOHTTP1Transport
    ) async throws -> [String:
        String]?
    {
        let (status, json) = try await post(
            base + "/oauth2/introspect",
            [("token", token)],
            basic: ("demo-service", "demo-service-secret"),
            over: transport
        )
        #expect(status == 200)
        #expect(json["active"] as? Bool == true)
        return json["cnf"] as? [String: String]
    }

    @Test func metadataOffersTheCertificateMethodsOverTLS() async throws {
        try await Self.withWorld { world in
            let transport = try world.transport(nil)
            let metadata = try await OAuth2.Flow.discover(issuer: world.base, transport: transport)
            await transport.shutdown()
            #expect(metadata.tlsClientCertificateBoundAccessTokens)
            #expect(metadata.tokenEndpointAuthMethodsSupported?.contains("tls_client_auth") == true)
            #expect(metadata.tokenEndpointAuthMethodsSupported?.contains("self_signed_tls_client_auth") == true)
        }
    }

    /// §2.2 and §3: the registered self-signed certificate authenticates the client; the token
    /// is bound to it (`cnf` `x5t#S256` equal to OpenSSL's value), accepted over a connection
    /// with that certificate and refused over one without it or with another.
    @Test(arguments: ["self-signed-client", "thumbprint-client"])
    func selfSignedClientGetsABoundToken(_ clientID: String) async throws {
        try await Self.withWorld { world in
            let mine = try world.transport(world.fixedIdentity)
            let bare = try world.transport(nil)
            let other = try world.transport(world.identity(try world.clients.issue("svc-client", client: true)))
            let flow = try await world.flow(clientID, .selfSignedTLSClientAuth, over: mine)
            let tokens = try await flow.clientCredentials(scope: ["statuses:read"]).tokens
            #expect(tokens.tokenType == "Bearer")
            let token = tokens.accessToken.reveal()
            #expect(
                try await Self.confirmation(world.base, token: token, over: bare) == ["x5t#S256": world.fixed.x5tS256]
            )
            #expect(try await Self.timeline(world.base, token: token, over: mine).0 == 200)
            for wrong in [bare, other] {
                let (status, challenge) = try await Self.timeline(world.base, token: token, over: wrong)
                #expect(status == 401)
                #expect(challenge?.contains(#"error="invalid_token""#) == true)
            }
            for transport in [mine, bare, other] { await transport.shutdown() }
        }
    }

    /// §2.1: a certificate from the client CA with the registered subject DN authenticates the
    /// client; the token is bound to that certificate.
    @Test func pkiClientGetsABoundToken() async throws {
        try await Self.withWorld { world in
            let issued = try world.clients.issue("svc-client", client: true)
            let mine = try world.transport(world.identity(issued))
            let flow = try await world.flow("pki-client", .tlsClientAuth, over: mine)
            let token = try await flow.clientCredentials(scope: ["statuses:read"]).tokens.accessToken.reveal()
            let expected = try OAuth2.CertificateBinding.thumbprint(of: issued.certificate)
            #expect(try await Self.confirmation(world.base, token: token, over: mine) == ["x5t#S256": expected])
            #expect(try await Self.timeline(world.base, token: token, over: mine).0 == 200)
            // The same DN on another certificate from the same CA is another certificate.
            let twin = try world.transport(world.identity(try world.clients.issue("svc-client", client: true)))
            #expect(try await Self.timeline(world.base, token: token, over: twin).0 == 401)
            await mine.shutdown()
            await twin.shutdown()
        }
    }

    /// Every way to fail §2's authentication is `401 invalid_client`, and no token is issued.
    @Test func refusedAuthentications() async throws {
        try await Self.withWorld { world in
            // A self-signed certificate with the registered DN, not from the client CA.
            let selfSignedTwin = try Self.selfSigned("svc-client")
            let cases: [(String, ClientIdentity?, String)] = [
                ("self-signed-client", nil, "no certificate"),
                ("pki-client", nil, "no certificate"),
                (
                    "self-signed-client", world.identity(try world.clients.issue("svc-client", client: true)),
                    "wrong certificate"
                ),
                ("thumbprint-client", world.identity(try Self.selfSigned("self-signed-client")), "wrong certificate"),
                (
                    "pki-client", world.identity(try world.clients.issue("someone-else", client: true)),
                    "unregistered DN"
                ),
                ("pki-client", world.identity(selfSignedTwin), "right DN, no CA"),
                ("pki-client", world.fixedIdentity, "self-signed, other DN"),
            ]
            for (clientID, identity, what) in cases {
                let transport: NIOHTTP1Transport
                do { transport = try world.transport(identity) } catch {
                    Issue.record("\(clientID), \(what): \(error)")
                    continue
                }
                let (status, json) = try await Self.post(
                    world.base + "/oauth2/token",
                    [("grant_type", "client_credentials"), ("client_id", clientID)],
                    over: transport
                )
                #expect(status == 401, "\(clientID), \(what)")
                #expect(json["error"] as? String == "invalid_client", "\(clientID), \(what)")
                #expect(json["access_token"] == nil)
                await transport.shutdown()
            }
        }
    }

    /// A token issued without a client certificate is not bound; a client secret client that
    /// presents a certificate gets a bound one (§3 works with any client authentication).
    @Test func bindingFollowsTheConnection() async throws {
        try await Self.withWorld { world in
            let bare = try world.transport(nil)
            let mine = try world.transport(world.fixedIdentity)
            let form: [(name: String, value: String)] = [
                ("grant_type", "client_credentials"), ("scope", "statuses:read"),
            ]
            let secret = ("demo-service", "demo-service-secret")
            let (_, unbound) = try await Self.post(world.base + "/oauth2/token", form, basic: secret, over: bare)
            let unboundToken = try #require(unbound["access_token"] as? String)
            #expect(try await Self.confirmation(world.base, token: unboundToken, over: bare) == nil)
            #expect(try await Self.timeline(world.base, token: unboundToken, over: bare).0 == 200)
            let (_, bound) = try await Self.post(world.base + "/oauth2/token", form, basic: secret, over: mine)
            let boundToken = try #require(bound["access_token"] as? String)
            #expect(
                try await Self.confirmation(world.base, token: boundToken, over: bare) == [
                    "x5t#S256": world.fixed.x5tS256
                ]
            )
            #expect(try await Self.timeline(world.base, token: boundToken, over: bare).0 == 401)
            await bare.shutdown()
            await mine.shutdown()
        }
    }

    /// §4: a public client's refresh token issued over mutual TLS is refreshed only with the
    /// same certificate, and the new access token is bound to it too.
    @Test func refreshTokenIsBoundToo() async throws {
        try await Self.withWorld { world in
            let bare = try world.transport(nil)
            let mine = try world.transport(world.fixedIdentity)
            let other = try world.transport(world.identity(try Self.selfSigned("someone")))
            let signIn = try await world.flow("demo-app", .none, over: mine)
            let request = try signIn.authorizationRequest(
                redirectURI: "http://127.0.0.1:9/callback",
                scope: ["openid", "statuses:read"],
                random: .system
            )
            // The browser's side (auto-approved): no certificate there.
            let (redirect, _) = try await bare.send(try HTTPRequest(method: .get, absoluteURL: request.url), body: nil)
            let location = try #require(redirect.headerFields[.location])
            let tokens = try await signIn.tokens(fromCallback: location, pending: request.pending)
            let refresh = try #require(tokens.refreshToken)
            #expect(
                try await Self.confirmation(world.base, token: refresh.reveal(), over: bare) == [
                    "x5t#S256": world.fixed.x5tS256
                ]
            )
            for wrong in [bare, other] {
                let (status, json) = try await Self.post(
                    world.base + "/oauth2/token",
                    [("grant_type", "refresh_token"), ("refresh_token", refresh.reveal()), ("client_id", "demo-app")],
                    over: wrong
                )
                #expect(status == 400)
                #expect(json["error"] as? String == "invalid_grant")
            }
            let renewed = try await signIn.refresh(tokens)
            #expect(
                try await Self.confirmation(world.base, token: renewed.accessToken.reveal(), over: bare) == [
                    "x5t#S256": world.fixed.x5tS256
                ]
            )
            // UserInfo is a protected resource too.
            for (transport, expected) in [(mine, 200), (bare, 401), (other, 401)] {
                var userInfo = try HTTPRequest(method: .get, absoluteURL: world.base + "/oauth2/userinfo")
                userInfo.headerFields[.authorization] = "Bearer " + renewed.accessToken.reveal()
                #expect(try await transport.send(userInfo, body: nil).0.status.code == expected)
            }
            for transport in [bare, mine, other] { await transport.shutdown() }
        }
    }

    /// Over plain HTTP there is no certificate: a certificate client cannot authenticate, and
    /// the metadata does not offer the methods.
    @Test func plainHTTPHasNoCertificate() async throws {
        var configuration = SandboxConfiguration.demo()
        configuration.oauth2Clients.append(
            .init(id: "pki-client", tokenEndpointAuthMethod: "tls_client_auth", tlsClientAuthSubjectDN: "CN=svc-client")
        )
        try await Sandbox.withSandbox(configuration) { sandbox in
            let transport = try NIOHTTP1Transport(
                configuration: .init(connectTimeout: TestTime.hangGuardAmount, timeout: TestTime.hangGuardAmount)
            )
            let metadata = try await OAuth2.Flow.discover(issuer: sandbox.baseURL, transport: transport)
            #expect(!metadata.tlsClientCertificateBoundAccessTokens)
            #expect(metadata.tokenEndpointAuthMethodsSupported?.contains("tls_client_auth") == false)
            let flow = OAuth2.Flow(
                server: .init(metadata: metadata),
                client: .init(id: "pki-client", authentication: .tlsClientAuth),
                transport: transport,
                now: Self.now
            )
            do {
                _ = try await flow.clientCredentials()
                Issue.record("a tls_client_auth client got a token over plain HTTP")
            } catch let error as OAuth2.Error {
                #expect(error.code == .serverRefused)
                #expect(error.serverError?.code == .invalidClient)
            }
            await transport.shutdown()
        }
    }
}
