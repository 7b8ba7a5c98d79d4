public import HTTPTypes

/// A received `Authorization: Digest …` value (server side).
/// [RFC 7616 §3.4](https://www.rfc-editor.org/rfc/rfc7616#section-3.4)
public struct DigestAuthorization: Sendable, Hashable {
    /// The username: decoded from `username*` if that was sent; the userhash when
    /// ``userhash`` is on (find the user with ``matchesUserhash(of:)``).
    public let username: String
    /// `userhash=true`: ``username`` is `H(username:realm)`.
    public let userhash: Bool
    /// `realm`: the protection space the client answered.
    public let realm: String
    /// `nonce`: the server nonce the client used.
    public let nonce: String
    /// `uri`: the request-target the client signed.
    public let uri: String
    /// `response`: the client's request-digest.
    public let response: String
    /// `algorithm`, `nil` when not sent (MD5).
    public let algorithm: DigestAlgorithm?
    /// `qop`, `nil` in RFC 2069 mode.
    public let qop: DigestQOP?
    /// `nc`, decoded from 8 hex digits; present exactly when ``qop`` is.
    public let nonceCount: UInt32?
    /// `nc` as sent, for recomputing the response byte for byte.
    let nonceCountText: String?
    /// `cnonce`: the client nonce, present exactly when ``qop`` is.
    public let cnonce: String?
    /// `opaque`: echoed from the challenge.
    public let opaque: String?
    /// Every parameter as received, in order.
    public let parameters: [AuthenticationChallenge.Parameter]

    /// The algorithm in effect: ``algorithm`` or MD5.
    public var effectiveAlgorithm: DigestAlgorithm { algorithm ?? .md5 }

    /// Decodes parsed credentials.
    /// [RFC 7616 §3.4](https://www.rfc-editor.org/rfc/rfc7616#section-3.4)
    ///
    /// - Throws: ``DigestError`` with ``DigestError/Code/malformedAuthorization`` for another
    ///   scheme, ``DigestError/Code/missingParameter`` when `username` (or `username*`),
    ///   `realm`, `nonce`, `uri` or `response` is absent, or `nc`/`cnonce` with a `qop`,
    ///   ``DigestError/Code/invalidParameter`` for `username` together with `username*`
    ///   ([RFC 7616 §3.4.4](https://www.rfc-editor.org/rfc/rfc7616#section-3.4.4)), a bad
    ///   `username*` or `nc`, and ``DigestError/Code/unsupportedAlgorithm`` /
    ///   ``DigestError/Code/unsupportedQOP``.
    public init(_ credentials: AuthenticationChallenge) throws {
        guard credentials.hasScheme("Digest"), credentials.token68 == nil else {
            throw DigestError(.malformedAuthorization, "Authorization scheme '\(credentials.scheme)' is not Digest")
        }
        func required(_ name: String) throws -> String {
            guard let value = credentials.parameter(name) else {
                throw DigestError(.missingParameter, "Authorization has no '\(name)'")
            }
            return value
        }
        let userhash = credentials.parameter("userhash").map { asciiCaseInsensitiveEquals($0, "true") } ?? false
        switch (credentials.parameter("username"), credentials.parameter("username*")) {
        case (let plain?, nil):
            username = plain
        case (nil, let extended?):
            guard !userhash else {
                throw DigestError(.invalidParameter, "'username*' cannot be used with userhash=true")
            }
            guard let decoded = DigestComputation.decodeExtValue(extended) else {
                throw DigestError(.invalidParameter, "'username*' is not a UTF-8 ext-value (RFC 8187)")
            }
            username = decoded
        case (_?, _?):
            throw DigestError(.invalidParameter, "Authorization has both 'username' and 'username*'")
        case (nil, nil):
            throw DigestError(.missingParameter, "Authorization has no 'username'")
        }
        self.userhash = userhash
        realm = try required("realm")
        nonce = try required("nonce")
        uri = try required("uri")
        response = try required("response")
        if let name = credentials.parameter("algorithm") {
            let algorithm = DigestAlgorithm(rawValue: name)
            guard algorithm.isSupported else {
                throw DigestError(.unsupportedAlgorithm, "algorithm '\(name)' is not supported")
            }
            self.algorithm = algorithm
        } else {
            algorithm = nil
        }
        if let qopValue = credentials.parameter("qop") {
            let qop = DigestQOP(rawValue: qopValue)
            guard qop == .auth || qop == .authInt else {
                throw DigestError(.unsupportedQOP, "qop '\(qopValue)' is not supported")
            }
            self.qop = qop
            let nc = try required("nc")
            guard let count = Hex.parseNonceCount(nc) else {
                throw DigestError(.invalidParameter, "'nc' is not 8 hexadecimal digits")
            }
            nonceCount = count
            nonceCountText = nc
            cnonce = try required("cnonce")
        } else {
            qop = nil
            nonceCount = nil
            nonceCountText = nil
            cnonce = credentials.parameter("cnonce")
        }
        opaque = credentials.parameter("opaque")
        parameters = credentials.parameters
    }

