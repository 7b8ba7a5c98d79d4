import Foundation

/// A value behind a lock, used as `Synchronization.Mutex` would be, on `NSLock` (`pthread_mutex`),
/// whose hand-over ThreadSanitizer sees.
///
/// `Synchronization.Mutex` hands a contended lock over in the kernel on Linux (`FUTEX_LOCK_PI`,
/// `FUTEX_UNLOCK_PI`), which ThreadSanitizer does not see: under contention it reports a "Swift
/// access race" on the value the lock protects, a false report (2,000 tasks appending to one
/// `Mutex<[Int]>` under `-sanitize=thread` report it in two runs of three, and count 2,000 every
/// time). The library itself keeps no `Mutex`; the tests' shared values use this (issue 24).
final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) { self.value = value }

    /// Runs `body` with the value, the lock held.
    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
