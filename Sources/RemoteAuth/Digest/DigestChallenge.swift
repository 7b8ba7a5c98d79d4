/// A `Digest` challenge, decoded from a `WWW-Authenticate` challenge (client side) or built to
/// send one (server side).
/// [RFC 7616 §3.3](https://www.rfc-editor.org/rfc/rfc7616#section-3.3)
public struct DigestChallenge: Sendable, Hashable, CustomStringConvertible {
    /// `realm`: shown to users, and part of HA1.
    public var realm: String
    /// `domain`: the space-separated URIs of the protection space, split.
    public var domain: [String]
    /// `nonce`: server-chosen, opaque to the client.
    public var nonce: String
    /// `opaque`: returned unchanged by the client.
    public var opaque: String?
    /// `stale`: the previous request's nonce was stale, not its credentials.
    public var stale: Bool
    /// `algorithm` as named by the challenge, or `nil` when it named none (then MD5 applies,
    /// and the client writes its response in RFC 2617 parameter order).
    public var algorithm: DigestAlgorithm?
    /// `qop` options offered; empty for an RFC 2069 challenge.
    public var qop: [DigestQOP]
    /// `charset`: only `UTF-8` is defined.
    public var charset: String?
    /// `userhash`: the server accepts a hashed username.
    public var userhash: Bool

    /// The algorithm in effect: ``algorithm``, or MD5 when none was named.
    /// [RFC 7616 §3.3](https://www.rfc-editor.org/rfc/rfc7616#section-3.3)
    public var effectiveAlgorithm: DigestAlgorithm { algorithm ?? .md5 }

    /// A challenge to send (server side).
    ///
    /// - Throws: ``DigestError`` with ``DigestError/Code/unsupportedAlgorithm`` for an
    ///   algorithm this package cannot verify, and ``DigestError/Code/invalidParameter`` when a
    ///   value contains a control character (it could not be written as a quoted-string).
    public init(
        realm: String,
        nonce: String,
        domain: [String] = [],
        opaque: String? = nil,
        stale: Bool = false,
        algorithm: DigestAlgorithm? = .sha256,
        qop: [DigestQOP] = [.auth],
        charset: String? = "UTF-8",
        userhash: Bool = false
    ) throws {
        if let algorithm, !algorithm.isSupported {
            throw DigestError(.unsupportedAlgorithm, "algorithm '\(algorithm.rawValue)' is not supported")
        }
        let values: [(String, String?)] = [
            ("realm", realm), ("nonce", nonce), ("domain", domain.joined(separator: " ")), ("opaque", opaque),
            ("charset", charset),
        ]
        for (name, value) in values where value.map({ !HTTPSyntax.isQuotable($0) }) ?? false {
            throw DigestError(.invalidParameter, "'\(name)' contains a control character")
        }
        for option in qop where !HTTPSyntax.isToken(option.rawValue) {
            throw DigestError(.invalidParameter, "qop option '\(option.rawValue)' is not a token")
        }
        self.realm = realm
        self.nonce = nonce
        self.domain = domain
        self.opaque = opaque
        self.stale = stale
        self.algorithm = algorithm
        self.qop = qop
        self.charset = charset
        self.userhash = userhash
    }

    /// Decodes a parsed challenge.
    /// [RFC 7616 §3.3](https://www.rfc-editor.org/rfc/rfc7616#section-3.3)
    ///
    /// - Throws: ``DigestError`` with ``DigestError/Code/malformedChallenge`` when the scheme
    ///   is not `Digest` or `realm` or `nonce` is missing, and
    ///   ``DigestError/Code/unsupportedAlgorithm`` for an unknown `algorithm`.
    public init(_ challenge: AuthenticationChallenge) throws {
        guard challenge.hasScheme("Digest") else {
            throw DigestError(.malformedChallenge, "challenge scheme '\(challenge.scheme)' is not Digest")
        }
        guard challenge.token68 == nil else {
            throw DigestError(.malformedChallenge, "a Digest challenge has parameters, not a token68")
        }
        guard let realm = challenge.parameter("realm") else {
            throw DigestError(.malformedChallenge, "Digest challenge has no 'realm'")
        }
        guard let nonce = challenge.parameter("nonce") else {
            throw DigestError(.malformedChallenge, "Digest challenge has no 'nonce'")
        }
        if let name = challenge.parameter("algorithm") {
            let algorithm = DigestAlgorithm(rawValue: name)
            guard algorithm.isSupported else {
                throw DigestError(.unsupportedAlgorithm, "algorithm '\(name)' is not supported")
            }
            self.algorithm = algorithm
        } else {
            self.algorithm = nil
        }
        self.realm = realm
        self.nonce = nonce
        self.domain = challenge.parameter("domain").map(Self.splitList(spaces:)) ?? []
        self.opaque = challenge.parameter("opaque")
        self.stale = challenge.parameter("stale").map { asciiCaseInsensitiveEquals($0, "true") } ?? false
        // qop-options = "qop" "=" DQUOTE 1#qop-value DQUOTE: a comma-separated list inside quotes.
        self.qop = challenge.parameter("qop").map { Self.splitList(commas: $0).map(DigestQOP.init(rawValue:)) } ?? []
        self.charset = challenge.parameter("charset")
        self.userhash = challenge.parameter("userhash").map { asciiCaseInsensitiveEquals($0, "true") } ?? false
    }