    /// Parses an `Authorization` field value with the package's one auth-param parser: one
    /// credentials value, `auth-scheme 1*SP #auth-param`, each name at most once.
    /// [RFC 9110 §11.4](https://www.rfc-editor.org/rfc/rfc9110#section-11.4),
    /// [§11.6.2](https://www.rfc-editor.org/rfc/rfc9110#section-11.6.2)
    ///
    /// - Throws: ``DigestError/Code/malformedAuthorization`` when it does not parse as one set
    ///   of credentials (the reason carries the ``ChallengeError``'s), and the errors of
    ///   ``init(_:)``.
    public init(headerValue: String) throws {
        var parser = AuthFieldParser(headerValue)
        var credentials = AuthenticationChallenge(scheme: parser.readCredentialsScheme())
        guard credentials.hasScheme("Digest") else {
            throw DigestError(.malformedAuthorization, "Authorization scheme '\(credentials.scheme)' is not Digest")
        }
        let content: AuthFieldParser.CredentialsContent
        do {
            content = try parser.parseCredentialsContent()
        } catch let error as ChallengeError {
            throw DigestError(.malformedAuthorization, "\(error.code): \(error.reason)")
        }
        credentials.token68 = content.token68
        // A set of the lowercased names (tokens: ASCII), so that many parameters are checked in
        // linear time.
        var names: Set<String> = []
        for parameter in content.parameters {
            guard names.insert(parameter.name.lowercased()).inserted else {
                throw DigestError(.malformedAuthorization, "parameter '\(parameter.name)' appears twice")
            }
            credentials.parameters.append(parameter)
        }
        try self.init(credentials)
    }

    /// Whether ``username`` is the userhash of `candidate` in this realm, compared in constant
    /// time. With ``userhash`` off, compares `candidate` with ``username``.
    /// [RFC 7616 §3.4.4](https://www.rfc-editor.org/rfc/rfc7616#section-3.4.4)
    public func matchesUserhash(of candidate: String) -> Bool {
        guard userhash else { return candidate == username }
        let expected = DigestComputation.userhash(algorithm: effectiveAlgorithm, username: candidate, realm: realm)
        return constantTimeEquals(expected, asciiLowercased(username))
    }

    /// Verifies the credentials against the challenge this server issued and the user's stored
    /// secret: the username (or userhash), `realm`, `nonce`, `opaque`, `algorithm`, `qop`, and
    /// `uri` must match, then the request-digest is recomputed and compared in constant time.
    /// [RFC 7616 §3.4.1](https://www.rfc-editor.org/rfc/rfc7616#section-3.4.1),
    /// [RFC 7616 §3.4.6](https://www.rfc-editor.org/rfc/rfc7616#section-3.4.6)
    ///
    /// Nonce freshness and `nc` replay tracking are the caller's: check ``nonce`` and
    /// ``nonceCount`` against the server's own records.
    ///
    /// - Parameters:
    ///   - credentials: The user's stored password or HA1; its `username` is the real name.
    ///   - challenge: The challenge that issued ``nonce``.
    ///   - method: The request's method.
    ///   - requestURI: The request-target of the request line, compared with `uri`; `nil` skips
    ///     that check (the digest still covers `uri`).
    ///   - body: The request body, required for `auth-int`.
    public func verify(
        _ credentials: DigestCredentials,
        challenge: DigestChallenge,
        method: HTTPRequest.Method,
        requestURI: String? = nil,
        body: [UInt8]? = nil
    ) -> DigestVerification {
        if userhash {
            guard challenge.userhash, matchesUserhash(of: credentials.username) else {
                return .init(failure: .usernameMismatch)
            }
        } else if username != credentials.username {
            return .init(failure: .usernameMismatch)
        }
        guard realm == challenge.realm else { return .init(failure: .realmMismatch) }
        guard constantTimeEquals(nonce, challenge.nonce) else { return .init(failure: .nonceMismatch) }
        if let expected = challenge.opaque {
            guard opaque == expected else { return .init(failure: .opaqueMismatch) }
        }
        guard effectiveAlgorithm == challenge.effectiveAlgorithm else { return .init(failure: .algorithmMismatch) }
        if let qop {
            guard challenge.qop.contains(qop) else { return .init(failure: .qopMismatch) }
        } else {
            guard challenge.qop.isEmpty else { return .init(failure: .qopMismatch) }
        }
        if let requestURI, requestURI != uri { return .init(failure: .uriMismatch) }
        if qop == .authInt, body == nil { return .init(failure: .bodyRequired) }
        guard let ha1 = try? ha1(credentials) else { return .init(failure: .invalidStoredHA1) }
        let ha2 = DigestComputation.ha2(
            algorithm: effectiveAlgorithm,
            method: method.rawValue,
            uri: uri,
            qop: qop,
            body: body
        )
        let expected = DigestComputation.response(
            algorithm: effectiveAlgorithm,
            ha1: ha1,
            nonce: nonce,
            nc: nonceCountText,
            cnonce: cnonce,
            qop: qop,
            ha2: ha2
        )
        guard constantTimeEquals(expected, asciiLowercased(response)) else {
            return .init(failure: .responseMismatch)
        }
        return .valid
    }

