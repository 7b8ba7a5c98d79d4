import Testing

@testable import RemoteAuthSandbox

/// The sandbox's OAuth 1.0a nonce memory: replays refused inside the window, forgotten past it,
/// and bounded: a million distinct nonces in one window keep at most `capacity` entries, and
/// what was evicted can no longer be replayed (its timestamp is refused).
@Suite struct NonceWindowTests {
    @Test func replayedInsideTheWindowForgottenPastIt() {
        var window = NonceWindow(capacity: 10)
        #expect(window.use("a", timestamp: 1000, now: 1000, window: 300) == .fresh)
        #expect(window.use("a", timestamp: 1000, now: 1100, window: 300) == .replayed)
        #expect(window.use("a", timestamp: 1001, now: 1100, window: 300) == .fresh)
        #expect(window.count == 2)
        // Past the window the entries go (the timestamp check refuses such requests anyway).
        #expect(window.use("b", timestamp: 1400, now: 1400, window: 300) == .fresh)
        #expect(window.count == 1)
    }

    @Test func aMillionNoncesStayBoundedAndReplaySafe() {
        var window = NonceWindow(capacity: 100_000)
        var fresh = 0
        for index in 0..<1_000_000 {
            // 1,000,000 requests over 100 seconds, all inside a 300 s window.
            let timestamp = Int64(1_000_000 + index / 10_000)
            if window.use("n\(index)", timestamp: timestamp, now: timestamp, window: 300) == .fresh { fresh += 1 }
            #expect(window.count <= 100_000)
        }
        #expect(fresh > 900_000)
        // The first nonces were evicted: replaying one is refused by the raised floor.
        #expect(window.use("n0", timestamp: 1_000_000, now: 1_000_099, window: 300) == .tooOld)
        // A recent one is still remembered.
        #expect(window.use("n999999", timestamp: 1_000_099, now: 1_000_099, window: 300) == .replayed)
        #expect(window.floor >= 1_000_089)
    }
}
