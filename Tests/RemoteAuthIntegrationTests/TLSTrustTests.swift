import AsyncHTTPClient
import Crypto
import Foundation
import HTTPTypes
import NIOConcurrencyHelpers
import NIOCore
import RemoteAuth
import RemoteAuthAsyncHTTPClient
import RemoteAuthNIO
import RemoteAuthSandbox
import RemoteAuthURLSession
import SwiftASN1
import Testing
import X509

/// A small PKI made for each test: a CA, and leaves it signs (or self-signed ones).
struct TestPKI {
    struct Issued {
        let certificate: Certificate
        let key: P256.Signing.PrivateKey
        var pem: String { try! certificate.serializeAsPEM().pemString + "\n" }
        var keyPEM: String { key.pemRepresentation }
        var pin: SPKIPin { SPKIPin(certificate: certificate) }
    }

    let ca: Issued

    init(name: String = "RemoteAuth Test CA") throws {
        let key = P256.Signing.PrivateKey()
        let subject = try DistinguishedName { CommonName(name) }
        let now = Date()
        let certificate = try Certificate(
            version: .v3,
            serialNumber: Certificate.SerialNumber(),
            publicKey: .init(key.publicKey),
            notValidBefore: now.addingTimeInterval(-3600),
            notValidAfter: now.addingTimeInterval(3600 * 24),
            issuer: subject,
            subject: subject,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: nil))
                Critical(KeyUsage(keyCertSign: true))
            },
            issuerPrivateKey: .init(key)
        )
        ca = Issued(certificate: certificate, key: key)
    }

    /// A server (or, with `client`, a client) certificate signed by the CA.
    func issue(
        _ commonName: String = "127.0.0.1",
        dnsNames: [String] = ["localhost"],
        ipv4: [[UInt8]] = [[127, 0, 0, 1]],
        notBefore: Date = Date().addingTimeInterval(-60),
        notAfter: Date = Date().addingTimeInterval(3600),
        client: Bool = false
    ) throws -> Issued {
        let key = P256.Signing.PrivateKey()
        let names =
            dnsNames.map { GeneralName.dnsName($0) }
            + ipv4.map { .ipAddress(ASN1OctetString(contentBytes: ArraySlice($0))) }
        let certificate = try Certificate(
            version: .v3,
            serialNumber: Certificate.SerialNumber(),
            publicKey: .init(key.publicKey),
            notValidBefore: notBefore,
            notValidAfter: notAfter,
            issuer: ca.certificate.subject,
            subject: try DistinguishedName { CommonName(commonName) },
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                if !names.isEmpty { SubjectAlternativeNames(names) }
                try ExtendedKeyUsage([client ? .clientAuth : .serverAuth])
            },
            issuerPrivateKey: .init(ca.key)
        )
        return Issued(certificate: certificate, key: key)
    }
}

/// Counts what reaches the sandbox's router, and whether any request carried `Authorization`.
final class Arrivals: Sendable {
    private let box = NIOLockedValueBox<[HTTPRequest]>([])
    var requests: [HTTPRequest] { box.withLockedValue { $0 } }
    var observe: @Sendable (HTTPRequest) -> Void { { request in self.box.withLockedValue { $0.append(request) } } }
}

/// Runs a TLS sandbox serving `leaf` (chain: leaf, then the CA unless `chainCA` is false).
func withTLSSandbox<T: Sendable>(
    serving leaf: TestPKI.Issued,
    pki: TestPKI,
    clientCA: String? = nil,
    arrivals: Arrivals = Arrivals(),
    _ body: @Sendable (RunningSandbox) async throws -> T
) async throws -> T {
    var configuration = SandboxConfiguration.demo()
    configuration.tls = .init(
        certificateChainPEM: leaf.pem + pki.ca.pem,
        privateKeyPEM: leaf.keyPEM,
        clientCAPEM: clientCA
    )
    configuration.onRequest = arrivals.observe
    return try await Sandbox.withSandbox(configuration, body)
}

