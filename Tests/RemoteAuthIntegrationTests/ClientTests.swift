import AsyncHTTPClient
import HTTPTypes
import NIOSSL
import RemoteAuth
import RemoteAuthAsyncHTTPClient
import RemoteAuthSandbox
import Testing

/// AuthenticatingClient over AsyncHTTPClientTransport against the sandbox, over real sockets.
@Suite(.timeLimit(.minutes(5))) struct ClientBasicTests {
    /// Challenge mode: every request pays the 401 (10 requests, 20 round trips).
    @Test(arguments: TransportKind.allCases) func challengeMode(over kind: TransportKind) async throws {
        try await Sandbox.withSandbox { sandbox in
            try await withClient(credentialFor: [sandbox.baseURL], over: kind) { (client, recording) async throws in
                for _ in 0..<10 {
                    let result = try await client.getText(sandbox.baseURL + "/basic/")
                    #expect(result.status == 200)
                    #expect(result.body == aliceJSON)
                }
                #expect(await client.roundTrips == 20)
                #expect(recording.hops.map(\.status) == Array(repeating: [401, 200], count: 10).flatMap { $0 })
                #expect(!recording.hops[0].hasAuthorization)
            }
        }
    }

    /// Preemptive mode, per client and per request: 10 requests, 10 round trips.
    @Test(arguments: TransportKind.allCases) func preemptive(over kind: TransportKind) async throws {
        try await Sandbox.withSandbox { sandbox in
            try await withClient(credentialFor: [sandbox.baseURL], preemptive: true, over: kind) {
                (client, recording) async throws in
                for _ in 0..<10 { #expect(try await client.status(sandbox.baseURL + "/basic/") == 200) }
                #expect(await client.roundTrips == 10)
                #expect(recording.hops.allSatisfy { $0.status == 200 && $0.authorization?.hasPrefix("Basic ") == true })
            }
            try await withClient(credentialFor: [sandbox.baseURL], over: kind) { (client, _) async throws in
                #expect(try await client.status(sandbox.baseURL + "/basic/", preemptive: true) == 200)
                #expect(await client.roundTrips == 1)
                #expect(try await client.status(sandbox.baseURL + "/basic/") == 200)
                #expect(await client.roundTrips == 3)
            }
        }
    }

    /// A wrong password is answered once, then the typed error carries the challenge.
    @Test(arguments: TransportKind.allCases) func wrongPasswordStopsAfterOneRetry(over kind: TransportKind) async throws
    {
        try await Sandbox.withSandbox { sandbox in
            let wrong = Credential(user: "alice", password: "looking-glass")
            try await withClient(credentialFor: [sandbox.baseURL], credential: wrong, over: kind) {
                (client, _) async throws in
                let error = await #expect(throws: ClientError.self) {
                    try await client.getText(sandbox.baseURL + "/basic/")
                }
                #expect(error?.code == .authenticationFailed)
                #expect(error?.challenge?.hasScheme("Basic") == true)
                #expect(error?.challenge?.parameter("realm") == "RemoteAuth Sandbox")
                #expect(error?.response?.status == .unauthorized)
                #expect(error.map { !"\($0)".contains("looking-glass") } ?? false)
                #expect(await client.roundTrips == 2)
            }
            // Preemptive: the credential already sent is not sent again.
            try await withClient(credentialFor: [sandbox.baseURL], credential: wrong, preemptive: true, over: kind) {
                (client, _) async throws in
                let error = await #expect(throws: ClientError.self) {
                    try await client.getText(sandbox.baseURL + "/basic/")
                }
                #expect(error?.code == .authenticationFailed)
                #expect(await client.roundTrips == 1)
            }
        }
    }

    /// No credential for the origin (or only for another port): the 401 comes back as is.
    @Test(arguments: TransportKind.allCases) func noCredentialReturnsTheChallenge(over kind: TransportKind) async throws
    {
        try await Sandbox.withSandbox { sandbox in
            let otherPort = "http://127.0.0.1:\(sandbox.port == 65535 ? 1 : sandbox.port + 1)"
            try await withClient(
                credentialFor: [otherPort, "http://localhost:\(sandbox.port)"],
                preemptive: true,
                over: kind
            ) {
                (client, recording) async throws in
                #expect(try await client.status(sandbox.baseURL + "/basic/") == 401)
                #expect(await client.roundTrips == 1)
                #expect(!recording.hops[0].hasAuthorization)
            }
        }
    }

    /// A Digest-only credential is never downgraded to Basic.
    @Test(arguments: TransportKind.allCases) func digestOnlyCredentialIgnoresBasic(
        over kind: TransportKind
    ) async throws {
        try await Sandbox.withSandbox { sandbox in
            try await withClient(
                credentialFor: [sandbox.baseURL],
                credential: .digest(user: "alice", password: "wonderland"),
                preemptive: true,
                over: kind
            ) { (client, recording) async throws in
                #expect(try await client.status(sandbox.baseURL + "/basic/") == 401)
                #expect(recording.hops.count == 1)
                #expect(!recording.hops[0].hasAuthorization)
            }
        }
    }
}