    /// The `Authentication-Info` to send after a successful ``verify(_:challenge:method:requestURI:body:)``:
    /// `nextnonce`, `qop`, `rspauth`, `cnonce` and `nc`.
    /// [RFC 7616 §3.5](https://www.rfc-editor.org/rfc/rfc7616#section-3.5)
    ///
    /// - Parameters:
    ///   - responseBody: The response body, required for `auth-int`.
    ///   - nextnonce: The nonce the client should use next, if any.
    ///   - credentials: the user's credentials, as for the verification.
    /// - Throws: ``DigestError/Code/bodyRequired`` for `auth-int` without a body, and
    ///   ``DigestError/Code/invalidParameter`` for a stored HA1 of the wrong length.
    public func authenticationInfo(
        _ credentials: DigestCredentials,
        responseBody: [UInt8]? = nil,
        nextnonce: String? = nil
    ) throws -> DigestAuthenticationInfo {
        if qop == .authInt, responseBody == nil {
            throw DigestError(.bodyRequired, "rspauth with qop=auth-int needs the response body")
        }
        let ha1 = try ha1(credentials)
        let rspauth = DigestComputation.rspauth(
            algorithm: effectiveAlgorithm,
            ha1: ha1,
            nonce: nonce,
            nc: nonceCountText,
            cnonce: cnonce,
            qop: qop,
            uri: uri,
            responseBody: responseBody
        )
        return DigestAuthenticationInfo(
            nextnonce: nextnonce,
            qop: qop,
            rspauth: rspauth,
            cnonce: qop == nil ? nil : cnonce,
            nonceCount: nonceCount
        )
    }

    private func ha1(_ credentials: DigestCredentials) throws -> String {
        let base = try credentials.baseHA1(algorithm: effectiveAlgorithm, realm: realm)
        return DigestComputation.ha1(algorithm: effectiveAlgorithm, baseHA1: base, nonce: nonce, cnonce: cnonce)
    }

    private func asciiLowercased(_ string: String) -> String {
        String(decoding: string.utf8.map(asciiLowercase), as: UTF8.self)
    }
}

/// The outcome of ``DigestAuthorization/verify(_:challenge:method:requestURI:body:)``: valid,
/// or the first check that failed. An expected negative, so returned rather than thrown.
public struct DigestVerification: Sendable, Hashable, CustomStringConvertible {
    /// Which check failed.
    public struct Failure: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The username is not the expected user's.
        public static let usernameMismatch = Self(rawValue: "usernameMismatch")
        /// The realm is not the challenge's.
        public static let realmMismatch = Self(rawValue: "realmMismatch")
        /// The nonce is not the challenge's.
        public static let nonceMismatch = Self(rawValue: "nonceMismatch")
        /// The opaque value is not the challenge's.
        public static let opaqueMismatch = Self(rawValue: "opaqueMismatch")
        /// The algorithm is not the challenge's.
        public static let algorithmMismatch = Self(rawValue: "algorithmMismatch")
        /// The qop is not one the challenge offered.
        public static let qopMismatch = Self(rawValue: "qopMismatch")
        /// `uri` is not the request's target.
        public static let uriMismatch = Self(rawValue: "uriMismatch")
        /// `auth-int` needs the body, and none was given.
        public static let bodyRequired = Self(rawValue: "bodyRequired")
        /// The credentials' precomputed `H(username:realm:password)` cannot be used here.
        public static let invalidStoredHA1 = Self(rawValue: "invalidStoredHA1")
        /// The request-digest does not match: wrong password, or a tampered parameter.
        public static let responseMismatch = Self(rawValue: "responseMismatch")
        public var description: String { rawValue }
    }

    /// `nil` when valid.
    public let failure: Failure?
    /// Whether every check passed.
    public var isValid: Bool { failure == nil }

    /// The outcome with `failure`, or a valid one for `nil`.
    public init(failure: Failure?) { self.failure = failure }
    /// Every check passed.
    public static let valid = DigestVerification(failure: nil)
    public var description: String { failure.map { "invalid: \($0)" } ?? "valid" }
}

