import Foundation
import HTTPTypes
import RemoteAuth
import Testing

/// A token for a resource narrower than its origin goes to that resource's paths only
/// (RFC 8707 §2, RFC 9728 §1.2): the path rule, and the targets a session derives.
@Suite struct ResourcePathScopeTests {
    @Test(arguments: [
        ("/v1", "/v1", true), ("/v1", "/v1/", true), ("/v1", "/v1/users", true), ("/v1/", "/v1/users", true),
        ("/v1", "/v1/a/../b", true),
        // Another segment, a way out by dot segments, encoded dots or slashes, the root.
        ("/v1", "/v10", false), ("/v1", "/v1x/users", false), ("/v1", "/", false), ("/v1", "/files", false),
        ("/v1", "/v1/../files", false), ("/v1", "/v1/%2e%2e/files", false), ("/v1", "/v1/%2E%2E/files", false),
        ("/v1", "/v1%2Ffiles", false), ("/v1", "/v1/..%5Cfiles", false),
    ])
    func pathUnderPrefix(prefix: String, path: String, covered: Bool) {
        #expect(ScopedAuthenticator.path(path, isUnder: prefix) == covered)
    }

    @Test func noPrefixCoversEverything() {
        #expect(ScopedAuthenticator.path("/anything/%2e%2e", isUnder: nil))
        #expect(ScopedAuthenticator.path("/x", isUnder: "/"))
        #expect(ScopedAuthenticator.path("/x", isUnder: ""))
    }

    static func session(resources: [String]?, origins: [String]) -> OAuth2.Session {
        var session = OAuth2.Session(
            tokens: .init(accessToken: Secret("t"), tokenType: "Bearer"),
            tokenEndpoint: "https://as.example/token",
            clientID: "c",
            resourceOrigins: origins
        )
        session.resources = resources
        return session
    }

    static func targets(_ session: OAuth2.Session) throws -> [String] {
        try session.resourceTargets().map { "\($0.scope)\($0.pathPrefix ?? "")" }
    }

    @Test func targetsFromTheResourceIndicators() throws {
        #expect(
            try Self.targets(Self.session(resources: nil, origins: ["https://api.example"])) == [
                "https://api.example:443"
            ]
        )
        #expect(
            try Self.targets(
                Self.session(resources: ["https://api.example/v1", "urn:example:x"], origins: ["https://api.example"])
            )
                == ["https://api.example:443/v1"]
        )
        #expect(
            try Self.targets(
                Self.session(
                    resources: ["https://api.example/v2/", "https://api.example/v1"],
                    origins: ["https://api.example"]
                )
            ) == ["https://api.example:443/v1", "https://api.example:443/v2"]
        )
        // An indicator naming the origin itself covers it whole.
        #expect(
            try Self.targets(
                Self.session(
                    resources: ["https://api.example/", "https://api.example/v1"],
                    origins: ["https://api.example"]
                )
            )
                == ["https://api.example:443"]
        )
        // Indicators on another origin leave this one whole.
        #expect(
            try Self.targets(
                Self.session(
                    resources: ["https://files.example/x"],
                    origins: ["https://api.example", "https://files.example"]
                )
            ) == ["https://api.example:443", "https://files.example:443/x"]
        )
    }
}
