/// Compares two byte sequences in time that depends only on their lengths, never on where
/// they first differ, so a server comparing a received signature or digest leaks nothing
/// through timing. Unequal lengths return `false` at once (lengths are public). Secrets
/// themselves are ``Secret`` values, whose `==` does this without the length exit.
package func constantTimeEquals<A: Collection, B: Collection>(_ a: A, _ b: B) -> Bool
where A.Element == UInt8, B.Element == UInt8 {
    guard a.count == b.count else { return false }
    var difference: UInt8 = 0
    for (x, y) in zip(a, b) { difference |= x ^ y }
    return difference == 0
}

/// String form of ``constantTimeEquals(_:_:)``, over the UTF-8 bytes.
package func constantTimeEquals(_ a: String, _ b: String) -> Bool {
    constantTimeEquals(Array(a.utf8), Array(b.utf8))
}
