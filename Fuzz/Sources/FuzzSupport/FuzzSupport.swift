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
    ///
    /// `setUp` makes what every input shares (keys, a validator) before the first input, with
    /// leak detection off: such values live until the process ends, and Swift keeps an enum's
    /// case in the spare bits of a pointer (a key's backing), which LeakSanitizer cannot follow,
    /// so it would report them as leaked.
    public static func run(setUp: () -> Void = {}, _ test: @escaping (FuzzInput) -> Void) -> Never {
        __lsan_disable()
        setUp()
        __lsan_enable()
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

/// Base64url without padding ([RFC 4648 §5](https://www.rfc-editor.org/rfc/rfc4648#section-5)),
/// written here so that the JOSE targets check the library's codec against another one.
public enum Base64URL {
    static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    public static func encode(_ bytes: some Collection<UInt8>) -> String {
        let input = Array(bytes)
        var output: [UInt8] = []
        output.reserveCapacity((input.count * 4 + 2) / 3)
        var index = 0
        while index + 3 <= input.count {
            let n = UInt32(input[index]) << 16 | UInt32(input[index + 1]) << 8 | UInt32(input[index + 2])
            output += [alphabet[Int(n >> 18 & 63)], alphabet[Int(n >> 12 & 63)], alphabet[Int(n >> 6 & 63)], alphabet[Int(n & 63)]]
            index += 3
        }
        let rest = input.count - index
        if rest == 1 {
            let n = UInt32(input[index]) << 16
            output += [alphabet[Int(n >> 18 & 63)], alphabet[Int(n >> 12 & 63)]]
        } else if rest == 2 {
            let n = UInt32(input[index]) << 16 | UInt32(input[index + 1]) << 8
            output += [alphabet[Int(n >> 18 & 63)], alphabet[Int(n >> 12 & 63)], alphabet[Int(n >> 6 & 63)]]
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// The octets of canonical base64url (the unused bits zero), or `nil`.
    public static func decode(_ text: some StringProtocol) -> [UInt8]? {
        var values: [UInt32] = []
        for byte in text.utf8 {
            guard let value = alphabet.firstIndex(of: byte) else { return nil }
            values.append(UInt32(value))
        }
        guard values.count % 4 != 1 else { return nil }
        var output: [UInt8] = []
        var index = 0
        while index + 4 <= values.count {
            let n = values[index] << 18 | values[index + 1] << 12 | values[index + 2] << 6 | values[index + 3]
            output += [UInt8(n >> 16 & 255), UInt8(n >> 8 & 255), UInt8(n & 255)]
            index += 4
        }
        let rest = values.count - index
        if rest == 2 {
            guard values[index + 1] & 15 == 0 else { return nil }
            output.append(UInt8((values[index] << 2 | values[index + 1] >> 4) & 255))
        } else if rest == 3 {
            guard values[index + 2] & 3 == 0 else { return nil }
            let n = values[index] << 12 | values[index + 1] << 6 | values[index + 2]
            output += [UInt8(n >> 10 & 255), UInt8(n >> 2 & 255)]
        }
        return output
    }
}
