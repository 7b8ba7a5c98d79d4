/// Character classes and writers from the HTTP grammar.
/// [RFC 9110 §5.6](https://www.rfc-editor.org/rfc/rfc9110#section-5.6)
enum HTTPSyntax {
    /// `tchar`. [RFC 9110 §5.6.2](https://www.rfc-editor.org/rfc/rfc9110#section-5.6.2)
    static func isTchar(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        case UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"),
            UInt8(ascii: "'"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."),
            UInt8(ascii: "^"), UInt8(ascii: "_"), UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"):
            return true
        default:
            return false
        }
    }

    /// The characters of `token68` before its `=` padding.
    /// [RFC 9110 §11.2](https://www.rfc-editor.org/rfc/rfc9110#section-11.2)
    static func isToken68Char(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "+"),
            UInt8(ascii: "/"):
            return true
        default:
            return false
        }
    }

    /// `token = 1*tchar`. [RFC 9110 §5.6.2](https://www.rfc-editor.org/rfc/rfc9110#section-5.6.2)
    static func isToken(_ string: String) -> Bool {
        !string.isEmpty && string.utf8.allSatisfy(isTchar)
    }

    /// Whether `string` can be written as a quoted-string: no control characters other than
    /// HTAB. [RFC 9110 §5.6.4](https://www.rfc-editor.org/rfc/rfc9110#section-5.6.4)
    static func isQuotable(_ string: String) -> Bool {
        var string = string
        return string.withUTF8 { bytes in bytes.allSatisfy { $0 == 0x09 || ($0 >= 0x20 && $0 != 0x7F) } }
    }

    /// Writes `string` as a quoted-string, escaping `"` and `\` with quoted-pair.
    /// [RFC 9110 §5.6.4](https://www.rfc-editor.org/rfc/rfc9110#section-5.6.4)
    static func quotedString(_ string: String) -> String {
        var output: [UInt8] = []
        output.reserveCapacity(string.utf8.count + 4)
        appendQuotedString(string, to: &output)
        return String(decoding: output, as: UTF8.self)
    }

    /// Appends `string` as a quoted-string, escaping `"` and `\\` (RFC 9110 §5.6.4).
    static func appendQuotedString(_ string: String, to output: inout [UInt8]) {
        output.append(UInt8(ascii: "\""))
        var string = string
        string.withUTF8 { bytes in
            if bytes.contains(where: { $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) {
                for byte in bytes {
                    if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") { output.append(UInt8(ascii: "\\")) }
                    output.append(byte)
                }
            } else {
                output.append(contentsOf: bytes)
            }
        }
        output.append(UInt8(ascii: "\""))
    }

    /// Names a byte for an error message without echoing arbitrary input.
    static func describe(_ byte: UInt8) -> String {
        if byte >= 0x21 && byte < 0x7F {
            return "'\(Character(Unicode.Scalar(byte)))'"
        }
        let hex = String(byte, radix: 16, uppercase: true)
        return "0x" + (hex.count < 2 ? "0" + hex : hex)
    }
}

/// A parser for the comma-separated challenge and parameter lists of RFC 9110 §11, over the
/// UTF-8 bytes of one field value. Never traps: every index is bounds-checked.
/// [RFC 9110 §11.2](https://www.rfc-editor.org/rfc/rfc9110#section-11.2),
/// [RFC 9110 §11.6.1](https://www.rfc-editor.org/rfc/rfc9110#section-11.6.1)
struct AuthFieldParser {
    private let bytes: [UInt8]
    private var index = 0

    init(_ fieldValue: String) {
        bytes = Array(fieldValue.utf8)
    }

    private var atEnd: Bool { index >= bytes.count }
    private var peek: UInt8? { index < bytes.count ? bytes[index] : nil }

    private static let comma = UInt8(ascii: ",")
    private static let equals = UInt8(ascii: "=")
    private static let quote = UInt8(ascii: "\"")
    private static let backslash = UInt8(ascii: "\\")