/// The transport's connect timeout and deadline are hang guards only: these tests tell trust
/// decisions apart, never times. 10 s ran out in debug TLS handshakes beside four busy loops and
/// two builds (load 17), and under ThreadSanitizer, so they are `TestTime.hangGuard`.
func transport(_ policy: any TrustPolicy, identity: ClientIdentity? = nil) throws -> NIOHTTP1Transport {
    try NIOHTTP1Transport(
        configuration: .init(
            trust: ServerTrust(default: policy),
            clientIdentity: identity,
            connectTimeout: TestTime.hangGuardAmount,
            timeout: TestTime.hangGuardAmount
        )
    )
}

/// Sends GET /basic/ with alice's Basic credential up front, as a pinned client would.
func getBasic(_ base: String, over transport: NIOHTTP1Transport) async throws -> (HTTPResponse, [UInt8]) {
    var request = try HTTPRequest(method: .get, absoluteURL: base + "/basic/")
    request.headerFields[.authorization] = try BasicCredentials(user: "alice", password: "wonderland").authorization
    return try await transport.send(request, body: nil)
}

func rejection(_ body: () async throws -> Void) async -> TrustRejection? {
    do {
        try await body()
        return nil
    } catch let error as TrustRejection {
        return error
    } catch {
        Issue.record("expected a TrustRejection, got \(error)")
        return nil
    }
}

