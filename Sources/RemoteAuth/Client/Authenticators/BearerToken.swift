public import HTTPTypes

/// A fixed OAuth 2 bearer token, sent as `Authorization: Bearer <token>`.
/// [RFC 6750 §2.1](https://www.rfc-editor.org/rfc/rfc6750#section-2.1)
///
/// It cannot be renewed, so a refusal is the caller's; a token session
/// (``OAuth2/TokenSession``) renews its token. `description`, `debugDescription` and the mirror
/// hide the token, and `==` compares in constant time.
public struct BearerToken: Hashable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    private let token: Secret

    /// - Throws: ``ClientError/Code/invalidCredential`` when `token` is not a `b64token`
    ///   (`1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"="`), the only form that
    ///   may follow `Bearer `. [RFC 6750 §2.1](https://www.rfc-editor.org/rfc/rfc6750#section-2.1)
    public init(_ token: String) throws {
        var body = Substring(token)
        while body.last == "=" { body = body.dropLast() }
        guard !body.isEmpty, body.utf8.allSatisfy(HTTPSyntax.isToken68Char) else {
            throw ClientError(
                .invalidCredential,
                "a bearer token must be a non-empty b64token: letters, digits, -._~+/ then = padding (RFC 6750 §2.1)"
            )
        }
        self.token = Secret(token)
    }

    /// - Throws: as ``init(_:)-(String)``.
    public init(_ token: Secret) throws {
        try self.init(token.reveal())
    }

    /// The field value: `Bearer <token>`.
    public var authorization: String { "Bearer " + token.reveal() }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.token == rhs.token }
    public func hash(into hasher: inout Hasher) { hasher.combine(token) }
    public var description: String { "BearerToken(<redacted>)" }
    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: [:], displayStyle: .struct) }
}

/// A fixed token as a ``RequestAuthenticator``: `Authorization: Bearer <token>` on every attempt;
/// a refusal is the caller's (nothing to renew).
extension BearerToken: RequestAuthenticator {
    public var writtenFields: [HTTPField.Name] { [.authorization] }

    public func authenticate(_ attempt: inout AuthenticationAttempt) async throws {
        attempt.request.headerFields[.authorization] = authorization
    }
}
