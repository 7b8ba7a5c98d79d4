
/// Where random bytes come from: OAuth 1.0a nonces
/// ([RFC 5849 §3.3](https://www.rfc-editor.org/rfc/rfc5849#section-3.3)), Digest cnonces
/// ([RFC 7616 §3.4](https://www.rfc-editor.org/rfc/rfc7616#section-3.4)), and later PKCE
/// verifiers, `state` values and CSRF tokens. The core has no randomness of its own that a test
/// cannot replace: code that needs random bytes takes a `RandomSource`, ``system`` by default.
///
/// ```swift
/// let nonce = RandomSource.system.hex(byteCount: 16)      // 32 lowercase hex digits
/// let test = RandomSource.seeded(42)                      // the same bytes on every run
/// ```
public struct RandomSource: Sendable {
    private let fill: @Sendable (UnsafeMutableRawBufferPointer) -> Void

    /// A source that fills each buffer it is given with `fill`.
    public init(fill: @escaping @Sendable (UnsafeMutableRawBufferPointer) -> Void) {
        self.fill = fill
    }

    /// `count` random bytes.
    public func bytes(_ count: Int) -> [UInt8] {
        precondition(count >= 0, "a negative byte count")
        return [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            buffer.initialize(repeating: 0)
            fill(UnsafeMutableRawBufferPointer(buffer))
            initialized = count
        }
    }

    /// `byteCount` random bytes as `2 × byteCount` lowercase hex digits.
    public func hex(byteCount: Int) -> String {
        Hex.encode(bytes(byteCount))
    }

    /// The system's cryptographically secure generator (`SystemRandomNumberGenerator`:
    /// `getrandom(2)` on Linux, `arc4random_buf` on Apple platforms).
    public static let system = RandomSource { buffer in
        var generator = SystemRandomNumberGenerator()
        fillBuffer(buffer, using: &generator)
    }

    /// A deterministic source for tests and reproducible runs: SplitMix64 from `seed`, shared by
    /// every copy of the returned value (each call continues the same sequence).
    ///
    /// - Warning: predictable by design; never use it for a real nonce, cnonce or state.
    public static func seeded(_ seed: UInt64) -> RandomSource {
        let state = Locked(SplitMix64(seed: seed))
        return RandomSource { buffer in
            state.withLock { generator in fillBuffer(buffer, using: &generator) }
        }
    }

    /// Repeats `bytes` over and over; for tests that need to know every byte.
    ///
    /// - Warning: predictable by design.
    public static func repeating(_ bytes: [UInt8]) -> RandomSource {
        precondition(!bytes.isEmpty, "RandomSource.repeating needs at least one byte")
        return RandomSource { buffer in
            for index in buffer.indices { buffer[index] = bytes[index % bytes.count] }
        }
    }

    private static func fillBuffer(
        _ buffer: UnsafeMutableRawBufferPointer,
        using generator: inout some RandomNumberGenerator
    ) {
        var index = 0
        while index < buffer.count {
            var word = generator.next() as UInt64
            for _ in 0..<Swift.min(8, buffer.count - index) {
                buffer[index] = UInt8(truncatingIfNeeded: word)
                word >>= 8
                index += 1
            }
        }
    }
}

/// SplitMix64 (Steele, Lea and Flood, 2014): small, fast, and fully determined by its seed;
/// behind ``RandomSource/seeded(_:)``, and the package's tests' seeded generator.
package struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64
    package init(seed: UInt64) { state = seed }
    package mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
