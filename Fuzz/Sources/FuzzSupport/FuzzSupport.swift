import CFuzzDriver

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The shared harness of the fuzz targets: each target's `main` hands its test to ``run(_:)``,
/// which runs libFuzzer (`LLVMFuzzerRunDriver`) with the command line, and checks invariants
/// with ``require(_:_:file:line:)``, which crashes (a finding) when one does not hold.
public enum Fuzz {
    /// The test of this process's target, set once by ``run(_:)`` before libFuzzer starts.
    nonisolated(unsafe) private static var test: ((FuzzInput) -> Void)?

    /// Runs libFuzzer with `test` as `LLVMFuzzerTestOneInput`, and exits with its status.
    public static func run(_ test: @escaping (FuzzInput) -> Void) -> Never {
        Self.test = test
        var argc = CommandLine.argc
        var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
        let status = LLVMFuzzerRunDriver(&argc, &argv) { data, size in
            let bytes = Array(UnsafeBufferPointer(start: data, count: size))
            Fuzz.test?(FuzzInput(bytes))
            return 0
        }
        exit(status)
    }

    /// Crashes with `message` when `condition` is false: a broken invariant is a finding, as a
    /// crash is. The message names the invariant, not the input (libFuzzer saves that).
    public static func require(
        _ condition: @autoclosure () -> Bool,
        _ message: @autoclosure () -> String,
        file: StaticString = #fileID,
        line: UInt = #line
    ) {
        if !condition() {
            fatalError("invariant broken: \(message())", file: file, line: line)
        }
    }
}

/// The fuzzer's bytes, with helpers to read a structured input from them.
public struct FuzzInput: Sendable {
    public let bytes: [UInt8]

    public init(_ bytes: [UInt8]) { self.bytes = bytes }

    /// The bytes as text, invalid UTF-8 repaired (`String(decoding:as:)`), as a field value
    /// or URL reaches the library.
    public var text: String { String(decoding: bytes, as: UTF8.self) }

    /// The first `count - 1` lines (split at `\n`) and the rest, so that a seed is readable:
    /// `lines(3)` of `a\nb\nc\nd` is `["a", "b", "c\nd"]`. Missing lines are empty.
    public func lines(_ count: Int) -> [[UInt8]] {
        var parts: [[UInt8]] = []
        var rest = bytes[...]
        while parts.count < count - 1 {
            guard let newline = rest.firstIndex(of: UInt8(ascii: "\n")) else { break }
            parts.append(Array(rest[..<newline]))
            rest = rest[(newline + 1)...]
        }
        parts.append(Array(rest))
        while parts.count < count { parts.append([]) }
        return parts
    }
}

extension Array where Element == UInt8 {
    /// The bytes as text, invalid UTF-8 repaired.
    public var text: String { String(decoding: self, as: UTF8.self) }
}
