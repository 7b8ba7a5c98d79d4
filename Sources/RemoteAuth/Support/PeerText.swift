/// Text that came from a peer (a server's `error_description`, a callback parameter, a header),
/// made safe to show on a terminal or in a log line.
///
/// A terminal obeys the control sequences in what it prints: ESC starts CSI and OSC sequences
/// that move the cursor, erase the screen or set the window title, BEL rings, CR rewrites the
/// line. RFC 6749 §5.2 already limits `error_description` and `error_uri` to printable ASCII
/// (`%x20-21 / %x23-5B / %x5D-7E`); a hostile server ignores that, so whatever it sends is
/// escaped here before anyone prints it.
public enum PeerText {
    /// `text` with every C0 control (U+0000–U+001F, tab and newline included), DEL, C1 control
    /// (U+0080–U+009F) and the bidirectional overrides and isolates (U+202A–U+202E,
    /// U+2066–U+2069, which reorder what a reader sees) written as `\u{…}`, and a backslash that
    /// would start such an escape doubled, so the result reads back unambiguously. Everything
    /// else, non-ASCII letters included, is kept.
    public static func printable(_ text: some StringProtocol) -> String {
        var output = ""
        output.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            let value = scalar.value
            if isUnprintable(scalar) {
                output += "\\u{" + String(value, radix: 16) + "}"
            } else {
                if scalar == "\\" { output += "\\" }
                output.unicodeScalars.append(scalar)
            }
        }
        return output
    }

    /// A C0 control (tab and newline included), DEL, a C1 control, or a bidirectional override
    /// or isolate: what ``printable(_:)`` escapes.
    public static func isUnprintable(_ scalar: Unicode.Scalar) -> Bool {
        let value = scalar.value
        return value < 0x20 || (0x7F...0x9F).contains(value) || (0x202A...0x202E).contains(value)
            || (0x2066...0x2069).contains(value)
    }

    /// ``printable(_:)`` shortened to at most `limit` characters, with `…` when cut.
    public static func printable(_ text: some StringProtocol, limit: Int) -> String {
        let escaped = printable(text)
        guard escaped.count > limit else { return escaped }
        return String(escaped.prefix(max(0, limit - 1))) + "…"
    }
}

extension String {
    /// The text for HTML element content and attribute values: `&`, `<`, `>`, `"` and `'` as
    /// character references (the sandbox's pages, the loopback listener's).
    package var htmlEscaped: String {
        var output = ""
        output.reserveCapacity(utf8.count)
        for character in self {
            switch character {
            case "&": output += "&amp;"
            case "<": output += "&lt;"
            case ">": output += "&gt;"
            case "\"": output += "&quot;"
            case "'": output += "&#39;"
            default: output.append(character)
            }
        }
        return output
    }
}
