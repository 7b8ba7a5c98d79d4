import Foundation
import Testing

/// Loads the public conformance vectors from `Tests/Vectors` (their sources and errata:
/// `Tests/Vectors/SOURCES.md`).
///
/// Walks up from this file to the package root (the folder holding `Package.swift`), as
/// swift-crypto's Wycheproof loader does, then reads `Tests/Vectors/NAME.json`. A missing
/// folder, a missing file or an empty array throws, so a test driven by these vectors fails
/// loudly instead of passing with zero arguments.
enum Vectors {
    struct Missing: Error, CustomStringConvertible {
        let description: String
    }

    static func directory(file: String = #filePath) throws -> URL {
        var dir = URL(fileURLWithPath: file).deletingLastPathComponent()
        while dir.path != "/" {
            if FileManager.default.fileExists(atPath: dir.appendingPathComponent("Package.swift").path) {
                let vectors = dir.appendingPathComponent("Tests/Vectors")
                var isDir: ObjCBool = false
                guard FileManager.default.fileExists(atPath: vectors.path, isDirectory: &isDir), isDir.boolValue else {
                    throw Missing(description: "vector folder \(vectors.path) is missing")
                }
                return vectors
            }
            dir = dir.deletingLastPathComponent()
        }
        throw Missing(description: "no Package.swift above \(file)")
    }

    static func load<T: Decodable>(_ name: String, as type: T.Type, file: String = #filePath) throws -> [T] {
        let url = try directory(file: file).appendingPathComponent("\(name).json")
        guard let data = FileManager.default.contents(atPath: url.path) else {
            throw Missing(description: "vector file \(url.path) is missing or unreadable")
        }
        let values = try JSONDecoder().decode([T].self, from: data)
        guard !values.isEmpty else {
            throw Missing(description: "vector file \(url.path) holds no vectors")
        }
        return values
    }
}

/// A `[name, value]` pair as the vector files write them.
struct Pair: Decodable, Sendable, Equatable {
    let name: String
    let value: String
    init(from decoder: any Decoder) throws {
        var c = try decoder.unkeyedContainer()
        name = try c.decode(String.self)
        value = try c.decode(String.self)
    }
}