    /// `OWS` / `BWS`: spaces and tabs.
    private mutating func skipWhitespace() {
        while let byte = peek, byte == 0x20 || byte == 0x09 { index += 1 }
    }

    private mutating func readToken() -> String {
        let start = index
        while let byte = peek, HTTPSyntax.isTchar(byte) { index += 1 }
        return String(decoding: bytes[start..<index], as: UTF8.self)
    }

    private func unexpected(at offset: Int) -> ChallengeError {
        if offset >= bytes.count {
            return ChallengeError(.invalidCharacter, "unexpected end of value at offset \(offset)")
        }
        return ChallengeError(
            .invalidCharacter,
            "unexpected character \(HTTPSyntax.describe(bytes[offset])) at offset \(offset)"
        )
    }

    /// After a value: OWS, then a comma or the end.
    private mutating func expectSeparator() throws {
        skipWhitespace()
        if let byte = peek, byte != Self.comma { throw unexpected(at: index) }
    }

    /// `token / quoted-string` after `name BWS "=" BWS`.
    private mutating func readValue(for name: String, nameOffset: Int) throws -> String {
        guard let first = peek else {
            throw ChallengeError(.missingValue, "parameter '\(name)' at offset \(nameOffset) has no value")
        }
        if first == Self.quote {
            return try readQuotedString()
        }
        if first == Self.comma {
            throw ChallengeError(.missingValue, "parameter '\(name)' at offset \(nameOffset) has no value")
        }
        let value = readToken()
        if value.isEmpty { throw unexpected(at: index) }
        return value
    }

    /// `quoted-string = DQUOTE *( qdtext / quoted-pair ) DQUOTE`.
    /// [RFC 9110 §5.6.4](https://www.rfc-editor.org/rfc/rfc9110#section-5.6.4)
    private mutating func readQuotedString() throws -> String {
        let open = index
        index += 1
        var value: [UInt8] = []
        while true {
            guard let byte = peek else {
                throw ChallengeError(.unterminatedQuotedString, "quoted-string opened at offset \(open) is not closed")
            }
            switch byte {
            case Self.quote:
                index += 1
                return String(decoding: value, as: UTF8.self)
            case Self.backslash:
                // quoted-pair = "\" ( HTAB / SP / VCHAR / obs-text )
                index += 1
                guard let escaped = peek else {
                    throw ChallengeError(
                        .unterminatedQuotedString,
                        "quoted-string opened at offset \(open) is not closed"
                    )
                }
                guard escaped == 0x09 || (escaped >= 0x20 && escaped != 0x7F) else { throw unexpected(at: index) }
                value.append(escaped)
                index += 1
            default:
                // qdtext = HTAB / SP / %x21 / %x23-5B / %x5D-7E / obs-text
                guard byte == 0x09 || (byte >= 0x20 && byte != 0x7F) else { throw unexpected(at: index) }
                value.append(byte)
                index += 1
            }
        }
    }

