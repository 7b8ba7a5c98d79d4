#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A value behind a `pthread` mutex, for the few places where state is shared between threads
/// without an actor (a prover's nonces, a change feed's listeners, a seeded random source).
/// It stands in for `Synchronization.Mutex`, which needs macOS 15 / iOS 18: the core runs on
/// older systems (as swift-certificates and swift-nio keep their own locks). Hold it briefly and
/// never across an `await`.
package final class Locked<Value>: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private var value: Value

    package init(_ value: Value) {
        self.value = value
        mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        let status = pthread_mutex_init(mutex, nil)
        precondition(status == 0, "pthread_mutex_init failed: \(status)")
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    /// Runs `body` with the value, holding the lock.
    package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}

extension String {
    /// `bytes` as a string when they are valid UTF-8, else `nil`: the standard library's
    /// `String(validating:as:)`, which needs macOS 15 / iOS 18. Decoding replaces each invalid
    /// sequence with U+FFFD, so the bytes survive the round trip only when they were valid.
    package init?<Bytes: Collection>(validatingUTF8Bytes bytes: Bytes) where Bytes.Element == UInt8 {
        // ASCII, the common case (JSON names, tokens), is valid as it is: one pass, no copy back.
        if bytes.allSatisfy({ $0 < 0x80 }) {
            self = String(decoding: bytes, as: UTF8.self)
            return
        }
        let decoded = String(decoding: bytes, as: UTF8.self)
        guard decoded.utf8.elementsEqual(bytes) else { return nil }
        self = decoded
    }
}
