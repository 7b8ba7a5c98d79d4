import Crypto
import Foundation
import HTTPTypes
import NIOSSL
import RemoteAuth
import RemoteAuthSandbox
import Testing

/// Basic, Digest, redirects and TLS on the sandbox, over real sockets.
@Suite(.timeLimit(.minutes(5))) struct SandboxHTTPAuthTests {
    @Test func basic() async throws {
        try await Sandbox.withSandbox { sandbox in
            let url = sandbox.baseURL + "/basic/"
            let challenge = try await Wire.get(url)
            #expect(challenge.status == 401)
            #expect(challenge.header("WWW-Authenticate") == "Basic realm=\"RemoteAuth Sandbox\", charset=\"UTF-8\"")
            let ok = try await Wire.get(
                url,
                headers: [.authorization: try BasicCredentials(user: "alice", password: "wonderland").authorization]
            )
            #expect(ok.status == 200)
            #expect(ok.body == "{\"authenticated\": true, \"user\": \"alice\"}")
            let wrong = try await Wire.get(
                url,
                headers: [.authorization: try BasicCredentials(user: "alice", password: "x").authorization]
            )
            #expect(wrong.status == 401)
        }
    }

    /// Every algorithm and qop: challenge, answer with RemoteAuth's Digest client, 200 with an
    /// `Authentication-Info` whose `rspauth` the client verifies.
    @Test(
        arguments: ["MD5", "MD5-sess", "SHA-256", "SHA-256-sess", "SHA-512-256", "SHA-512-256-sess"],
        ["auth", "auth-int"]
    )
    func digest(algorithm: String, qop: String) async throws {
        try await Sandbox.withSandbox { sandbox in
            let path = "/digest/\(algorithm)/\(qop)/"
            let first = try await Wire.get(sandbox.baseURL + path)
            #expect(first.status == 401)
            let challenge = try DigestChallenge(headerValue: try #require(first.header("WWW-Authenticate")))
            #expect(challenge.algorithm?.rawValue == algorithm)
            #expect(challenge.qop.map(\.rawValue) == [qop])
            let credentials = DigestCredentials(username: "alice", password: "wonderland")
            for count in UInt32(1)...3 {
                let answer = try DigestResponse(
                    challenge: challenge,
                    credentials: credentials,
                    method: .get,
                    uri: path,
                    body: [],
                    nonceCount: count,
                    cnonce: OAuth1.Nonce.random(),
                    qop: DigestQOP(rawValue: qop)
                )
                let response = try await Wire.get(
                    sandbox.baseURL + path,
                    headers: [.authorization: answer.authorization]
                )
                #expect(response.status == 200, "\(algorithm) \(qop) nc=\(count)")
                #expect(response.body == "{\"authenticated\": true, \"user\": \"alice\"}")
                let info = try DigestAuthenticationInfo(
                    headerValue: try #require(response.header("Authentication-Info"))
                )
                #expect(answer.isValid(info, credentials: credentials, responseBody: Array(response.body.utf8)))
            }
            // The wrong password, and a replayed nonce count, get a fresh challenge.
            let wrong = try DigestResponse(
                challenge: challenge,
                credentials: DigestCredentials(username: "alice", password: "nope"),
                method: .get,
                uri: path,
                body: [],
                nonceCount: 4,
                cnonce: "c",
                qop: DigestQOP(rawValue: qop)
            )
            #expect(
                try await Wire.get(sandbox.baseURL + path, headers: [.authorization: wrong.authorization]).status == 401
            )
            let replay = try DigestResponse(
                challenge: challenge,
                credentials: credentials,
                method: .get,
                uri: path,
                body: [],
                nonceCount: 2,
                cnonce: "c",
                qop: DigestQOP(rawValue: qop)
            )
            #expect(
                try await Wire.get(sandbox.baseURL + path, headers: [.authorization: replay.authorization]).status
                    == 401
            )
        }
    }

    /// An expired nonce is answered `stale=true` with a new nonce, which then works; a nonce
    /// past half its life brings a `nextnonce`.
    @Test func staleNonceAndNextnonce() async throws {
        let clock = TestClock()
        var configuration = SandboxConfiguration.demo()
        configuration.digestNonceLifetime = 60
        configuration.now = { clock.now() }
        try await Sandbox.withSandbox(configuration) { sandbox in
            let path = "/digest/SHA-256/auth/"
            let credentials = DigestCredentials(username: "alice", password: "wonderland")
            let first = try await Wire.get(sandbox.baseURL + path)
            let challenge = try DigestChallenge(headerValue: try #require(first.header("WWW-Authenticate")))
            #expect(!challenge.stale)

            clock.advance(by: 40)
            let answer = try DigestResponse(
                challenge: challenge,
                credentials: credentials,
                method: .get,
                uri: path,
                cnonce: "a"
            )
            let aging = try await Wire.get(sandbox.baseURL + path, headers: [.authorization: answer.authorization])
            #expect(aging.status == 200)
            let info = try DigestAuthenticationInfo(headerValue: try #require(aging.header("Authentication-Info")))
            #expect(info.nextnonce != nil && info.nextnonce != challenge.nonce)

            clock.advance(by: 30)
            let late = try DigestResponse(
                challenge: challenge,
                credentials: credentials,
                method: .get,
                uri: path,
                nonceCount: 2,
                cnonce: "b"
            )
            let stale = try await Wire.get(sandbox.baseURL + path, headers: [.authorization: late.authorization])
            #expect(stale.status == 401)
            let renewed = try DigestChallenge(headerValue: try #require(stale.header("WWW-Authenticate")))
            #expect(renewed.stale)
            #expect(renewed.nonce != challenge.nonce)
            let retry = try DigestResponse(
                challenge: renewed,
                credentials: credentials,
                method: .get,
                uri: path,
                cnonce: "c"
            )
            #expect(
                try await Wire.get(sandbox.baseURL + path, headers: [.authorization: retry.authorization]).status == 200
            )

            // A stale nonce with a wrong password is not called stale.
            clock.advance(by: 120)
            let wrong = try DigestResponse(
                challenge: renewed,
                credentials: DigestCredentials(username: "alice", password: "x"),
                method: .get,
                uri: path,
                nonceCount: 2,
                cnonce: "d"
            )
            let refused = try await Wire.get(sandbox.baseURL + path, headers: [.authorization: wrong.authorization])
            #expect(try DigestChallenge(headerValue: try #require(refused.header("WWW-Authenticate"))).stale == false)
        }
    }

    /// A wrong answer with a huge `nc` does not burn the nonce for the right user, and a nonce
    /// is good only on the route (protection space) that issued it.
    @Test func forgedAnswersDoNotBurnNonces() async throws {
        try await Sandbox.withSandbox { sandbox in
            let path = "/digest/SHA-256/auth/"
            let first = try await Wire.get(sandbox.baseURL + path)
            let challenge = try DigestChallenge(headerValue: try #require(first.header("WWW-Authenticate")))
            let forged = try DigestResponse(
                challenge: challenge,
                credentials: DigestCredentials(username: "alice", password: "guess"),
                method: .get,
                uri: path,
                nonceCount: 0xFFFF_FFFF,
                cnonce: "x"
            )
            let refused = try await Wire.get(sandbox.baseURL + path, headers: [.authorization: forged.authorization])
            #expect(refused.status == 401)
            let right = try DigestResponse(
                challenge: challenge,
                credentials: DigestCredentials(username: "alice", password: "wonderland"),
                method: .get,
                uri: path,
                nonceCount: 1,
                cnonce: "y"
            )
            let accepted = try await Wire.get(sandbox.baseURL + path, headers: [.authorization: right.authorization])
            #expect(accepted.status == 200)

            // The same nonce on the MD5 route: unknown there.
            let md5Challenge = try DigestChallenge(
                realm: challenge.realm,
                nonce: challenge.nonce,
                opaque: challenge.opaque,
                algorithm: .md5,
                qop: [.auth]
            )
            let crossed = try DigestResponse(
                challenge: md5Challenge,
                credentials: DigestCredentials(username: "alice", password: "wonderland"),
                method: .get,
                uri: "/digest/MD5/auth/",
                nonceCount: 2,
                cnonce: "z"
            )
            let other = try await Wire.get(
                sandbox.baseURL + "/digest/MD5/auth/",
                headers: [.authorization: crossed.authorization]
            )
            #expect(other.status == 401)
        }
    }

    @Test func unknownDigestRoute() async throws {
        try await Sandbox.withSandbox { sandbox in
            let sha1 = try await Wire.get(sandbox.baseURL + "/digest/SHA-1/auth/")
            #expect(sha1.status == 404)
            let none = try await Wire.get(sandbox.baseURL + "/digest/MD5/none/")
            #expect(none.status == 404)
        }
    }

    @Test func redirect() async throws {
        try await Sandbox.withSandbox { sandbox in
            let response = try await Wire.get(
                sandbox.baseURL + "/redirect?to=http%3A%2F%2F127.0.0.2%3A9%2Fx&status=307"
            )
            #expect(response.status == 307)
            #expect(response.header("Location") == "http://127.0.0.2:9/x")
        }
    }

    /// HTTPS with a certificate made at start: a client that trusts it connects; one that does
    /// not (the system roots) is refused; the printed pin is the SPKI SHA-256.
    @Test func tls() async throws {
        var configuration = SandboxConfiguration.demo()
        let material = try SandboxTLS.selfSigned()
        configuration.tls = material
        let pin = try SandboxTLS.spkiSHA256(certificateChainPEM: material.certificateChainPEM)
        // Independently: swift-crypto's SubjectPublicKeyInfo DER of the same key, hashed.
        let spki = try P256.Signing.PrivateKey(pemRepresentation: material.privateKeyPEM).publicKey.derRepresentation
        #expect(pin == Data(SHA256.hash(data: spki)).base64EncodedString())
        try await Sandbox.withSandbox(configuration) { sandbox in
            #expect(sandbox.baseURL.hasPrefix("https://127.0.0.1:"))
            var trusting = TLSConfiguration.makeClientConfiguration()
            trusting.trustRoots = .certificates(
                try NIOSSLCertificate.fromPEMBytes(Array(material.certificateChainPEM.utf8))
            )
            let request = try HTTPRequest(
                method: .get,
                absoluteURL: sandbox.baseURL + "/basic/",
                headerFields: [
                    .authorization: try BasicCredentials(user: "alice", password: "wonderland").authorization
                ]
            )
            let ok = try await Wire.send(request, tls: trusting)
            #expect(ok.status == 200)
            // The system roots do not hold the sandbox's self-signed certificate: the handshake
            // fails on the certificate, not on anything else.
            let refused = await #expect(throws: NIOSSLError.self) {
                _ = try await Wire.send(request, tls: TLSConfiguration.makeClientConfiguration())
            }
            #expect(
                refused.map { "\($0)" }?.contains("CERTIFICATE_VERIFY_FAILED") == true,
                "\(String(describing: refused))"
            )
        }
    }
}