    /// `#challenge`: see ``AuthenticationChallenge/parse(_:)-(String)``.
    mutating func parseChallenges() throws -> [AuthenticationChallenge] {
        var challenges: [AuthenticationChallenge] = []
        /// Offset of the current challenge's token68, to explain a later parameter.
        var token68Offset = 0
        /// The current challenge's parameter names, lowercased: a set, so that a value with
        /// many parameters is read in linear time (a list search made 60,000 take minutes).
        var names: Set<String> = []
        while true {
            skipWhitespace()
            guard let byte = peek else { break }
            if byte == Self.comma {
                index += 1
                continue
            }
            let start = index
            let token = readToken()
            if token.isEmpty { throw unexpected(at: start) }
            let afterToken = index
            skipWhitespace()
            if peek == Self.equals {
                // auth-param of the current challenge.
                guard !challenges.isEmpty else {
                    throw ChallengeError(
                        .parameterWithoutScheme,
                        "parameter '\(token)' at offset \(start) comes before any auth-scheme"
                    )
                }
                if let token68 = challenges[challenges.count - 1].token68 {
                    if token68.hasSuffix("="), HTTPSyntax.isToken(String(token68.dropLast())) {
                        throw ChallengeError(
                            .missingValue,
                            "parameter '\(token68.dropLast())' at offset \(token68Offset) has no value"
                        )
                    }
                    throw ChallengeError(
                        .parameterAfterToken68,
                        "parameter '\(token)' at offset \(start) follows the token68 at offset \(token68Offset)"
                    )
                }
                index += 1
                skipWhitespace()
                let value = try readValue(for: token, nameOffset: start)
                try append(
                    Parameter(name: token, value: value),
                    offset: start,
                    to: &challenges[challenges.count - 1],
                    names: &names
                )
                try expectSeparator()
                continue
            }
            // A new challenge.
            challenges.append(AuthenticationChallenge(scheme: token))
            names.removeAll(keepingCapacity: true)
            guard let next = peek, next != Self.comma else { continue }
            // auth-scheme [ 1*SP ( token68 / #auth-param ) ]
            guard index > afterToken else { throw unexpected(at: index) }
            let contentStart = index
            let name = readToken()
            if !name.isEmpty {
                skipWhitespace()
                if peek == Self.equals {
                    var lookahead = index + 1
                    while lookahead < bytes.count, bytes[lookahead] == 0x20 || bytes[lookahead] == 0x09 {
                        lookahead += 1
                    }
                    if lookahead < bytes.count, bytes[lookahead] == Self.quote || HTTPSyntax.isTchar(bytes[lookahead]) {
                        // `name=value`: the first auth-param; the loop reads it.
                        index = contentStart
                        continue
                    }
                }
            }
            // token68 = 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"="
            index = contentStart
            while let byte = peek, HTTPSyntax.isToken68Char(byte) { index += 1 }
            guard index > contentStart else { throw unexpected(at: contentStart) }
            while peek == Self.equals { index += 1 }
            challenges[challenges.count - 1].token68 = String(decoding: bytes[contentStart..<index], as: UTF8.self)
            token68Offset = contentStart
            try expectSeparator()
        }
        return challenges
    }

    /// `#auth-param` with no scheme, as in `Authentication-Info`.
    /// [RFC 9110 §11.6.3](https://www.rfc-editor.org/rfc/rfc9110#section-11.6.3)
    mutating func parseParameters() throws -> [Parameter] {
        try readAuthParams(rejectingDuplicates: true)
    }

    /// Appends `parameter` unless its name (case-insensitively, RFC 9110 §11.2) is in `names`,
    /// the lowercased names of `challenge`'s parameters, which it joins.
    private func append(
        _ parameter: Parameter,
        offset: Int,
        to challenge: inout AuthenticationChallenge,
        names: inout Set<String>
    ) throws {
        // Names are tokens (ASCII), so `lowercased()` is ASCII case folding.
        guard names.insert(parameter.name.lowercased()).inserted else {
            throw ChallengeError(
                .duplicateParameter,
                "parameter '\(parameter.name)' at offset \(offset) appears twice in one challenge"
            )
        }
        challenge.parameters.append(parameter)
    }

    typealias Parameter = AuthenticationChallenge.Parameter
}

// MARK: - Credentials (`Authorization`, `Proxy-Authorization`)

extension AuthFieldParser {
    /// What follows the auth-scheme of one credentials value.
    struct CredentialsContent {
        /// The `token68`, when the credentials carry one (Basic).
        var token68: String?
        /// The auth-params in order, quoted-strings unescaped; names may repeat (the caller
        /// decides: OAuth 1.0a reports a repeated `oauth_*` parameter with its own code).
        var parameters: [AuthenticationChallenge.Parameter] = []
    }

