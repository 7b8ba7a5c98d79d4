import HTTPTypes
import RemoteAuth
import RemoteAuthSandbox
import Testing

/// The same client logic over both transports: AsyncHTTPClient and URLSession
/// (FoundationNetworking here), against the sandbox over real sockets.
@Suite(.timeLimit(.minutes(5))) struct ClientTransportParityTests {
    @Test(arguments: TransportKind.allCases)
    func basicChallengeAndPreemptive(over kind: TransportKind) async throws {
        try await Sandbox.withSandbox { sandbox in
            try await withClient(credentialFor: [sandbox.baseURL], over: kind) { (client, recording) async throws in
                let result = try await client.getText(sandbox.baseURL + "/basic/")
                #expect(result.status == 200)
                #expect(result.body == aliceJSON)
                #expect(recording.hops.map(\.status) == [401, 200])
            }
            try await withClient(credentialFor: [sandbox.baseURL], preemptive: true, over: kind) {
                (client, _) async throws in
                #expect(try await client.status(sandbox.baseURL + "/basic/") == 200)
                #expect(await client.roundTrips == 1)
            }
        }
    }

    /// Ten Digest requests cost eleven round trips on either transport, auth-int included.
    @Test(arguments: TransportKind.allCases, ["SHA-256/auth", "MD5-sess/auth-int"])
    func digestReusesTheNonce(over kind: TransportKind, space: String) async throws {
        try await Sandbox.withSandbox { sandbox in
            try await withClient(credentialFor: [sandbox.baseURL], over: kind) { (client, _) async throws in
                for _ in 0..<10 {
                    #expect(try await client.status(sandbox.baseURL + "/digest/\(space)/") == 200)
                }
                #expect(await client.roundTrips == 11)
            }
        }
    }

    @Test(arguments: TransportKind.allCases)
    func wrongPasswordAndForeignRedirect(over kind: TransportKind) async throws {
        try await Sandbox.withSandbox { sandbox in
            try await Sandbox.withSandbox { other in
                try await withClient(credentialFor: [sandbox.baseURL], over: kind) { (client, recording) async throws in
                    // A redirect to another port: followed by the client, no credential sent there.
                    let result = try await client.getText(redirect(sandbox.baseURL, to: other.baseURL + "/basic/"))
                    #expect(result.status == 401)
                    #expect(recording.hops.count == 2)
                    #expect(!recording.hops[1].hasAuthorization)
                }
                try await withClient(
                    credentialFor: [sandbox.baseURL],
                    credential: Credential(user: "alice", password: "x"),
                    over: kind
                ) { (client, _) async throws in
                    let error = await #expect(throws: ClientError.self) {
                        try await client.getText(sandbox.baseURL + "/basic/")
                    }
                    #expect(error?.code == .authenticationFailed)
                    #expect(await client.roundTrips == 2)
                }
            }
        }
    }
}
