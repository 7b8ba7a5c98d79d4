#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A signed-in session of any scheme, as a ``TokenStore`` keeps it: a ``Kind`` and its payload,
/// an open registry. OAuth 1.0a and OAuth 2 sessions are typed (``oauth1(_:)``, ``oauth2(_:)``);
/// any other scheme stores its own `Codable` payload under its own kind
/// (``init(kind:payload:)``, ``payload(_:kind:)``), and a kind this release does not know is kept as
/// it was read and written back unchanged, so a new scheme's credentials break no `switch` and
/// no older reader.
///
/// Encoded as `{"kind": K, K: {…}}`; an object without `kind` is an OAuth 1.0a session as stores
/// wrote them before sessions of other protocols existed. `description` redacts every secret
/// and never shows another kind's payload.
public struct StoredSession: Sendable, Hashable, Codable, CustomStringConvertible, CustomReflectable {
    /// A session's scheme: `oauth1`, `oauth2`, or any other name a scheme registers.
    public struct Kind: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }
        /// An OAuth 1.0a session (``OAuth1/Session``).
        public static let oauth1 = Kind(rawValue: "oauth1")
        /// An OAuth 2 session (``OAuth2/Session``).
        public static let oauth2 = Kind(rawValue: "oauth2")

        public init(from decoder: any Decoder) throws {
            rawValue = try decoder.singleValueContainer().decode(String.self)
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(rawValue)
        }
    }

    private enum Storage: Sendable, Hashable {
        case oauth1(OAuth1.Session)
        case oauth2(OAuth2.Session)
        /// Another scheme's payload, as JSON.
        case other(Kind, JSONValue)
    }

    private let storage: Storage

    private init(_ storage: Storage) { self.storage = storage }

    /// An OAuth 1.0a session.
    public static func oauth1(_ session: OAuth1.Session) -> StoredSession { StoredSession(.oauth1(session)) }

    /// An OAuth 2 session.
    public static func oauth2(_ session: OAuth2.Session) -> StoredSession { StoredSession(.oauth2(session)) }

    /// Another scheme's session: `payload` encoded under `kind`.
    ///
    /// - Throws: the payload's encoding error; ``StoredSessionError`` when `kind` is `oauth1` or
    ///   `oauth2` (use ``oauth1(_:)`` and ``oauth2(_:)``).
    public init(kind: Kind, payload: some Encodable & Sendable) throws {
        guard kind != .oauth1, kind != .oauth2 else {
            throw StoredSessionError("'\(kind)' is a built-in kind: use StoredSession.\(kind)(_:)")
        }
        let data = try JSONEncoder().encode(payload)
        storage = .other(kind, try JSONDecoder().decode(JSONValue.self, from: data))
    }

    /// The session's scheme.
    public var kind: Kind {
        switch storage {
        case .oauth1: return .oauth1
        case .oauth2: return .oauth2
        case .other(let kind, _): return kind
        }
    }

    /// The OAuth 1.0a session, if this is one.
    public var oauth1: OAuth1.Session? {
        guard case .oauth1(let session) = storage else { return nil }
        return session
    }

    /// The OAuth 2 session, if this is one.
    public var oauth2: OAuth2.Session? {
        guard case .oauth2(let session) = storage else { return nil }
        return session
    }

    /// Another scheme's payload decoded as `type`, or `nil` when this session is of another kind.
    ///
    /// - Throws: the decoding error of a payload of `kind` that is not a `type`.
    public func payload<Payload: Decodable>(_ type: Payload.Type, kind: Kind) throws -> Payload? {
        guard case .other(let found, let json) = storage, found == kind else { return nil }
        return try JSONDecoder().decode(type, from: JSONEncoder().encode(json))
    }

    public var description: String {
        switch storage {
        case .oauth1(let session): return "OAuth1.\(session)"
        case .oauth2(let session): return "\(session)"
        case .other(let kind, _): return "StoredSession(kind: \(kind), <redacted>)"
        }
    }

    /// `dump` shows the kind and the description, never another kind's payload.
    public var customMirror: Mirror {
        Mirror(self, children: ["kind": kind.rawValue, "session": description], displayStyle: .struct)
    }

    private struct DynamicKey: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }
        init(_ string: String) { stringValue = string }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: DynamicKey.self)
        guard let kind = try container.decodeIfPresent(Kind.self, forKey: DynamicKey("kind")) else {
            storage = .oauth1(try OAuth1.Session(from: decoder))
            return
        }
        switch kind {
        case .oauth1: storage = .oauth1(try container.decode(OAuth1.Session.self, forKey: DynamicKey("oauth1")))
        case .oauth2: storage = .oauth2(try container.decode(OAuth2.Session.self, forKey: DynamicKey("oauth2")))
        default:
            guard !kind.rawValue.isEmpty, kind.rawValue != "kind" else {
                throw DecodingError.dataCorruptedError(
                    forKey: DynamicKey("kind"),
                    in: container,
                    debugDescription: "a session's kind must be a name other than 'kind'"
                )
            }
            storage = .other(kind, try container.decode(JSONValue.self, forKey: DynamicKey(kind.rawValue)))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: DynamicKey.self)
        try container.encode(kind, forKey: DynamicKey("kind"))
        switch storage {
        case .oauth1(let session): try container.encode(session, forKey: DynamicKey("oauth1"))
        case .oauth2(let session): try container.encode(session, forKey: DynamicKey("oauth2"))
        case .other(let kind, let payload): try container.encode(payload, forKey: DynamicKey(kind.rawValue))
        }
    }
}

/// A session that cannot be made as asked.
public struct StoredSessionError: CodedError {
    public let reason: String
    public var code: String { "invalidSession" }
    /// Creates the error with `reason`, in plain words.
    public init(_ reason: String) { self.reason = reason }
    public var description: String { "StoredSessionError: \(reason)" }
}
