// swift-tools-version:6.1

import Foundation
import PackageDescription

// libFuzzer targets for RemoteAuth's parsers of untrusted bytes, built and run by
// `scripts/fuzz.sh` (with `-sanitize=fuzzer,address`). A package of its own, so that the main
// package and `swift test` are unaffected.
//
// Every directory under Sources/ other than the two support targets is one fuzz target, an
// executable of the same name: adding a target is adding `Sources/<name>/<name>.swift` (and,
// ideally, seeds in `Corpus/<name>/`).

let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let support: Set<String> = ["CFuzzDriver", "FuzzSupport"]
let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Sources").path
let fuzzTargets = ((try? FileManager.default.contentsOfDirectory(atPath: sources)) ?? [])
    .filter { !support.contains($0) && !$0.hasPrefix(".") }
    .sorted()

// The targets that drive the sandbox (and so build Hummingbird, SwiftNIO and NIOSSL too).
let sandboxTargets: Set<String> = ["sandbox_request"]

let package = Package(
    name: "RemoteAuthFuzz",
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11)],
    dependencies: [
        .package(name: "RemoteAuth", path: ".."),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0", traits: []),
    ],
    targets: [
        // `LLVMFuzzerRunDriver`, libFuzzer's entry for programs that have their own `main`.
        .target(name: "CFuzzDriver"),
        .target(
            name: "FuzzSupport",
            dependencies: ["CFuzzDriver"],
            swiftSettings: swiftSettings
        ),
    ]
        + fuzzTargets.map { name in
            .executableTarget(
                name: name,
                dependencies: [
                    "FuzzSupport",
                    .product(name: "RemoteAuth", package: "RemoteAuth"),
                    .product(name: "HTTPTypes", package: "swift-http-types"),
                ] + (sandboxTargets.contains(name) ? [.product(name: "RemoteAuthSandbox", package: "RemoteAuth")] : []),
                swiftSettings: swiftSettings
            )
        }
)
