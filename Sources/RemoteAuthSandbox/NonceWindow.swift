/// The `oauth_nonce`s a consumer used, bounded in time and in memory
/// ([RFC 5849 §3.3](https://www.rfc-editor.org/rfc/rfc5849#section-3.3): the server keeps the
/// nonce and timestamp pairs it saw, for as long as it accepts those timestamps).
///
/// Entries are kept in arrival order beside a set for lookup. An entry leaves when its timestamp
/// is outside the acceptance window (it could not be replayed: the timestamp check refuses it),
/// or when the window holds ``capacity`` entries; then the oldest goes, and the *floor* rises
/// to its timestamp: from then on a request with a timestamp at or under the floor is refused,
/// since its nonce may have been forgotten. Replay protection stays sound; memory stays under
/// ``capacity`` entries whatever the request rate. Each use costs O(1) amortised.
struct NonceWindow: Sendable {
    enum Outcome: Sendable, Equatable {
        case fresh
        case replayed
        /// The timestamp is at or under the floor raised by an eviction.
        case tooOld
    }

    let capacity: Int
    private var seen: Set<String> = []
    private var order: [(key: String, timestamp: Int64)] = []
    private var head = 0
    private(set) var floor = Int64.min

    init(capacity: Int = 1_000_000) {
        precondition(capacity > 0)
        self.capacity = capacity
    }

    var count: Int { seen.count }

    /// Records `nonce` at `timestamp`, forgetting what `window` seconds before `now` made
    /// harmless.
    mutating func use(_ nonce: String, timestamp: Int64, now: Int64, window: Int64) -> Outcome {
        // Forget what the timestamp check already refuses.
        while head < order.count, order[head].timestamp < now - window {
            seen.remove(order[head].key)
            head += 1
        }
        guard timestamp > floor else { return .tooOld }
        let key = String(timestamp) + " " + nonce
        guard !seen.contains(key) else { return .replayed }
        while seen.count >= capacity, head < order.count {
            seen.remove(order[head].key)
            floor = max(floor, order[head].timestamp)
            head += 1
        }
        seen.insert(key)
        order.append((key, timestamp))
        // Drop the consumed prefix once it is half the array, so the array stays O(capacity).
        if head > 1024, head * 2 > order.count {
            order.removeFirst(head)
            head = 0
        }
        return timestamp > floor ? .fresh : .tooOld
    }
}
