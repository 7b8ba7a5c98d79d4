import FuzzSupport
@_spi(Fuzzing) import RemoteAuth

/// The RFC 3986 reference resolver that the redirect policy runs on every `Location`
/// (§5.2; the split of Appendix B, dot-segment removal §5.2.4, recomposition §5.3).
///
/// Input: line 1 is the base URI, the rest the reference.
///
/// Invariants: split and recomposition give back the reference (Appendix B's split loses
/// nothing); dot-segment removal is idempotent and never lengthens a path; the target is no
/// longer than base and reference together.
@main struct Target {
    static func main() {
        Fuzz.run { input in
            let lines = input.lines(2)
            let base = lines[0].isEmpty ? "http://a/b/c/d;p?q" : lines[0].text
            let reference = lines[1].text
            Fuzz.require(
                FuzzingEntryPoints.recomposedURIReference(reference) == reference,
                "split and recomposition change the reference"
            )
            let removed = FuzzingEntryPoints.removingDotSegments(reference)
            Fuzz.require(removed.utf8.count <= reference.utf8.count, "dot-segment removal lengthens the path")
            Fuzz.require(
                FuzzingEntryPoints.removingDotSegments(removed) == removed,
                "dot-segment removal is not idempotent"
            )
            let target = FuzzingEntryPoints.resolvedURIReference(reference, against: base)
            Fuzz.require(
                target.utf8.count <= base.utf8.count + reference.utf8.count + 1,
                "the target is longer than base and reference together"
            )
        }
    }
}