@Suite(.timeLimit(.minutes(5))) struct TLSTrustTests {
    let alice = #"{"authenticated": true, "user": "alice"}"#

    @Test func rightPinConnects() async throws {
        let pki = try TestPKI()
        let leaf = try pki.issue()
        let backup = SPKIPin(certificate: try pki.issue().certificate)
        let arrivals = Arrivals()
        try await withTLSSandbox(serving: leaf, pki: pki, arrivals: arrivals) { sandbox in
            let roots = TrustRoots.certificates([pki.ca.certificate])
            // A pin on the leaf's key, and one on the CA's key (any certificate of the chain).
            for pins in [[leaf.pin, backup], [pki.ca.pin, backup]] {
                let (response, body) = try await getBasic(
                    sandbox.baseURL,
                    over: try transport(PublicKeyPinningPolicy(pins: pins, roots: roots))
                )
                #expect(response.status == .ok)
                #expect(String(decoding: body, as: UTF8.self) == alice)
            }
            #expect(arrivals.requests.count == 2)
        }
    }

    @Test func wrongPinFailsBeforeAnyByteIsWritten() async throws {
        let pki = try TestPKI()
        let leaf = try pki.issue()
        let arrivals = Arrivals()
        try await withTLSSandbox(serving: leaf, pki: pki, arrivals: arrivals) { sandbox in
            let pins = [
                SPKIPin(certificate: try pki.issue().certificate), SPKIPin(certificate: try pki.issue().certificate),
            ]
            let pinned = try transport(PublicKeyPinningPolicy(pins: pins, roots: .certificates([pki.ca.certificate])))
            // Through the authenticating client too, with Basic sent preemptively.
            let store = InMemoryCredentialStore()
            await store.add(Credential(user: "alice", password: "wonderland"), for: try AuthScope(url: sandbox.baseURL))
            var configuration = AuthenticatingClient.Configuration()
            configuration.preemptive = true
            let client = AuthenticatingClient(transport: pinned, credentials: store, configuration: configuration)
            let refused = await rejection {
                _ = try await client.send(
                    try HTTPRequest(method: .get, absoluteURL: sandbox.baseURL + "/basic/"),
                    body: nil
                )
            }
            #expect(refused?.code == .pinMismatch)
            #expect(refused?.host == "127.0.0.1")
            // The keys the server presented, leaf first: what an operator compares with the pins.
            #expect(refused?.seenPins == [leaf.pin, pki.ca.pin])
            #expect(refused?.description.contains(leaf.pin.description) == true)
            // The server's side: no request arrived, so no Authorization either.
            #expect(arrivals.requests.isEmpty)
            // The same server with a correct pin: it did arrive, with the credential.
            let right = try transport(
                PublicKeyPinningPolicy(pins: [leaf.pin] + pins, roots: .certificates([pki.ca.certificate]))
            )
            _ = try await AuthenticatingClient(transport: right, credentials: store, configuration: configuration)
                .send(try HTTPRequest(method: .get, absoluteURL: sandbox.baseURL + "/basic/"), body: nil)
            #expect(arrivals.requests.count == 1)
            #expect(arrivals.requests.first?.headerFields[.authorization]?.hasPrefix("Basic ") == true)
        }
    }

    @Test func anotherCertificateForTheSameHostFailsThePin() async throws {
        // A certificate a trusted CA issued for the same names, with another key: what a
        // mis-issuing or compromised CA (or a proxy whose CA is trusted) presents.
        let pki = try TestPKI()
        let genuine = try pki.issue()
        let impostor = try pki.issue()
        let arrivals = Arrivals()
        try await withTLSSandbox(serving: impostor, pki: pki, arrivals: arrivals) { sandbox in
            let roots = TrustRoots.certificates([pki.ca.certificate])
            // The CA alone is fooled …
            let (response, _) = try await getBasic(
                sandbox.baseURL,
                over: try transport(DefaultTrustPolicy(roots: roots))
            )
            #expect(response.status == .ok)
            // … the pins are not, nor is a pinned certificate.
            let backup = SPKIPin(certificate: try pki.issue().certificate)
            let refused = await rejection {
                _ = try await getBasic(
                    sandbox.baseURL,
                    over: try transport(PublicKeyPinningPolicy(pins: [genuine.pin, backup], roots: roots))
                )
            }
            #expect(refused?.code == .pinMismatch)
            #expect(refused?.seenPins.first == impostor.pin)
            let mismatch = await rejection {
                _ = try await getBasic(
                    sandbox.baseURL,
                    over: try transport(CertificatePinningPolicy(certificates: [genuine.certificate]))
                )
            }
            #expect(mismatch?.code == .certificateMismatch)
            #expect(arrivals.requests.count == 1)
        }
    }

    @Test func pinnedSelfSignedCertificateConnects() async throws {
        let material = try SandboxTLS.selfSigned()
        var configuration = SandboxConfiguration.demo()
        configuration.tls = material
        let certificate = try Certificate(pemEncoded: material.certificateChainPEM)
        try await Sandbox.withSandbox(configuration) { sandbox in
            let (response, _) = try await getBasic(
                sandbox.baseURL,
                over: try transport(CertificatePinningPolicy(certificates: [certificate]))
            )
            #expect(response.status == .ok)
            // Given as the CA bundle, curl-style, it is a trust anchor for itself.
            let (viaBundle, _) = try await getBasic(
                sandbox.baseURL,
                over: try transport(DefaultTrustPolicy(roots: try .pemBundle(material.certificateChainPEM)))
            )
            #expect(viaBundle.status == .ok)
            // The system's roots do not know it.
            let refused = await rejection { _ = try await getBasic(sandbox.baseURL, over: try transport(.system)) }
            #expect(refused?.code == .untrustedChain)
        }
    }

    @Test func expiredAndWrongHostCertificatesFailTheDefaultPolicy() async throws {
        let pki = try TestPKI()
        let roots = TrustRoots.certificates([pki.ca.certificate])
        let expired = try pki.issue(
            notBefore: Date().addingTimeInterval(-7200),
            notAfter: Date().addingTimeInterval(-3600)
        )
        let otherHost = try pki.issue("example.com", dnsNames: ["example.com"], ipv4: [[127, 0, 0, 2]])
        for (leaf, expectation) in [(expired, "expired"), (otherHost, "example.com")] {
            let arrivals = Arrivals()
            try await withTLSSandbox(serving: leaf, pki: pki, arrivals: arrivals) { sandbox in
                let refused = await rejection {
                    _ = try await getBasic(sandbox.baseURL, over: try transport(DefaultTrustPolicy(roots: roots)))
                }
                #expect(refused?.code == .untrustedChain, "\(expectation)")
                #expect(arrivals.requests.isEmpty)
                // Only the loudly named policy takes it.
                let (response, _) = try await getBasic(sandbox.baseURL, over: try transport(.insecureAcceptAnything))
                #expect(response.status == .ok)
            }
        }
    }

    @Test func mutualTLS() async throws {
        let pki = try TestPKI()
        let clients = try TestPKI(name: "RemoteAuth Test Client CA")
        let leaf = try pki.issue()
        let clientCertificate = try clients.issue("alice", dnsNames: [], ipv4: [], client: true)
        let stranger = try TestPKI(name: "Another CA").issue("mallory", dnsNames: [], ipv4: [], client: true)
        let arrivals = Arrivals()
        try await withTLSSandbox(serving: leaf, pki: pki, clientCA: clients.ca.pem, arrivals: arrivals) { sandbox in
            let roots = TrustRoots.certificates([pki.ca.certificate])
            let identity = ClientIdentity(
                certificateChainPEM: clientCertificate.pem,
                privateKeyPEM: clientCertificate.keyPEM
            )
            let (response, body) = try await getBasic(
                sandbox.baseURL,
                over: try transport(DefaultTrustPolicy(roots: roots), identity: identity)
            )
            #expect(response.status == .ok)
            #expect(String(decoding: body, as: UTF8.self) == alice)
            #expect(arrivals.requests.count == 1)
            for identity in [
                nil, ClientIdentity(certificateChainPEM: stranger.pem, privateKeyPEM: stranger.keyPEM),
            ] {
                let error = await #expect(throws: TransportError.self) {
                    _ = try await getBasic(
                        sandbox.baseURL,
                        over: try transport(DefaultTrustPolicy(roots: roots), identity: identity)
                    )
                }
                #expect(error?.code == .tlsHandshakeFailed, "\(String(describing: error))")
            }
            #expect(arrivals.requests.count == 1)
        }
        #expect(!ClientIdentity(certificateChainPEM: "c", privateKeyPEM: "SECRET-KEY").description.contains("SECRET"))
        #expect(throws: TrustError.self) {
            _ = try transport(
                .system,
                identity: ClientIdentity(certificateChainPEM: leaf.pem, privateKeyPEM: "not a key")
            )
        }
    }

    @Test func perHostPolicies() async throws {
        let pki = try TestPKI()
        try await withTLSSandbox(serving: try pki.issue(), pki: pki) { sandbox in
            var trust = ServerTrust(default: .system)
            trust.setPolicy(DefaultTrustPolicy(roots: .certificates([pki.ca.certificate])), for: "127.0.0.1")
            let configured = try NIOHTTP1Transport(
                configuration: .init(trust: trust, connectTimeout: TestTime.hangGuardAmount, timeout: TestTime.hangGuardAmount)
            )
            let (response, _) = try await getBasic(sandbox.baseURL, over: configured)
            #expect(response.status == .ok)
            // localhost is another host to the policy map: the system's roots apply there.
            let refused = await rejection {
                _ = try await getBasic("https://localhost:\(sandbox.port)", over: configured)
            }
            #expect(refused?.code == .untrustedChain)
            #expect(refused?.host == "localhost")
        }
    }

    @Test func urlSessionFailsClosed() throws {
        let pins = [
            try SPKIPin(sha256: Array(repeating: 1, count: 32)), try SPKIPin(sha256: Array(repeating: 2, count: 32)),
        ]
        for policy: any TrustPolicy in [
            try PublicKeyPinningPolicy(pins: pins),
            DefaultTrustPolicy(roots: .certificates([try TestPKI().ca.certificate])),
            InsecureAcceptAnythingPolicy(),
        ] {
            #expect(throws: TrustError(.unsupportedByTransport, "")) {
                _ = try URLSessionTransport(trust: ServerTrust(default: policy))
            }
        }
        #expect(throws: TrustError(.unsupportedByTransport, "")) {
            _ = try URLSessionTransport(
                trust: ServerTrust(),
                clientIdentity: ClientIdentity(pkcs12: [], passphrase: nil)
            )
        }
        _ = try URLSessionTransport(trust: ServerTrust())
    }

    @Test func plainHTTPStillWorks() async throws {
        try await Sandbox.withSandbox { sandbox in
            let (response, body) = try await getBasic(sandbox.baseURL, over: try transport(.system))
            #expect(response.status == .ok)
            #expect(String(decoding: body, as: UTF8.self) == alice)
            // A POST with a body, and a Digest exchange through the authenticating client.
            let store = InMemoryCredentialStore()
            await store.add(Credential(user: "alice", password: "wonderland"), for: try AuthScope(url: sandbox.baseURL))
            let client = AuthenticatingClient(transport: try transport(.system), credentials: store)
            var request = try HTTPRequest(method: .post, absoluteURL: sandbox.baseURL + "/digest/SHA-256/auth-int/")
            request.headerFields[.contentType] = "text/plain"
            let (digest, digestBody) = try await client.send(request, body: Array("a body".utf8))
            #expect(digest.status == .ok)
            #expect(String(decoding: digestBody, as: UTF8.self) == alice)
        }
    }
}

