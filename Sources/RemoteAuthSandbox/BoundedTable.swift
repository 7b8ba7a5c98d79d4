/// A table of the sandbox's state (tokens, codes, requests) that never holds more than
/// ``capacity`` entries: inserting a new key into a full table first drops the oldest entry
/// still present, so memory stays bounded however many tokens a client asks for.
///
/// Keys are kept in insertion order beside the dictionary. Entries removed otherwise (a revoked
/// family, a used request) leave their key in the order until it is compacted, which happens
/// once the stale keys outnumber the live ones: each operation costs O(1) amortised.
///
/// Oldest-first is expiry order for the tables that hold it: every entry of a table is given the
/// same lifetime when it is inserted, so the first to go is the first that would have expired.
struct BoundedTable<Value: Sendable>: Sendable {
    let capacity: Int
    private(set) var entries: [String: Value]
    private var order: [String]
    private var head = 0

    init(capacity: Int) {
        precondition(capacity > 0, "a table holds at least one entry")
        self.capacity = capacity
        self.entries = [:]
        self.order = []
    }

    /// A table holding `entries` (read back from the state file), oldest first by
    /// `age`; when there are more than `capacity`, the newest `capacity` are kept.
    init(capacity: Int, entries: [String: Value], age: (Value) -> Int64) {
        self.init(capacity: capacity)
        let sorted = entries.sorted { (age($0.value), $0.key) < (age($1.value), $1.key) }
        for (key, value) in sorted.suffix(capacity) { self[key] = value }
    }

    var count: Int { entries.count }

    subscript(key: String) -> Value? {
        get { entries[key] }
        set {
            guard let newValue else {
                remove(key)
                return
            }
            if entries.updateValue(newValue, forKey: key) == nil {
                order.append(key)
                evictWhileFull()
            }
        }
    }

    @discardableResult
    mutating func remove(_ key: String) -> Value? {
        defer { compactIfStale() }
        return entries.removeValue(forKey: key)
    }

    mutating func removeAll(where shouldRemove: (Value) -> Bool) {
        entries = entries.filter { !shouldRemove($0.value) }
        compactIfStale()
    }

    private mutating func evictWhileFull() {
        while entries.count > capacity, head < order.count {
            entries[order[head]] = nil
            head += 1
        }
        compactIfStale()
    }

    /// Drops the evicted prefix and the keys of removed entries once they outnumber the live
    /// entries (and 1,024), so the order array stays O(``count``).
    private mutating func compactIfStale() {
        let stale = order.count - entries.count
        guard stale > 1024, stale > entries.count else { return }
        order = order[head...].filter { entries[$0] != nil }
        head = 0
    }
}