    /// Reads the auth-scheme at the start of a credentials value, after any white space; empty
    /// when the value does not start with a token. Read it first, so a field of another scheme
    /// can be passed over without parsing the rest.
    /// [RFC 9110 §11.4](https://www.rfc-editor.org/rfc/rfc9110#section-11.4)
    mutating func readCredentialsScheme() -> String {
        skipWhitespace()
        return readToken()
    }

    /// The rest of a credentials value after ``readCredentialsScheme()``:
    /// `[ 1*SP ( token68 / #auth-param ) ]` and nothing else (one credentials value per field,
    /// unlike challenges). Empty elements of the list and white space around `=` and `,` are
    /// allowed, as in challenges.
    /// [RFC 9110 §11.4](https://www.rfc-editor.org/rfc/rfc9110#section-11.4),
    /// [§11.6.2](https://www.rfc-editor.org/rfc/rfc9110#section-11.6.2),
    /// [§11.2](https://www.rfc-editor.org/rfc/rfc9110#section-11.2)
    ///
    /// - Throws: ``ChallengeError`` for anything outside that grammar, with the offset.
    mutating func parseCredentialsContent() throws -> CredentialsContent {
        var content = CredentialsContent()
        let afterScheme = index
        skipWhitespace()
        guard let first = peek else { return content }
        // 1*SP: a space, not a tab, separates the scheme from what follows.
        guard index > afterScheme, bytes[afterScheme] == 0x20 else { throw unexpected(at: afterScheme) }
        // token68, unless the first token is followed by "=" and a value (an auth-param).
        let contentStart = index
        if first != Self.comma {
            let name = readToken()
            skipWhitespace()
            let isParameter: Bool
            if !name.isEmpty, peek == Self.equals {
                var lookahead = index + 1
                while lookahead < bytes.count, bytes[lookahead] == 0x20 || bytes[lookahead] == 0x09 { lookahead += 1 }
                isParameter =
                    lookahead < bytes.count && (bytes[lookahead] == Self.quote || HTTPSyntax.isTchar(bytes[lookahead]))
            } else {
                isParameter = false
            }
            index = contentStart
            if !isParameter {
                while let byte = peek, HTTPSyntax.isToken68Char(byte) { index += 1 }
                guard index > contentStart else { throw unexpected(at: contentStart) }
                while peek == Self.equals { index += 1 }
                content.token68 = String(decoding: bytes[contentStart..<index], as: UTF8.self)
                skipWhitespace()
                guard atEnd else { throw unexpected(at: index) }
                return content
            }
        }
        content.parameters = try readAuthParams(rejectingDuplicates: false)
        return content
    }

    /// `#auth-param` up to the end of the value: empty list elements skipped, `BWS "=" BWS`
    /// around the value. With `rejectingDuplicates`, a name given twice (case-insensitively) is
    /// ``ChallengeError/Code-swift.struct/duplicateParameter``.
    /// [RFC 9110 §11.2](https://www.rfc-editor.org/rfc/rfc9110#section-11.2)
    fileprivate mutating func readAuthParams(rejectingDuplicates: Bool) throws -> [AuthenticationChallenge.Parameter] {
        var holder = AuthenticationChallenge(scheme: "")
        var names: Set<String> = []
        while true {
            skipWhitespace()
            guard let byte = peek else { break }
            if byte == Self.comma {
                index += 1
                continue
            }
            let start = index
            let name = readToken()
            if name.isEmpty { throw unexpected(at: start) }
            skipWhitespace()
            guard peek == Self.equals else {
                if atEnd || peek == Self.comma {
                    throw ChallengeError(.missingValue, "parameter '\(name)' at offset \(start) has no value")
                }
                throw unexpected(at: index)
            }
            index += 1
            skipWhitespace()
            let parameter = AuthenticationChallenge.Parameter(
                name: name,
                value: try readValue(for: name, nameOffset: start)
            )
            if rejectingDuplicates {
                try append(parameter, offset: start, to: &holder, names: &names)
            } else {
                holder.parameters.append(parameter)
            }
            try expectSeparator()
        }
        return holder.parameters
    }
}