@Suite(.timeLimit(.minutes(5))) struct ClientDigestTests {
    /// Each algorithm and qop: 10 requests to one protection space cost 11 round trips, the
    /// nonce is reused with nc 1…10; auth-int hashes a POST body.
    @Test(
        arguments: ["MD5", "MD5-sess", "SHA-256", "SHA-256-sess", "SHA-512-256", "SHA-512-256-sess"],
        ["auth", "auth-int"]
    )
    func tenRequestsElevenRoundTrips(algorithm: String, qop: String) async throws {
        try await Sandbox.withSandbox { sandbox in
            let url = sandbox.baseURL + "/digest/\(algorithm)/\(qop)/"
            try await withClient(credentialFor: [sandbox.baseURL]) { (client, recording) async throws in
                for index in 0..<10 {
                    var request = try HTTPRequest(method: index.isMultiple(of: 2) ? .get : .post, absoluteURL: url)
                    let body: [UInt8]? = index.isMultiple(of: 2) ? nil : Array("n=\(index)".utf8)
                    if body != nil { request.headerFields[.contentType] = "application/x-www-form-urlencoded" }
                    let (response, responseBody) = try await client.send(request, body: body)
                    #expect(response.status == .ok, "\(algorithm) \(qop) request \(index)")
                    #expect(String(decoding: responseBody, as: UTF8.self) == aliceJSON)
                }
                #expect(await client.roundTrips == 11)
                let answers = try recording.hops.compactMap(\.authorization).map {
                    try DigestAuthorization(headerValue: $0)
                }
                #expect(answers.count == 10)
                #expect(Set(answers.map(\.nonce)).count == 1)
                #expect(answers.map(\.nonceCount) == (1...10).map { UInt32($0) })
                #expect(answers.allSatisfy { $0.qop?.rawValue == qop && $0.algorithm?.rawValue == algorithm })
            }
        }
    }

    /// An expired nonce: the sandbox answers stale=true, the client retries once with the new
    /// nonce and succeeds (2 round trips), no error.
    @Test(arguments: TransportKind.allCases) func staleNonceIsRenewed(over kind: TransportKind) async throws {
        let clock = TestClock()
        var configuration = SandboxConfiguration.demo()
        configuration.now = { clock.now() }
        configuration.digestNonceLifetime = 300
        try await Sandbox.withSandbox(configuration) { sandbox in
            let url = sandbox.baseURL + "/digest/SHA-256/auth/"
            try await withClient(credentialFor: [sandbox.baseURL], over: kind) { (client, recording) async throws in
                #expect(try await client.status(url) == 200)
                #expect(await client.roundTrips == 2)
                clock.advance(by: 301)
                #expect(try await client.status(url) == 200)
                #expect(await client.roundTrips == 4)
                #expect(recording.hops.map(\.status) == [401, 200, 401, 200])
                let renewal = try DigestChallenge(
                    headerValue: try #require(recording.hops[2].response.headerFields[.wwwAuthenticate])
                )
                #expect(renewal.stale)
                let nonces = try recording.hops.compactMap(\.authorization).map {
                    try DigestAuthorization(headerValue: $0).nonce
                }
                #expect(nonces.count == 3 && nonces[0] == nonces[1] && nonces[1] != nonces[2])
                #expect(try await client.status(url) == 200)
                #expect(await client.roundTrips == 5)
            }
        }
    }

    /// A nonce past half its life gets a nextnonce in Authentication-Info; the next request
    /// uses it with nc=1 and needs one round trip.
    @Test(arguments: TransportKind.allCases) func nextnonceIsHonoured(over kind: TransportKind) async throws {
        let clock = TestClock()
        var configuration = SandboxConfiguration.demo()
        configuration.now = { clock.now() }
        configuration.digestNonceLifetime = 300
        try await Sandbox.withSandbox(configuration) { sandbox in
            let url = sandbox.baseURL + "/digest/MD5/auth/"
            try await withClient(credentialFor: [sandbox.baseURL], over: kind) { (client, recording) async throws in
                #expect(try await client.status(url) == 200)
                clock.advance(by: 151)
                let (response, _) = try await client.send(try HTTPRequest(method: .get, absoluteURL: url))
                let info = try DigestAuthenticationInfo(
                    headerValue: try #require(response.headerFields[.authenticationInfo])
                )
                let nextnonce = try #require(info.nextnonce)
                #expect(try await client.status(url) == 200)
                #expect(await client.roundTrips == 4)
                let last = try DigestAuthorization(headerValue: try #require(recording.hops.last?.authorization))
                #expect(last.nonce == nextnonce)
                #expect(last.nonceCount == 1)
            }
        }
    }

    /// A wrong password: one answer, then the typed error carrying the Digest challenge.
    @Test(arguments: TransportKind.allCases) func wrongPasswordStopsAfterOneRetry(over kind: TransportKind) async throws
    {
        try await Sandbox.withSandbox { sandbox in
            let url = sandbox.baseURL + "/digest/SHA-512-256/auth/"
            try await withClient(
                credentialFor: [sandbox.baseURL],
                credential: .digest(user: "alice", password: "nope"),
                over: kind
            ) {
                (client, _) async throws in
                let error = await #expect(throws: ClientError.self) { try await client.getText(url) }
                #expect(error?.code == .authenticationFailed)
                let challenge = try DigestChallenge(try #require(error?.challenge))
                #expect(challenge.algorithm == .sha512_256)
                #expect(await client.roundTrips == 2)
                // No state is kept for the failed space: the next try starts from a challenge.
                _ = await #expect(throws: ClientError.self) { try await client.getText(url) }
                #expect(await client.roundTrips == 4)
            }
        }
    }
}

@Suite(.timeLimit(.minutes(5))) struct ClientRedirectTests {
    /// Same origin: the credential follows the redirect.
    @Test(arguments: TransportKind.allCases) func sameOriginKeepsCredentials(over kind: TransportKind) async throws {
        try await Sandbox.withSandbox { sandbox in
            try await withClient(credentialFor: [sandbox.baseURL], preemptive: true, over: kind) {
                (client, recording) async throws in
                for status in [301, 302, 303, 307, 308] {
                    let result = try await client.getText(
                        redirect(sandbox.baseURL, to: sandbox.baseURL + "/basic/", status: status)
                    )
                    #expect(result.status == 200, "\(status)")
                }
                #expect(await client.roundTrips == 10)
                #expect(recording.hops.allSatisfy { $0.hasAuthorization })
                // A relative Location.
                #expect(try await client.status(redirect(sandbox.baseURL, to: "/basic/")) == 200)
            }
        }
    }

    /// Another port: no credential from the store and no caller-set Authorization; the
    /// target (which knows alice too) answers 401, and the client does not answer it.
    @Test(arguments: TransportKind.allCases) func anotherPortGetsNoCredential(over kind: TransportKind) async throws {
        try await Sandbox.withSandbox { a in
            try await Sandbox.withSandbox { b in
                try await withClient(credentialFor: [a.baseURL, b.baseURL], preemptive: true, over: kind) {
                    (client, recording) async throws in
                    let result = try await client.getText(redirect(a.baseURL, to: b.baseURL + "/basic/"))
                    #expect(result.status == 401)
                    #expect(recording.hops.count == 2)
                    #expect(recording.hops[0].hasAuthorization)
                    #expect(!recording.hops[1].hasAuthorization)
                    #expect(recording.hops[1].request.authority == "127.0.0.1:\(b.port)")

                    let basic = try BasicCredentials(user: "alice", password: "wonderland").authorization
                    let explicit = try await client.getText(
                        redirect(a.baseURL, to: b.baseURL + "/basic/"),
                        headers: [.authorization: basic, .cookie: "s=1"]
                    )
                    #expect(explicit.status == 401)
                    #expect(!recording.hops[3].hasAuthorization)
                    #expect(recording.hops[3].request.headerFields[.cookie] == nil)
                    // The same header straight to b works: the 401 above is the drop's doing.
                    #expect(try await client.status(b.baseURL + "/basic/", headers: [.authorization: basic]) == 200)
                }
            }
        }
    }

    /// Another host name on another address (127.0.0.2), and the same port under another name
    /// (localhost): no credential crosses.
    @Test(arguments: TransportKind.allCases) func anotherHostGetsNoCredential(over kind: TransportKind) async throws {
        let second = {
            var configuration = SandboxConfiguration.demo()
            configuration.host = "127.0.0.2"
            return configuration
        }()
        try await Sandbox.withSandbox { a in
            try await Sandbox.withSandbox(second) { b in
                #expect(b.baseURL.hasPrefix("http://127.0.0.2:"))
                try await withClient(credentialFor: [a.baseURL], preemptive: true, over: kind) {
                    (client, recording) async throws in
                    #expect(try await client.status(redirect(a.baseURL, to: b.baseURL + "/basic/")) == 401)
                    #expect(recording.hops.map(\.status) == [302, 401])
                    #expect(!recording.hops[1].hasAuthorization)
                    let sameServerOtherName = "http://localhost:\(a.port)/basic/"
                    #expect(try await client.status(redirect(a.baseURL, to: sameServerOtherName)) == 401)
                    #expect(!recording.hops[3].hasAuthorization)
                    #expect(recording.hops[3].request.authority == "localhost:\(a.port)")
                }
            }
        }
    }

    /// https → http: nothing is sent, even to an origin the store has a credential for.
    @Test func httpsToHTTPCarriesNone() async throws {
        let material = try SandboxTLS.selfSigned()
        let secure = {
            var configuration = SandboxConfiguration.demo()
            configuration.tls = material
            return configuration
        }()
        let trusting = try trustingConfiguration(material)
        try await Sandbox.withSandbox(secure) { a in
            try await Sandbox.withSandbox { b in
                try await withClient(credentialFor: [a.baseURL, b.baseURL], preemptive: true, tls: trusting) {
                    (client, recording) async throws in
                    #expect(try await client.status(a.baseURL + "/basic/") == 200)
                    #expect(try await client.status(redirect(a.baseURL, to: b.baseURL + "/basic/", status: 307)) == 401)
                    #expect(recording.hops.map(\.status) == [200, 307, 401])
                    #expect(recording.hops[1].request.scheme == "https" && recording.hops[1].hasAuthorization)
                    #expect(recording.hops[2].request.scheme == "http" && !recording.hops[2].hasAuthorization)
                }
            }
        }
    }

    /// The hop limit: a chain of three redirects with a limit of two.
    @Test(arguments: TransportKind.allCases) func hopLimit(over kind: TransportKind) async throws {
        try await Sandbox.withSandbox { sandbox in
            try await withClient(credentialFor: [], maximumRedirects: 2, over: kind) { (client, _) async throws in
                let target = sandbox.baseURL + "/basic/"
                let chain = redirect(
                    sandbox.baseURL,
                    to: redirect(sandbox.baseURL, to: redirect(sandbox.baseURL, to: target))
                )
                let error = await #expect(throws: ClientError.self) { try await client.getText(chain) }
                #expect(error?.code == .tooManyRedirects)
                #expect(await client.roundTrips == 3)
                let two = redirect(sandbox.baseURL, to: redirect(sandbox.baseURL, to: target))
                #expect(try await client.status(two) == 401)
            }
        }
    }
}

func trustingConfiguration(_ material: SandboxConfiguration.TLSMaterial) throws -> TLSConfiguration {
    var trusting = TLSConfiguration.makeClientConfiguration()
    trusting.trustRoots = .certificates(try NIOSSLCertificate.fromPEMBytes(Array(material.certificateChainPEM.utf8)))
    return trusting
}

/// AsyncHTTPClientTransport hands back every response field, in order, as AHC received it.
@Suite(.timeLimit(.minutes(5))) struct ClientTransportTests {
    @Test func responseFieldsInOrder() async throws {
        try await Sandbox.withSandbox { sandbox in
            let url = sandbox.baseURL + "/digest/SHA-256/auth/"
            try await AsyncHTTPClientTransport.withTransport { transport in
                let (response, body) = try await transport.send(
                    try HTTPRequest(method: .get, absoluteURL: url),
                    body: nil
                )
                let direct = try await Wire.get(url)
                #expect(response.status.code == direct.status)
                #expect(response.status.reasonPhrase == "Unauthorized")
                #expect(String(decoding: body, as: UTF8.self) == direct.body)
                let names = response.headerFields.map(\.name.rawName)
                #expect(names.map { $0.lowercased() } == direct.headers.map { $0.0.lowercased() })
                for (field, other) in zip(response.headerFields, direct.headers)
                where field.name != .date && field.name != .wwwAuthenticate {
                    #expect(field.value == other.1)
                }
            }
        }
    }
}
