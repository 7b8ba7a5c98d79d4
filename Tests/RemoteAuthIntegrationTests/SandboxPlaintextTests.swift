import HTTPTypes
import NIOCore
import RemoteAuth
import Testing

@testable import RemoteAuthSandbox

/// PLAINTEXT's signature is the client's secrets themselves, so the sandbox takes it only where
/// nobody else can read the request: over `https`, or over plain `http` from this machine
/// ([RFC 5849 §3.4.4](https://www.rfc-editor.org/rfc/rfc5849#section-3.4.4)). Over loopback,
/// `SandboxOAuthTests.placementsAndMethods` signs with PLAINTEXT end to end.
@Suite("Sandbox: PLAINTEXT only over https or from this machine")
struct SandboxPlaintextTests {
    static func signed(_ method: OAuth1.SignatureMethod, scheme: String) throws -> HTTPRequest {
        let signer = try OAuth1.Signer(
            client: .init(key: "demo-consumer", secret: "demo-consumer-secret"),
            signatureMethod: method
        )
        let request = try HTTPRequest(method: .post, absoluteURL: scheme + "://sandbox.example:8080/oauth/request_token")
        let timestamp = String(SandboxConfiguration.demo().now())
        return try signer.sign(request, options: .init(callback: "oob"), nonce: OAuth1.Nonce.random(), timestamp: timestamp)
            .request
    }

    static func verifier(scheme: String) -> OAuth1Verifier {
        let configuration = SandboxConfiguration.demo()
        return OAuth1Verifier(
            configuration: configuration,
            store: SandboxStore(stateFile: nil, seededTokens: configuration.seededTokens),
            scheme: scheme
        )
    }

    @Test("PLAINTEXT over http from another machine: 400 signature_method_rejected, naming RFC 5849 §3.4.4")
    func plaintextFromAnotherMachineRefused() async throws {
        let request = try Self.signed(.plaintext, scheme: "http")
        do {
            _ = try await Self.verifier(scheme: "http").verify(request, body: [], token: .none, peerIsLocal: false)
            Issue.record("PLAINTEXT over http from a remote peer was accepted")
        } catch {
            #expect(error.status == .badRequest)
            #expect(error.problem == .signatureMethodRejected)
            #expect(
                error.advice
                    == "PLAINTEXT sends the client's secrets in the clear: use https, or sign with HMAC-SHA1 (RFC 5849 §3.4.4)"
            )
        }
    }

    @Test(
        "PLAINTEXT from this machine, or over https; HMAC-SHA1 from anywhere: accepted",
        arguments: [
            (OAuth1.SignatureMethod.plaintext, "http", true), (.plaintext, "https", false),
            (.hmacSHA1, "http", false), (.hmacSHA256, "http", false),
        ]
    )
    func accepted(method: OAuth1.SignatureMethod, scheme: String, peerIsLocal: Bool) async throws {
        let request = try Self.signed(method, scheme: scheme)
        // Only PLAINTEXT asks where the request came from: other requests do not format the
        // peer's address.
        func peer() -> Bool {
            if method != .plaintext { Issue.record("a \(method) request asked whether its peer is local") }
            return peerIsLocal
        }
        let verified = try await Self.verifier(scheme: scheme)
            .verify(request, body: [], token: .none, peerIsLocal: peer())
        #expect(verified.consumer.key == "demo-consumer")
        #expect(verified.received.signatureMethod == method)
    }

    @Test("local peers: loopback (IPv4, IPv6, IPv4-mapped) and Unix sockets; every other address is remote")
    func localAddresses() throws {
        let local = ["127.0.0.1", "127.8.9.10", "::1", "::ffff:127.0.0.1"]
        let remote = ["192.0.2.2", "10.127.0.1", "0.0.0.0", "fd00::2", "::", "::ffff:192.0.2.1", "::2"]
        for address in local {
            #expect(try SocketAddress(ipAddress: address, port: 80).isLocal, "\(address)")
        }
        for address in remote {
            #expect(try !SocketAddress(ipAddress: address, port: 80).isLocal, "\(address)")
        }
        #expect(try SocketAddress(unixDomainSocketPath: "/tmp/sandbox.sock").isLocal)
    }
}
