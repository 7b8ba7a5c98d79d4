public import HTTPTypes

/// Something that authorizes requests to a scope by itself and can react once to a challenge:
/// the seam for token schemes, where the credential is not a password the client answers a
/// challenge with, but a token sent up front and renewed by its owner.
///
/// - `Bearer` ([RFC 6750 §2.1](https://www.rfc-editor.org/rfc/rfc6750#section-2.1)):
///   ``BearerToken`` sends a fixed token; an OAuth 2 token session refreshes its token once
///   when a `401` says `error="invalid_token"`
///   ([RFC 6750 §3.1](https://www.rfc-editor.org/rfc/rfc6750#section-3.1)).
/// - `DPoP` ([RFC 9449 §7.1](https://www.rfc-editor.org/rfc/rfc9449#section-7.1)): the token
///   in `Authorization: DPoP …` plus a proof in a `DPoP` field, signed over the request's method
///   and URL (``authorization(for:body:)`` sees both); `use_dpop_nonce` is answered by a retry
///   with the server's nonce ([RFC 9449 §9](https://www.rfc-editor.org/rfc/rfc9449#section-9)),
///   and ``received(_:)`` sees every `DPoP-Nonce` the server sends.
///
/// ``AuthenticatingClient`` finds one through ``CredentialStore/authorizer(for:)``, adds its
/// authorization to every request to the scope's origin (never after a redirect to another
/// origin, never over plain `http` except loopback or an opt-in), and when that request is
/// challenged asks ``reaction(to:in:)`` once: a second challenge is an
/// ``ClientError/Code/authenticationFailed``, so a refresh never loops.
public protocol RequestAuthorizer: Sendable {
    /// The auth-scheme written and answered (`Bearer`, `DPoP`), compared case-insensitively
    /// with challenges. [RFC 9110 §11.1](https://www.rfc-editor.org/rfc/rfc9110#section-11.1)
    var scheme: String { get }

    /// The authorization for `request` (its method and absolute URL final), asked before each
    /// send, including the retry after ``reaction(to:in:)`` returned ``ChallengeReaction/retry``.
    func authorization(for request: HTTPRequest, body: [UInt8]?) async throws -> RequestAuthorization

    /// The server challenged a request that carried this authorizer's authorization (`401`, or
    /// `407` for a proxy). `challenge` is the first challenge of ``scheme`` in the response, or
    /// `nil` when there is none. Asked at most once per request.
    func reaction(to challenge: AuthenticationChallenge?, in response: HTTPResponse) async throws -> ChallengeReaction

    /// The same question, told which authorization was refused: a token session refreshes only
    /// when the refused token is its current one (another request may have refreshed since).
    /// The client asks this one; the default forwards to ``reaction(to:in:)``.
    func reaction(
        to challenge: AuthenticationChallenge?,
        in response: HTTPResponse,
        refusing authorization: RequestAuthorization
    ) async throws -> ChallengeReaction

    /// Every response to a request that carried this authorizer's authorization, challenged or
    /// not (a `DPoP-Nonce` can come with a `200`). The default does nothing.
    func received(_ response: HTTPResponse) async

    /// The same, told which authorization the request carried (a DPoP proof names the URL
    /// whose origin gave a `DPoP-Nonce`). The client calls this one; the default forwards to
    /// ``received(_:)``.
    func received(_ response: HTTPResponse, answering authorization: RequestAuthorization) async
}

extension RequestAuthorizer {
    public func received(_ response: HTTPResponse) async {}

    public func received(_ response: HTTPResponse, answering authorization: RequestAuthorization) async {
        await received(response)
    }

    public func reaction(
        to challenge: AuthenticationChallenge?,
        in response: HTTPResponse,
        refusing authorization: RequestAuthorization
    ) async throws -> ChallengeReaction {
        try await reaction(to: challenge, in: response)
    }
}

/// What a ``RequestAuthorizer`` does about a challenge.
public enum ChallengeReaction: Sendable, Hashable {
    /// Send the request once more, with a fresh ``RequestAuthorizer/authorization(for:body:)``
    /// (a refreshed token, a proof with the server's nonce).
    case retry
    /// Stop: the client throws ``ClientError/Code/authenticationFailed`` with the challenge.
    case giveUp
}

/// The fields that authorize one request: the credentials of the authorization field
/// (`Authorization`, or `Proxy-Authorization` for a proxy), and any other fields the scheme
/// needs. `description` shows only the scheme.
public struct RequestAuthorization: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    /// The field value: `auth-scheme [ 1*SP ( token68 / #auth-param ) ]`, such as
    /// `Bearer mF_9.B5f-4.1JqM`. [RFC 9110 §11.4](https://www.rfc-editor.org/rfc/rfc9110#section-11.4)
    public var credentials: String
    /// Fields sent beside it, such as DPoP's `DPoP` proof.
    public var additionalFields: HTTPFields

    public init(credentials: String, additionalFields: HTTPFields = [:]) {
        self.credentials = credentials
        self.additionalFields = additionalFields
    }

    public static func == (lhs: Self, rhs: Self) -> Bool {
        constantTimeEquals(lhs.credentials, rhs.credentials) && lhs.additionalFields == rhs.additionalFields
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(additionalFields)
    }

    public var description: String {
        let scheme = credentials.split(separator: " ", maxSplits: 1).first.map(String.init) ?? ""
        let names = additionalFields.map(\.name.rawName)
        return "RequestAuthorization(\(scheme) <redacted>" + (names.isEmpty ? ")" : ", fields: \(names))")
    }

    /// `dump` and debuggers show neither the credentials nor the additional fields' values.
    public var customMirror: Mirror { Mirror(self, children: [:], displayStyle: .struct) }

    public var debugDescription: String { description }
}

/// A ``RequestAuthorizer`` with the scope it may authorize, and whether it may cross plain
/// `http`.
public struct ScopedAuthorizer: Sendable, CustomStringConvertible {
    /// The origin the authorizer is used for (its realm is ignored: token schemes are sent
    /// before any challenge names one).
    public let scope: AuthScope
    public let authorizer: any RequestAuthorizer
    /// The caller's opt-in to send the authorization over plain `http` to a host that is not
    /// loopback. Off by default.
    public let allowsPlainHTTP: Bool

    public init(scope: AuthScope, authorizer: any RequestAuthorizer, allowsPlainHTTP: Bool = false) {
        self.scope = scope.origin
        self.authorizer = authorizer
        self.allowsPlainHTTP = allowsPlainHTTP
    }

    public var description: String {
        "\(authorizer.scheme) authorizer for \(scope)" + (allowsPlainHTTP ? " (plain http allowed)" : "")
    }
}
