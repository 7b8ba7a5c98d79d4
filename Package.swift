// swift-tools-version:6.1

import PackageDescription

/// Hummingbird's settings, on every target (see STYLE.md §1).
let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "RemoteAuth",
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9)],
    products: [
        .library(name: "RemoteAuth", targets: ["RemoteAuth"]),
        .library(name: "RemoteAuthSandbox", targets: ["RemoteAuthSandbox"]),
        .library(name: "RemoteAuthURLSession", targets: ["RemoteAuthURLSession"]),
        .library(name: "RemoteAuthFileStore", targets: ["RemoteAuthFileStore"]),
        .library(name: "RemoteAuthLoopback", targets: ["RemoteAuthLoopback"]),
        .library(name: "RemoteAuthAsyncHTTPClient", targets: ["RemoteAuthAsyncHTTPClient"]),
        .library(name: "RemoteAuthNIO", targets: ["RemoteAuthNIO"]),
        .library(name: "RemoteAuthPostgres", targets: ["RemoteAuthPostgres"]),
        .library(name: "RemoteAuthKeyring", targets: ["RemoteAuthKeyring"]),
        .library(name: "RemoteAuthOpenAPI", targets: ["RemoteAuthOpenAPI"]),
        .executable(name: "remote-auth", targets: ["remote-auth"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0", traits: []),
        // SHA-512/256 for Digest lives in CryptoExtras from 4.x on.
        .package(url: "https://github.com/apple/swift-crypto.git", "4.0.0"..<"6.0.0"),
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-asn1.git", from: "1.7.4"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/swift-extras/swift-extras-base64.git", from: "1.2.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1", traits: []),
        // Hummingbird's own: the in-process sandbox stops through a graceful shutdown.
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        // Spans around sign-in, token requests, refreshes and attempts (issue 25); Hummingbird
        // depends on it already.
        .package(url: "https://github.com/apple/swift-distributed-tracing.git", from: "1.7.3"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-openapi-runtime.git", from: "1.13.4"),
        // Structured fields (RFC 8941 / 9651) for HTTP Message Signatures and Content-Digest.
        .package(url: "https://github.com/apple/swift-http-structured-headers.git", from: "1.7.0"),
        // `swift package generate-documentation` (scripts/docs.sh): a command plugin, in no
        // target's graph, so it adds nothing to what a user of the package builds.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin.git", from: "1.5.0"),
        // Test-only: the two transports a generated client is sent over in RemoteAuthOpenAPITests.
        .package(url: "https://github.com/swift-server/swift-openapi-async-http-client.git", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-openapi-urlsession.git", from: "1.4.0"),
    ],
    targets: [
        .target(
            name: "RemoteAuth",
            dependencies: [
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "ExtrasBase64", package: "swift-extras-base64"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "RawStructuredFieldValues", package: "swift-http-structured-headers"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "RemoteAuthAsyncHTTPClient",
            dependencies: [
                "RemoteAuth",
                "RemoteAuthNIOShared",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "RemoteAuthNIO",
            dependencies: [
                "RemoteAuth",
                "RemoteAuthNIOShared",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOTLS", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ],
            swiftSettings: swiftSettings
        ),
        // Internal (no product): what the NIO and AsyncHTTPClient adapters share, so that
        // neither imports the other: NIOSSL bridging of identities and certificates, HTTPHeaders
        // to HTTPFields, and NIO errors to TransportError.
        .target(
            name: "RemoteAuthNIOShared",
            dependencies: [
                "RemoteAuth",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "RemoteAuthOpenAPI",
            dependencies: [
                "RemoteAuth",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "RemoteAuthLoopback",
            dependencies: [
                "RemoteAuth",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "RemoteAuthFileStore",
            dependencies: ["RemoteAuth"],
            swiftSettings: swiftSettings
        ),
        // Tokens shared by the instances of a backend, in PostgreSQL. Nothing else depends on it:
        // the core and the tool stay free of postgres-nio.
        .target(
            name: "RemoteAuthPostgres",
            dependencies: [
                "RemoteAuth",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        // Tokens in the freedesktop Secret Service (GNOME Keyring, KWallet, KeePassXC) over the
        // D-Bus session bus, spoken over NIO: no libsecret, nothing at build time but Swift.
        .target(
            name: "RemoteAuthKeyring",
            dependencies: [
                "RemoteAuth",
                // Its refresh lock is the file store's flock.
                "RemoteAuthFileStore",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "RemoteAuthURLSession",
            dependencies: [
                "RemoteAuth",
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "RemoteAuthSandbox",
            dependencies: [
                "RemoteAuth",
                // Fetches client ID metadata documents (the only outbound request it makes).
                "RemoteAuthNIO",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Crypto", package: "swift-crypto"),
                // Ed25519 keys as PEM: the sandbox's RFC 9421 test keys.
                .product(name: "CryptoExtras", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "ExtrasBase64", package: "swift-extras-base64"),
            ],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "remote-auth",
            dependencies: [
                "RemoteAuth",
                "RemoteAuthFileStore",
                "RemoteAuthKeyring",
                "RemoteAuthLoopback",
                "RemoteAuthSandbox",
                "RemoteAuthAsyncHTTPClient",
                "RemoteAuthNIO",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "RemoteAuthTests",
            dependencies: [
                "RemoteAuth",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "RemoteAuthIntegrationTests",
            dependencies: [
                "RemoteAuth",
                "RemoteAuthLoopback",
                "RemoteAuthFileStore",
                "RemoteAuthURLSession",
                "RemoteAuthSandbox",
                "RemoteAuthAsyncHTTPClient",
                "RemoteAuthNIO",
                "RemoteAuthOpenAPI",
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ],
            swiftSettings: swiftSettings
        ),
        // The middleware inside a generated client, over swift-openapi-async-http-client and
        // swift-openapi-urlsession, against the sandbox: every scheme. The client (Generated/) is
        // made once from the document the sandbox serves (GET /openapi.json) by
        // scripts/generate-openapi-client.sh and committed: the build plugin would add minutes to
        // every cold build. It lives here, internal to the tests: nothing else can depend on it.
        .testTarget(
            name: "RemoteAuthOpenAPITests",
            dependencies: [
                "RemoteAuth",
                "RemoteAuthOpenAPI",
                "RemoteAuthSandbox",
                "RemoteAuthAsyncHTTPClient",
                "RemoteAuthURLSession",
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "OpenAPIAsyncHTTPClient", package: "swift-openapi-async-http-client"),
                .product(name: "OpenAPIURLSession", package: "swift-openapi-urlsession"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            exclude: ["Generated/openapi.json", "Generated/openapi-generator-config.yaml", "Generated/SHA256SUMS"],
            swiftSettings: swiftSettings
        ),
        // Runs against a real PostgreSQL server named by POSTGRES_URL, which
        // scripts/interop/postgres_store.sh starts; without it every test is skipped.
        .testTarget(
            name: "RemoteAuthPostgresTests",
            dependencies: [
                "RemoteAuth",
                "RemoteAuthPostgres",
                "RemoteAuthSandbox",
                "RemoteAuthAsyncHTTPClient",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            swiftSettings: swiftSettings
        ),
        // The D-Bus wire format against captured messages, always; the Secret Service store against
        // a real keyring when REMOTE_AUTH_KEYRING_TESTS=1 (scripts/interop/keyring.sh starts one).
        .testTarget(
            name: "RemoteAuthKeyringTests",
            dependencies: [
                // store-writer: processes sharing one keyring.
                "remote-auth",
                "RemoteAuth",
                "RemoteAuthKeyring",
                "RemoteAuthSandbox",
                "RemoteAuthAsyncHTTPClient",
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "RemoteAuthCLITests",
            dependencies: [
                "remote-auth",
                "RemoteAuth",
                "RemoteAuthFileStore",
                // KeyringCLITests: the tool's profiles in a real keyring (scripts/interop/keyring.sh).
                "RemoteAuthKeyring",
                "RemoteAuthSandbox",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
    ]
)

// The soak (issue 24; scripts/soak.sh): one client, a token session of 2 s tokens, 32 tasks,
// against the sandbox, for as long as asked. Out of the default graph, like the benchmarks:
//   REMOTE_AUTH_SOAK=1 swift run -c release remote-auth-soak 600
if Context.environment["REMOTE_AUTH_SOAK"] != nil {
    package.targets.append(
        .executableTarget(
            name: "remote-auth-soak",
            dependencies: [
                "RemoteAuth",
                "RemoteAuthSandbox",
                "RemoteAuthAsyncHTTPClient",
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            path: "Benchmarks/remote-auth-soak",
            swiftSettings: swiftSettings
        )
    )
}

// The benchmarks, as Hummingbird gates its own: declared only when asked for, so they are not in
// the graph a user of the package resolves or builds (`swift build`, `swift test`).
//   REMOTE_AUTH_BENCHMARKS=1 swift run -c release remote-auth-bench
if Context.environment["REMOTE_AUTH_BENCHMARKS"] != nil {
    package.targets.append(
        .executableTarget(
            name: "remote-auth-bench",
            dependencies: [
                "RemoteAuth",
                "RemoteAuthSandbox",
                "RemoteAuthAsyncHTTPClient",
                "RemoteAuthNIO",
                "RemoteAuthOpenAPI",
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ],
            path: "Benchmarks/remote-auth-bench",
            swiftSettings: swiftSettings
        )
    )
}
