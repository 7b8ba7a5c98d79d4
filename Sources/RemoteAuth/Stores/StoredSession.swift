/// A signed-in session of any protocol, as a ``TokenStore`` keeps it: an OAuth 1.0a session
/// or an OAuth 2 session, in the same stores.
///
/// Encoded as `{"kind": "oauth1", "oauth1": {…}}` or `{"kind": "oauth2", "oauth2": {…}}`; an
/// object without `kind` is an OAuth 1.0a session as stores wrote them before sessions of other
/// protocols existed. `description` redacts every secret.
public enum StoredSession: Sendable, Hashable, Codable, CustomStringConvertible {
    case oauth1(OAuth1.Session)
    case oauth2(OAuth2.Session)

    /// The OAuth 1.0a session, if this is one.
    public var oauth1: OAuth1.Session? {
        guard case .oauth1(let session) = self else { return nil }
        return session
    }

    /// The OAuth 2 session, if this is one.
    public var oauth2: OAuth2.Session? {
        guard case .oauth2(let session) = self else { return nil }
        return session
    }

    public var description: String {
        switch self {
        case .oauth1(let session): return "OAuth1.\(session)"
        case .oauth2(let session): return "\(session)"
        }
    }

    private enum CodingKeys: String, CodingKey { case kind, oauth1, oauth2 }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        guard let kind = try container.decodeIfPresent(String.self, forKey: .kind) else {
            self = .oauth1(try OAuth1.Session(from: decoder))
            return
        }
        switch kind {
        case "oauth1":
            self = .oauth1(try container.decode(OAuth1.Session.self, forKey: .oauth1))
        case "oauth2":
            self = .oauth2(try container.decode(OAuth2.Session.self, forKey: .oauth2))
        default:
            throw DecodingError.dataCorruptedError(
                forKey: .kind,
                in: container,
                debugDescription: "unknown session kind '\(kind)'"
            )
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .oauth1(let session):
            try container.encode("oauth1", forKey: .kind)
            try container.encode(session, forKey: .oauth1)
        case .oauth2(let session):
            try container.encode("oauth2", forKey: .kind)
            try container.encode(session, forKey: .oauth2)
        }
    }
}
