import Foundation
import HTTPTypes
import RemoteAuth
import Testing

/// Signed protected resource metadata ([RFC 9728 §2.2](https://www.rfc-editor.org/rfc/rfc9728#section-2.2)):
/// a JWT in `signed_metadata`, verified with a key the client trusts, its claims taking
/// precedence over the plain members; every way it can fail, each a typed refusal.
@Suite struct SignedResourceMetadataTests {
    static let resource = "https://api.example/v1"
    static let now: Int64 = 1_800_000_000
    static let key = JOSE.SigningKey.generateP256(keyID: "rs-1")
    static let verification = try! JOSE.VerificationKey(jwk: key.publicJWK!)
    static let policy = OAuth2.ProtectedResourceMetadata.SignedMetadataPolicy(
        keys: [verification],
        issuers: ["https://api.example"]
    )
    static let signedClaims: [String: JSONValue] = [
        "iss": "https://api.example",
        "resource": .string(resource),
        "authorization_servers": ["https://as-signed.example"],
        "scopes_supported": ["read", "write"],
        "exp": .integer(now + 3600),
    ]

    static func document(
        _ claims: [String: JSONValue] = signedClaims,
        key: JOSE.SigningKey = key,
        signed: JSONValue? = nil
    ) throws -> OAuth2.ProtectedResourceMetadata {
        var members: [String: JSONValue] = [
            "resource": .string(resource),
            "authorization_servers": ["https://as-plain.example"],
            "scopes_supported": ["read"],
        ]
        members["signed_metadata"] = try signed ?? .string(JOSE.JWS.sign(claims: claims, with: key))
        return try OAuth2.ProtectedResourceMetadata.parse(
            status: 200,
            body: Array(try JSONEncoder().encode(JSONValue.object(members))),
            expectedResource: resource
        )
    }

    static func refusal(
        _ metadata: OAuth2.ProtectedResourceMetadata,
        policy: OAuth2.ProtectedResourceMetadata.SignedMetadataPolicy = policy
    ) -> OAuth2.Error? {
        #expect(throws: OAuth2.Error.self) {
            try metadata.verifyingSignedMetadata(policy, expectedResource: resource, now: now)
        }
    }

    @Test func signedValuesTakePrecedence() throws {
        let plain = try Self.document()
        // Without a policy the plain members are read, as §2.2 lets a client ignore the JWT.
        #expect(plain.authorizationServers == ["https://as-plain.example"])
        let verified = try plain.verifyingSignedMetadata(Self.policy, expectedResource: Self.resource, now: Self.now)
        #expect(verified.authorizationServers == ["https://as-signed.example"])
        #expect(verified.scopesSupported == ["read", "write"])
        #expect(verified.resource == Self.resource)
        // The JWT's own claims are not metadata.
        #expect(verified.members["iss"] == nil && verified.members["exp"] == nil)
        #expect(verified.members["signed_metadata"] == nil)
    }

    @Test func refusals() throws {
        let reason = { (error: OAuth2.Error?) in error?.reason ?? "" }
        let prefix = "the signed_metadata of \(Self.resource) "
        // Another key under the same kid: the signature does not verify.
        let forged = Self.refusal(try Self.document(key: .generateP256(keyID: "rs-1")))
        #expect(forged?.code == .signedMetadataRefused)
        #expect(reason(forged).hasPrefix(prefix + "does not verify: "), "\(reason(forged))")
        // An algorithm the policy does not allow.
        var rsaOnly = Self.policy
        rsaOnly.algorithms = [.rs256]
        #expect(reason(Self.refusal(try Self.document(), policy: rsaOnly)).contains("alg 'ES256' is not allowed"))
        // No iss; an iss not trusted.
        var claims = Self.signedClaims
        claims["iss"] = nil
        #expect(reason(Self.refusal(try Self.document(claims))) == prefix + "has no iss claim (RFC 9728 §2.2)")
        claims["iss"] = "https://elsewhere.example"
        #expect(
            reason(Self.refusal(try Self.document(claims)))
                == prefix + "is attested by https://elsewhere.example, not a trusted issuer (RFC 9728 §2.2)"
        )
        // Expired beyond the leeway.
        claims = Self.signedClaims
        claims["exp"] = .integer(Self.now - 61)
        #expect(reason(Self.refusal(try Self.document(claims))).hasPrefix(prefix + "does not verify: "))
        // Not a string.
        #expect(
            reason(Self.refusal(try Self.document(signed: .integer(1))))
                == prefix + "is not a string (a JWT) (RFC 9728 §2.2)"
        )
        // A signed resource about another resource: the §3.3 check applies to it.
        claims = Self.signedClaims
        claims["resource"] = "https://evil.example/"
        #expect(Self.refusal(try Self.document(claims))?.code == .resourceMismatch)
    }

    @Test func requiredOnlyWhenAsked() throws {
        let unsigned = try OAuth2.ProtectedResourceMetadata.parse(
            status: 200,
            body: Array(#"{"resource":"https://api.example/v1","authorization_servers":["https://as.example"]}"#.utf8),
            expectedResource: Self.resource
        )
        #expect(
            try unsigned.verifyingSignedMetadata(Self.policy, expectedResource: Self.resource, now: Self.now)
                == unsigned
        )
        var required = Self.policy
        required.required = true
        let refused = Self.refusal(unsigned, policy: required)
        #expect(refused?.code == .signedMetadataRefused)
        #expect(
            refused?.reason
                == "the metadata of \(Self.resource) has no signed_metadata, and signed metadata is required (RFC 9728 §2.2)"
        )
    }

    /// Discovery with a policy: the authorization server the signed metadata names is the one
    /// discovered, not the plain member's.
    @Test func discoveryUsesTheSignedServers() async throws {
        let document = try JSONEncoder().encode(
            JSONValue.object([
                "resource": .string(Self.resource),
                "authorization_servers": ["https://as-plain.example"],
                "signed_metadata": .string(JOSE.JWS.sign(claims: Self.signedClaims, with: Self.key)),
            ])
        )
        let json = { (text: [UInt8]) -> ScriptedTransport.Answer in
            { _, _ in (HTTPResponse(status: .ok, headerFields: [.contentType: "application/json"]), text) }
        }
        let transport = ScriptedTransport([
            ScriptedTransport.status(401, [.wwwAuthenticate: "Bearer"]),
            json(Array(document)),
            json(
                Array(
                    #"{"issuer":"https://as-signed.example","token_endpoint":"https://as-signed.example/t","code_challenge_methods_supported":["S256"]}"#
                        .utf8
                )
            ),
        ])
        let found = try await OAuth2.ResourceDiscovery.discover(
            resource: Self.resource,
            signedMetadata: Self.policy,
            now: { Self.now },
            transport: transport
        )
        #expect(found.server.issuer == "https://as-signed.example")
        #expect(
            transport.sent.map { $0.request.url?.absoluteString } == [
                Self.resource, "https://api.example/.well-known/oauth-protected-resource/v1",
                "https://as-signed.example/.well-known/oauth-authorization-server",
            ]
        )
    }
}