/// The `Authentication-Info` field of a Digest exchange.
/// [RFC 7616 §3.5](https://www.rfc-editor.org/rfc/rfc7616#section-3.5)
public struct DigestAuthenticationInfo: Sendable, Hashable, CustomStringConvertible {
    /// `nextnonce`: the nonce to use for the next request.
    public var nextnonce: String?
    /// `qop`: as in the request.
    public var qop: DigestQOP?
    /// `rspauth`: the response-digest, proving that the server knows the secret.
    public var rspauth: String?
    /// `cnonce`: echoed from the request.
    public var cnonce: String?
    /// `nc`: echoed from the request.
    public var nonceCount: UInt32?

    /// The field's parameters, each absent unless given.
    public init(
        nextnonce: String? = nil,
        qop: DigestQOP? = nil,
        rspauth: String? = nil,
        cnonce: String? = nil,
        nonceCount: UInt32? = nil
    ) {
        self.nextnonce = nextnonce
        self.qop = qop
        self.rspauth = rspauth
        self.cnonce = cnonce
        self.nonceCount = nonceCount
    }

    /// Parses an `Authentication-Info` value (`#auth-param`, no scheme).
    /// [RFC 9110 §11.6.3](https://www.rfc-editor.org/rfc/rfc9110#section-11.6.3)
    ///
    /// - Throws: ``DigestError/Code/malformedAuthenticationInfo`` (the reason carries the
    ///   ``ChallengeError``'s) and ``DigestError/Code/invalidParameter`` for a bad `nc`.
    public init(headerValue: String) throws {
        var parser = AuthFieldParser(headerValue)
        let parameters: [AuthenticationChallenge.Parameter]
        do {
            parameters = try parser.parseParameters()
        } catch let error as ChallengeError {
            throw DigestError(.malformedAuthenticationInfo, "\(error.code): \(error.reason)")
        }
        let holder = AuthenticationChallenge(scheme: "", parameters: parameters)
        nextnonce = holder.parameter("nextnonce")
        qop = holder.parameter("qop").map(DigestQOP.init(rawValue:))
        rspauth = holder.parameter("rspauth")
        cnonce = holder.parameter("cnonce")
        if let nc = holder.parameter("nc") {
            guard let count = Hex.parseNonceCount(nc) else {
                throw DigestError(.invalidParameter, "'nc' is not 8 hexadecimal digits")
            }
            nonceCount = count
        } else {
            nonceCount = nil
        }
    }

    /// The field value, parameters in the order `nextnonce, qop, rspauth, cnonce, nc`.
    /// [RFC 7616 §3.5](https://www.rfc-editor.org/rfc/rfc7616#section-3.5)
    public var headerValue: String {
        var parts: [String] = []
        if let nextnonce { parts.append("nextnonce=" + HTTPSyntax.quotedString(nextnonce)) }
        // A qop read from a peer may be any quoted-string: written bare only when it is a token.
        if let qop {
            parts.append(
                "qop=" + (HTTPSyntax.isToken(qop.rawValue) ? qop.rawValue : HTTPSyntax.quotedString(qop.rawValue))
            )
        }
        if let rspauth { parts.append("rspauth=" + HTTPSyntax.quotedString(rspauth)) }
        if let cnonce { parts.append("cnonce=" + HTTPSyntax.quotedString(cnonce)) }
        if let nonceCount { parts.append("nc=" + Hex.nonceCount(nonceCount)) }
        return parts.joined(separator: ", ")
    }

    public var description: String { headerValue }
}
