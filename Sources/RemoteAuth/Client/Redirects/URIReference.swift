/// A URI reference split into its five components, and resolved against a base URI.
/// [RFC 3986 §5.2](https://www.rfc-editor.org/rfc/rfc3986#section-5.2)
///
/// The split follows the regular expression of
/// [RFC 3986 Appendix B](https://www.rfc-editor.org/rfc/rfc3986#appendix-B), so it never fails:
/// validating the result (scheme, host, port) is the caller's job. A component that is absent
/// is `nil`, one that is present but empty is `""` (`http://a/b?` has an empty query).
package struct URIReference: Sendable, Hashable, CustomStringConvertible {
    package var scheme: String?
    package var authority: String?
    package var path: String
    package var query: String?
    package var fragment: String?

    package init(
        scheme: String? = nil,
        authority: String? = nil,
        path: String,
        query: String? = nil,
        fragment: String? = nil
    ) {
        self.scheme = scheme
        self.authority = authority
        self.path = path
        self.query = query
        self.fragment = fragment
    }

    /// Splits `reference`: `^(([^:/?#]+):)?(//([^/?#]*))?([^?#]*)(\?([^#]*))?(#(.*))?`.
    /// [RFC 3986 Appendix B](https://www.rfc-editor.org/rfc/rfc3986#appendix-B)
    package init(parsing reference: String) {
        var rest = Substring(reference)
        if let end = rest.firstIndex(where: { $0 == ":" || $0 == "/" || $0 == "?" || $0 == "#" }),
            rest[end] == ":", end > rest.startIndex
        {
            scheme = String(rest[..<end])
            rest = rest[rest.index(after: end)...]
        }
        if rest.hasPrefix("//") {
            rest = rest.dropFirst(2)
            let end = rest.firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) ?? rest.endIndex
            authority = String(rest[..<end])
            rest = rest[end...]
        }
        if let hash = rest.firstIndex(of: "#") {
            fragment = String(rest[rest.index(after: hash)...])
            rest = rest[..<hash]
        }
        if let mark = rest.firstIndex(of: "?") {
            query = String(rest[rest.index(after: mark)...])
            rest = rest[..<mark]
        }
        path = String(rest)
    }

    /// Component recomposition. [RFC 3986 §5.3](https://www.rfc-editor.org/rfc/rfc3986#section-5.3)
    /// The reference without its query and fragment.
    package var withoutQueryAndFragment: String {
        var copy = self
        copy.query = nil
        copy.fragment = nil
        return copy.description
    }

    package var description: String {
        var result = ""
        if let scheme { result += scheme + ":" }
        if let authority { result += "//" + authority }
        result += path
        if let query { result += "?" + query }
        if let fragment { result += "#" + fragment }
        return result
    }

    /// The target URI of this reference against `base` (which should have a scheme), by the
    /// strict algorithm: a reference with a scheme is taken as is, even when it equals the
    /// base's. [RFC 3986 §5.2.2](https://www.rfc-editor.org/rfc/rfc3986#section-5.2.2)
    package func resolved(against base: URIReference) -> URIReference {
        var target = URIReference(path: "")
        if let scheme {
            target.scheme = scheme
            target.authority = authority
            target.path = Self.removeDotSegments(path)
            target.query = query
        } else {
            if let authority {
                target.authority = authority
                target.path = Self.removeDotSegments(path)
                target.query = query
            } else {
                if path.isEmpty {
                    target.path = base.path
                    target.query = query ?? base.query
                } else {
                    if path.hasPrefix("/") {
                        target.path = Self.removeDotSegments(path)
                    } else {
                        target.path = Self.removeDotSegments(Self.merge(base: base, path: path))
                    }
                    target.query = query
                }
                target.authority = base.authority
            }
            target.scheme = base.scheme
        }
        target.fragment = fragment
        return target
    }

    /// Merges a relative-path reference with the base's path.
    /// [RFC 3986 §5.2.3](https://www.rfc-editor.org/rfc/rfc3986#section-5.2.3)
    static func merge(base: URIReference, path: String) -> String {
        // A base with an authority and an empty path: "/" followed by the reference's path.
        if base.authority != nil, base.path.isEmpty { return "/" + path }
        // Otherwise the reference's path appended to all but the last segment of the base's.
        guard let slash = base.path.lastIndex(of: "/") else { return path }
        return String(base.path[...slash]) + path
    }

    /// Removes the special `.` and `..` complete path segments.
    /// [RFC 3986 §5.2.4](https://www.rfc-editor.org/rfc/rfc3986#section-5.2.4)
    package static func removeDotSegments(_ path: String) -> String {
        // 1. The input buffer holds the path, the output buffer starts empty.
        var input = Substring(path)
        var output: [Substring] = []
        // 2. While the input buffer is not empty, loop:
        while !input.isEmpty {
            if input.hasPrefix("../") {
                // A. Remove a prefix "../" or "./".
                input = input.dropFirst(3)
            } else if input.hasPrefix("./") {
                input = input.dropFirst(2)
            } else if input.hasPrefix("/./") {
                // B. Replace a prefix "/./" or "/." (a complete segment) with "/": dropping
                //    "/." leaves the "/" in place (building "/" + rest copied the rest each
                //    time, quadratic in the path's length).
                input = input.dropFirst(2)
            } else if input == "/." {
                input = "/"
            } else if input.hasPrefix("/../") {
                // C. Replace a prefix "/../" or "/.." (a complete segment) with "/", and remove
                //    the last segment and its preceding "/" (if any) from the output buffer.
                input = input.dropFirst(3)
                _ = output.popLast()
            } else if input == "/.." {
                input = "/"
                _ = output.popLast()
            } else if input == "." || input == ".." {
                // D. Remove an input that is only "." or "..".
                input = ""
            } else {
                // E. Move the first path segment, with its initial "/" (if any) and up to but
                //    not including the next "/", to the end of the output buffer.
                let start = input.hasPrefix("/") ? input.index(after: input.startIndex) : input.startIndex
                let end = input[start...].firstIndex(of: "/") ?? input.endIndex
                output.append(input[..<end])
                input = input[end...]
            }
        }
        // 3. The output buffer is the result.
        return output.joined()
    }
}
