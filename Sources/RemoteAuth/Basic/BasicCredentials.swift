/// A user-id and password for the `Basic` authentication scheme.
/// [RFC 7617 §2](https://www.rfc-editor.org/rfc/rfc7617#section-2)
///
/// `description` and `debugDescription` show the user-id and hide the password.
///
/// - Warning: Basic sends the password in the clear (Base64 is an encoding, not encryption).
///   Use it only over TLS.
public struct BasicCredentials: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    /// How the user-id and password are turned into octets before Base64.
    /// [RFC 7617 §2.1](https://www.rfc-editor.org/rfc/rfc7617#section-2.1)
    public enum Encoding: Sendable, Hashable {
        /// UTF-8, what a server announces with `charset="UTF-8"`; the default.
        case utf8
        /// ISO-8859-1, the legacy behaviour of many clients when no charset is announced.
        /// Characters outside Latin-1 are an error (``BasicError/Code/unencodableCharacter``).
        case isoLatin1
    }

    /// The user-id; never contains a colon or a control character.
    public let user: String
    /// The password; may contain colons, never control characters.
    public let password: Secret
    /// How the user-id and password are turned into octets before Base64 (UTF-8 or ISO-8859-1).
    public let encoding: Encoding

    /// Checks the user-id and password.
    ///
    /// - Throws: ``BasicError`` with ``BasicError/Code/invalidUserID`` when `user` contains a
    ///   colon ([RFC 7617 §2](https://www.rfc-editor.org/rfc/rfc7617#section-2): "a user-id
    ///   containing a colon character is invalid") or a control character,
    ///   ``BasicError/Code/invalidPassword`` when `password` contains a control character
    ///   (ibid.: "MUST NOT contain any control characters"), and
    ///   ``BasicError/Code/unencodableCharacter`` when `encoding` is ``Encoding/isoLatin1`` and
    ///   a character is outside Latin-1.
    public init(user: String, password: Secret, encoding: Encoding = .utf8) throws {
        let revealed = password.reveal()
        if let offset = user.unicodeScalars.firstIndex(where: { $0 == ":" }) {
            let position = user.unicodeScalars.distance(from: user.unicodeScalars.startIndex, to: offset)
            throw BasicError(.invalidUserID, "user-id contains a colon at character \(position) (RFC 7617 §2)")
        }
        if let position = Self.firstControlCharacter(in: user) {
            throw BasicError(.invalidUserID, "user-id contains a control character at character \(position)")
        }
        if Self.firstControlCharacter(in: revealed) != nil {
            throw BasicError(.invalidPassword, "password contains a control character")
        }
        if encoding == .isoLatin1 {
            if user.unicodeScalars.contains(where: { $0.value > 0xFF }) {
                throw BasicError(.unencodableCharacter, "user-id has a character outside ISO-8859-1")
            }
            if revealed.unicodeScalars.contains(where: { $0.value > 0xFF }) {
                throw BasicError(.unencodableCharacter, "password has a character outside ISO-8859-1")
            }
        }
        self.user = user
        self.password = password
        self.encoding = encoding
    }

    /// The same, the password given as a plain string.
    public init(user: String, password: String, encoding: Encoding = .utf8) throws {
        try self.init(user: user, password: Secret(password), encoding: encoding)
    }

    /// `user-id ":" password` in the chosen encoding, Base64-encoded: the `token68` after
    /// `Basic `. [RFC 7617 §2](https://www.rfc-editor.org/rfc/rfc7617#section-2)
    public var encodedCredentials: String {
        RemoteAuthBase64.encode(Self.octets(user + ":" + password.reveal(), encoding))
    }

    /// The `Authorization` field value: `Basic ` + Base64(user-id ":" password).
    /// [RFC 7617 §2](https://www.rfc-editor.org/rfc/rfc7617#section-2)
    public var authorization: String { "Basic " + encodedCredentials }

    /// Reads a received `Authorization` field value (server side).
    ///
    /// The scheme is matched case-insensitively
    /// ([RFC 9110 §11.1](https://www.rfc-editor.org/rfc/rfc9110#section-11.1)), followed by one
    /// or more spaces and the Base64 `token68`
    /// ([RFC 9110 §11.4](https://www.rfc-editor.org/rfc/rfc9110#section-11.4)). The decoded
    /// octets are split at the first colon; the password may itself contain colons and may be
    /// empty. [RFC 7617 §2](https://www.rfc-editor.org/rfc/rfc7617#section-2)
    ///
    /// - Throws: ``BasicError`` with ``BasicError/Code/wrongScheme`` or
    ///   ``BasicError/Code/malformedCredentials`` (bad Base64, no colon, invalid UTF-8), or the
    ///   errors of ``init(user:password:encoding:)-(_,Secret,_)`` for what was decoded.
    public init(authorization fieldValue: String, encoding: Encoding = .utf8) throws {
        var parser = AuthFieldParser(fieldValue)
        guard asciiCaseInsensitiveEquals(parser.readCredentialsScheme(), "Basic") else {
            throw BasicError(.wrongScheme, "Authorization value does not use the Basic scheme")
        }
        let content: AuthFieldParser.CredentialsContent
        do {
            content = try parser.parseCredentialsContent()
        } catch {
            // The parser's reason may quote a byte of the credentials: say only what is wrong.
            throw BasicError(.malformedCredentials, "expected 'Basic', one space and one token68 (RFC 9110 §11.4)")
        }
        guard content.parameters.isEmpty else {
            throw BasicError(.malformedCredentials, "Basic credentials are a token68, not parameters")
        }
        guard let token = content.token68 else {
            throw BasicError(.malformedCredentials, "Basic credentials are empty")
        }
        guard let decoded = RemoteAuthBase64.decode(token) else {
            throw BasicError(.malformedCredentials, "Basic credentials are not valid Base64 (RFC 4648 §4, padded)")
        }
        guard let colon = decoded.firstIndex(of: UInt8(ascii: ":")) else {
            throw BasicError(.malformedCredentials, "decoded Basic credentials contain no colon")
        }
        let userBytes = decoded[..<colon]
        let passwordBytes = decoded[(colon + 1)...]
        let user: String
        let password: Secret
        switch encoding {
        case .utf8:
            guard let u = Self.strictUTF8(userBytes) else {
                throw BasicError(.malformedCredentials, "decoded user-id is not valid UTF-8")
            }
            guard let p = Self.strictUTF8(passwordBytes) else {
                throw BasicError(.malformedCredentials, "decoded password is not valid UTF-8")
            }
            user = u
            password = Secret(p)
        case .isoLatin1:
            user = Self.latin1String(userBytes)
            password = Secret(Self.latin1String(passwordBytes))
        }
        try self.init(user: user, password: password, encoding: encoding)
    }

    /// Compares `candidate` with the password in constant time, for a server checking
    /// received credentials against a stored password.
    public func hasPassword(_ candidate: String) -> Bool {
        password.matches(candidate)
    }

    /// Compares `candidate` with the password in constant time.
    public func hasPassword(_ candidate: Secret) -> Bool {
        password == candidate
    }

    public var description: String { "BasicCredentials(user: \(user), password: <redacted>)" }
    public var debugDescription: String {
        "BasicCredentials(user: \(String(reflecting: user)), password: <redacted>, encoding: \(encoding))"
    }
    public var customMirror: Mirror {
        Mirror(self, children: ["user": user, "password": password, "encoding": encoding], displayStyle: .struct)
    }

    // MARK: - Helpers

    /// Position (in Unicode scalars) of the first `CTL` (%x00-1F / %x7F).
    /// [RFC 5234 Appendix B.1](https://www.rfc-editor.org/rfc/rfc5234#appendix-B.1)
    static func firstControlCharacter(in string: String) -> Int? {
        for (position, scalar) in string.unicodeScalars.enumerated()
        where scalar.value < 0x20 || scalar.value == 0x7F {
            return position
        }
        return nil
    }

    private static func octets(_ string: String, _ encoding: Encoding) -> [UInt8] {
        switch encoding {
        case .utf8:
            return Array(string.utf8)
        case .isoLatin1:
            // Checked in init: every scalar is ≤ 0xFF.
            return string.unicodeScalars.map { UInt8(truncatingIfNeeded: $0.value) }
        }
    }

    private static func strictUTF8(_ bytes: ArraySlice<UInt8>) -> String? {
        String(validatingUTF8Bytes: bytes)
    }

    private static func latin1String(_ bytes: ArraySlice<UInt8>) -> String {
        var scalars = String.UnicodeScalarView()
        for byte in bytes { scalars.append(Unicode.Scalar(byte)) }
        return String(scalars)
    }
}
