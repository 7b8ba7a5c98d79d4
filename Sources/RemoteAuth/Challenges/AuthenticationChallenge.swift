public import HTTPTypes

/// One challenge from a `WWW-Authenticate` or `Proxy-Authenticate` field: an auth-scheme with
/// either a `token68` or a list of `auth-param`s.
/// [RFC 9110 §11.3](https://www.rfc-editor.org/rfc/rfc9110#section-11.3),
/// [RFC 9110 §11.6.1](https://www.rfc-editor.org/rfc/rfc9110#section-11.6.1)
public struct AuthenticationChallenge: Sendable, Hashable, CustomStringConvertible {
    /// One `auth-param`: `token BWS "=" BWS ( token / quoted-string )`, with the quoted-string
    /// already unescaped. [RFC 9110 §11.2](https://www.rfc-editor.org/rfc/rfc9110#section-11.2)
    public struct Parameter: Sendable, Hashable {
        /// The name as sent; compare it case-insensitively.
        public var name: String
        /// The value, unquoted and unescaped.
        public var value: String
        /// A parameter named `name` with the unquoted, unescaped `value`.
        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    /// The auth-scheme as sent (`Digest`, `basic`, …); compare it case-insensitively
    /// ([RFC 9110 §11.1](https://www.rfc-editor.org/rfc/rfc9110#section-11.1)), or use
    /// ``hasScheme(_:)``.
    public var scheme: String
    /// The `token68` form, including any trailing `=` padding, or `nil`.
    public var token68: String?
    /// The parameters in the order they were sent.
    public var parameters: [Parameter]

    /// A challenge for `scheme` with either a `token68` or `parameters` (in the order to send them).
    public init(scheme: String, token68: String? = nil, parameters: [Parameter] = []) {
        self.scheme = scheme
        self.token68 = token68
        self.parameters = parameters
    }

    /// The value of the parameter named `name`, compared case-insensitively
    /// ([RFC 9110 §11.2](https://www.rfc-editor.org/rfc/rfc9110#section-11.2): "Parameter
    /// names are matched case-insensitively").
    public func parameter(_ name: String) -> String? {
        parameters.first(where: { asciiCaseInsensitiveEquals($0.name, name) })?.value
    }

    /// Whether ``scheme`` equals `name`, case-insensitively.
    /// [RFC 9110 §11.1](https://www.rfc-editor.org/rfc/rfc9110#section-11.1)
    public func hasScheme(_ name: String) -> Bool {
        asciiCaseInsensitiveEquals(scheme, name)
    }

    /// Renders the challenge as a field value: values that are tokens are written bare, others
    /// as quoted-strings with `"` and `\` escaped.
    /// [RFC 9110 §11.2](https://www.rfc-editor.org/rfc/rfc9110#section-11.2),
    /// [RFC 9110 §5.6.4](https://www.rfc-editor.org/rfc/rfc9110#section-5.6.4)
    public var headerValue: String {
        if let token68 { return scheme + " " + token68 }
        if parameters.isEmpty { return scheme }
        let rendered = parameters.map { parameter in
            parameter.name + "="
                + (HTTPSyntax.isToken(parameter.value)
                    ? parameter.value : HTTPSyntax.quotedString(parameter.value))
        }
        return scheme + " " + rendered.joined(separator: ", ")
    }

    public var description: String { headerValue }

    /// Parses a field value that holds one or more challenges, separated by commas as are
    /// their parameters.
    /// [RFC 9110 §11.6.1](https://www.rfc-editor.org/rfc/rfc9110#section-11.6.1)
    ///
    /// A token followed by `=` is a parameter of the current challenge; any other token starts
    /// a new challenge. After a scheme and whitespace, a `token68` (letters, digits,
    /// `-._~+/`, then `=` padding) is taken when it is not followed by `=` and a value. Empty
    /// list elements and optional whitespace are skipped
    /// ([RFC 9110 §5.6.1](https://www.rfc-editor.org/rfc/rfc9110#section-5.6.1)).
    ///
    /// - Throws: ``ChallengeError`` naming the byte offset: unterminated quoted-string, a
    ///   parameter without value, a bad character, a parameter before any scheme, a duplicate
    ///   parameter name in one challenge, or parameters after a `token68`.
    public static func parse(_ fieldValue: String) throws -> [AuthenticationChallenge] {
        var parser = AuthFieldParser(fieldValue)
        return try parser.parseChallenges()
    }

    /// Parses every field named `name` (each may hold several challenges), in field order, and
    /// fails when any of them is malformed; ``parseEachField(_:name:)`` keeps the good ones.
    /// Read with `fields[values: name]`, so repeated fields are all seen.
    /// [RFC 9110 §11.6.1](https://www.rfc-editor.org/rfc/rfc9110#section-11.6.1)
    ///
    /// - Throws: ``ChallengeError`` whose reason names the field (by name and 1-based index)
    ///   and the offset within it.
    public static func parse(
        _ fields: HTTPFields,
        name: HTTPField.Name = .wwwAuthenticate
    ) throws -> [AuthenticationChallenge] {
        let parsed = parseEachField(fields, name: name)
        if let error = parsed.errors.first { throw error }
        return parsed.challenges
    }
}

/// ASCII case-insensitive comparison, as RFC 9110 uses for schemes and parameter names.
func asciiCaseInsensitiveEquals(_ a: String, _ b: String) -> Bool {
    guard a.utf8.count == b.utf8.count else { return false }
    var a = a
    var b = b
    return a.withUTF8 { x in b.withUTF8 { y in x.elementsEqual(y) { asciiLowercase($0) == asciiLowercase($1) } } }
}

@inline(__always)
func asciiLowercase(_ byte: UInt8) -> UInt8 {
    (0x41...0x5A).contains(byte) ? byte | 0x20 : byte
}