    /// Parses a `WWW-Authenticate` value and decodes its strongest `Digest` challenge that this
    /// package can answer (as ``AuthenticationChallenge/preferred(_:)`` ranks them; the first
    /// among equals). A server may offer one Digest challenge per algorithm
    /// ([RFC 7616 §3.7](https://www.rfc-editor.org/rfc/rfc7616#section-3.7)).
    ///
    /// - Throws: ``DigestError/Code/malformedChallenge`` when the value does not parse (the
    ///   reason carries the ``ChallengeError``'s) or holds no Digest challenge; when no Digest
    ///   challenge can be answered, the error of decoding the first one (see ``init(_:)``).
    public init(headerValue: String) throws {
        let challenges: [AuthenticationChallenge]
        do {
            challenges = try AuthenticationChallenge.parse(headerValue)
        } catch let error as ChallengeError {
            throw DigestError(.malformedChallenge, "\(error.code): \(error.reason)")
        }
        let digests = challenges.filter { $0.hasScheme("Digest") }
        guard let first = digests.first else {
            throw DigestError(.malformedChallenge, "no Digest challenge in the value")
        }
        var best: (challenge: DigestChallenge, strength: Int)?
        for candidate in digests {
            guard let decoded = try? DigestChallenge(candidate), let strength = decoded.strength else { continue }
            if best.map({ strength > $0.strength }) ?? true { best = (decoded, strength) }
        }
        if let best {
            self = best.challenge
        } else {
            try self.init(first)
        }
    }

    /// The `WWW-Authenticate` value to send, parameters in RFC 7616 §3.3 order: `realm`,
    /// `domain`, `nonce`, `opaque`, `stale`, `algorithm`, `qop`, `charset`, `userhash`.
    /// [RFC 7616 §3.3](https://www.rfc-editor.org/rfc/rfc7616#section-3.3)
    public var headerValue: String {
        var parts = ["realm=" + HTTPSyntax.quotedString(realm)]
        if !domain.isEmpty { parts.append("domain=" + HTTPSyntax.quotedString(domain.joined(separator: " "))) }
        parts.append("nonce=" + HTTPSyntax.quotedString(nonce))
        if let opaque { parts.append("opaque=" + HTTPSyntax.quotedString(opaque)) }
        if stale { parts.append("stale=true") }
        if let algorithm { parts.append("algorithm=" + algorithm.rawValue) }
        if !qop.isEmpty {
            parts.append("qop=" + HTTPSyntax.quotedString(qop.map(\.rawValue).joined(separator: ", ")))
        }
        if let charset {
            parts.append("charset=" + (HTTPSyntax.isToken(charset) ? charset : HTTPSyntax.quotedString(charset)))
        }
        if userhash { parts.append("userhash=true") }
        return "Digest " + parts.joined(separator: ", ")
    }

    public var description: String { headerValue }

    static func splitList(commas value: String) -> [String] {
        value.split(separator: ",").map(trimmed).filter { !$0.isEmpty }
    }

    static func splitList(spaces value: String) -> [String] {
        value.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
    }

    static func trimmed(_ part: Substring) -> String {
        String(
            part.drop(while: { $0 == " " || $0 == "\t" }).reversed().drop(while: { $0 == " " || $0 == "\t" }).reversed()
        )
    }
}
