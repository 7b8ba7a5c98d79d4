import Crypto
import Foundation
import Testing

/// The generated client is what swift-openapi-generator makes of the committed document, without
/// building the generator: `scripts/generate-openapi-client.sh` writes `Generated/SHA256SUMS`, the
/// SHA-256 of its inputs (the document, the configuration, the script that names the generator's
/// version) and of every file it wrote. A document, configuration or version changed without
/// regenerating, or a generated file edited by hand, no longer matches. (The document itself is
/// held to what the sandbox serves by `ServedDocumentTests`; `generate-openapi-client.sh --check`
/// runs the generator for real.)
@Suite struct GeneratedClientFingerprintTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
    static let generated = "Tests/RemoteAuthOpenAPITests/Generated"

    /// The lines of `SHA256SUMS` (`sha256sum`'s format: 64 hex digits, two spaces, the path from
    /// the repository's root) as path → digest.
    static func recorded() throws -> [String: String] {
        let text = try String(contentsOf: root.appendingPathComponent("\(generated)/SHA256SUMS"), encoding: .utf8)
        var digests: [String: String] = [:]
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: " ", maxSplits: 1)
            #expect(parts.count == 2 && parts[0].count == 64 && parts[1].hasPrefix(" "), "a line of SHA256SUMS: \(line)")
            if parts.count == 2 { digests[String(parts[1].dropFirst())] = String(parts[0]) }
        }
        return digests
    }

    @Test func everyInputAndOutputHasItsRecordedDigest() throws {
        let digests = try Self.recorded()
        let swiftFiles = try FileManager.default.contentsOfDirectory(
            atPath: Self.root.appendingPathComponent(Self.generated).path
        ).filter { $0.hasSuffix(".swift") }.map { "\(Self.generated)/\($0)" }
        let expected = Set(
            ["\(Self.generated)/openapi.json", "\(Self.generated)/openapi-generator-config.yaml",
             "scripts/generate-openapi-client.sh"] + swiftFiles
        )
        #expect(Set(digests.keys) == expected, "SHA256SUMS lists exactly the inputs and the generated files")
        #expect(swiftFiles.count >= 2)
        for (path, digest) in digests.sorted(by: { $0.key < $1.key }) {
            let data = try Data(contentsOf: Self.root.appendingPathComponent(path))
            let actual = SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined()
            #expect(
                actual == digest,
                "\(path) changed since the client was generated: run bash scripts/generate-openapi-client.sh and commit the result"
            )
        }
    }
}