/// What AsyncHTTPClient can carry out of a trust policy, and what it refuses.
@Suite(.timeLimit(.minutes(5))) struct AsyncHTTPClientTrustTests {
    func get(_ url: String, _ configuration: HTTPClient.Configuration) async throws -> HTTPResponse.Status {
        var configuration = configuration
        // A refused handshake fails at once (not retried until the connect timeout), so the
        // connect timeout is only a hang guard: a handshake can take many seconds on a loaded
        // machine or under ThreadSanitizer.
        configuration.connectionPool.retryConnectionEstablishment = false
        configuration.timeout.connect = TestTime.hangGuardAmount
        return try await AsyncHTTPClientTransport.withTransport(configuration: configuration) { transport in
            var request = try HTTPRequest(method: .get, absoluteURL: url + "/basic/")
            request.headerFields[.authorization] = try BasicCredentials(user: "alice", password: "wonderland")
                .authorization
            return try await transport.send(request, body: nil).0.status
        }
    }

    @Test func caBundleAndClientIdentity() async throws {
        let pki = try TestPKI()
        let clients = try TestPKI(name: "Clients")
        let leaf = try pki.issue()
        let client = try clients.issue("alice", dnsNames: [], ipv4: [], client: true)
        let identity = ClientIdentity(certificateChainPEM: client.pem, privateKeyPEM: client.keyPEM)
        try await withTLSSandbox(serving: leaf, pki: pki, clientCA: clients.ca.pem) { sandbox in
            let viaCA = try AsyncHTTPClientTransport.configuration(
                trust: ServerTrust(default: DefaultTrustPolicy(roots: .certificates([pki.ca.certificate]))),
                clientIdentity: identity
            )
            #expect(try await get(sandbox.baseURL, viaCA) == .ok)
            // Another CA: refused by BoringSSL.
            let other = try AsyncHTTPClientTransport.configuration(
                trust: ServerTrust(default: DefaultTrustPolicy(roots: .certificates([try TestPKI().ca.certificate]))),
                clientIdentity: identity
            )
            let error = await #expect(throws: TransportError.self) { _ = try await get(sandbox.baseURL, other) }
            #expect(error?.code == .tlsHandshakeFailed, "\(String(describing: error))")
        }
    }

    @Test func refusesWhatItCannotEnforce() throws {
        let pins = [
            try SPKIPin(sha256: Array(repeating: 1, count: 32)), try SPKIPin(sha256: Array(repeating: 2, count: 32)),
        ]
        #expect(throws: TrustError(.unsupportedByTransport, "")) {
            _ = try AsyncHTTPClientTransport.configuration(
                trust: ServerTrust(default: try PublicKeyPinningPolicy(pins: pins))
            )
        }
        #expect(throws: TrustError(.unsupportedByTransport, "")) {
            _ = try AsyncHTTPClientTransport.configuration(
                trust: ServerTrust(default: try CertificatePinningPolicy(certificates: [try TestPKI().ca.certificate]))
            )
        }
        var perHost = ServerTrust()
        perHost.setPolicy(InsecureAcceptAnythingPolicy(), for: "localhost")
        #expect(throws: TrustError(.unsupportedByTransport, "")) {
            _ = try AsyncHTTPClientTransport.configuration(trust: perHost)
        }
    }
}
