#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The system's wall clock in seconds since 1970, the default of every `now:` parameter that
/// has one. Tests and servers pass their own clock instead.
public enum UnixTime {
    /// Seconds since 1970-01-01T00:00:00Z, from the system clock.
    public static let now: @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970) }
}
