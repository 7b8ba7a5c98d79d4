public import HTTPTypes

/// A client's answer to a ``DigestChallenge``: the computed `response` and the `Authorization`
/// value that carries it. Holds no secret (neither the password nor HA1).
/// [RFC 7616 §3.4](https://www.rfc-editor.org/rfc/rfc7616#section-3.4)
public struct DigestResponse: Sendable, Hashable, CustomStringConvertible {
    /// The username as the server sees it: the userhash when ``userhash`` is on, else the
    /// username (sent as `username*` when it is not printable ASCII).
    public let usernameParameter: String
    /// The `realm` of the challenge answered.
    public let realm: String
    /// The server's `nonce` the response is computed with.
    public let nonce: String
    /// The request-target as sent on the request line.
    public let uri: String
    /// `algorithm`, `nil` when the challenge named none.
    public let algorithm: DigestAlgorithm?
    /// The chosen `qop`, `nil` in RFC 2069 mode (then `nc` and `cnonce` are not sent).
    public let qop: DigestQOP?
    /// The nonce count `nc` (sent as 8 hex digits); `nil` in RFC 2069 mode.
    public let nonceCount: UInt32?
    /// The client nonce `cnonce`; `nil` in RFC 2069 mode.
    public let cnonce: String?
    /// The challenge's `opaque`, returned unchanged; `nil` when it had none.
    public let opaque: String?
    /// Whether the username is sent hashed (`userhash=true`, RFC 7616 §3.4.4).
    public let userhash: Bool
    /// The request-digest, lowercase hex.
    public let response: String

    /// Answers `challenge`.
    ///
    /// The `qop` is chosen as RFC 7616 §3.4 allows: `auth-int` when `qop` asks for it, the
    /// challenge offers it and `body` is given (or when it is the only option and `body` is
    /// given); else `auth`; none when the challenge offers no qop (RFC 2069 mode:
    /// `response = H(HA1:nonce:HA2)`, no `cnonce`, `nc` or `qop` sent).
    ///
    /// The username is sent as the `userhash` when the challenge asks for it
    /// ([RFC 7616 §3.4.4](https://www.rfc-editor.org/rfc/rfc7616#section-3.4.4)), else as a
    /// quoted-string when it is printable ASCII, else as `username*=UTF-8''…`
    /// ([RFC 8187](https://www.rfc-editor.org/rfc/rfc8187#section-3.2)).
    ///
    /// Parameter order: when the challenge named an `algorithm`, RFC 7616 §3.9's
    /// `username, realm, uri, algorithm, nonce, nc, cnonce, qop, response, opaque, userhash`;
    /// otherwise (a legacy RFC 2617 server) RFC 2617 §3.5's
    /// `username, realm, nonce, uri, qop, nc, cnonce, response, opaque`.
    /// `algorithm`, `qop`, `nc`, `userhash` and `username*` are unquoted; the rest are
    /// quoted-strings.
    ///
    /// - Parameters:
    ///   - method: The request method.
    ///   - uri: The request-target exactly as on the request line.
    ///   - body: The request body, needed for `auth-int`.
    ///   - nonceCount: How many requests this client has sent with this nonce, from 1;
    ///     written as 8 lowercase hex digits.
    ///   - cnonce: The client nonce; ignored in RFC 2069 mode.
    ///   - preferred: The preferred `qop`; `nil` means `auth`.
    ///   - challenge: the server's challenge.
    ///   - credentials: the user's credentials.
    /// - Throws: ``DigestError`` with ``DigestError/Code/unsupportedQOP`` when the challenge
    ///   offers only unknown qop values, ``DigestError/Code/bodyRequired`` when it offers only
    ///   `auth-int` and `body` is `nil`, ``DigestError/Code/invalidParameter`` when `uri` or
    ///   `cnonce` cannot be quoted, or the stored HA1 has the wrong length, and
    ///   ``DigestError/Code/malformedChallenge`` for a `-sess` algorithm without qop.
    public init(
        challenge: DigestChallenge,
        credentials: DigestCredentials,
        method: HTTPRequest.Method,
        uri: String,
        body: [UInt8]? = nil,
        nonceCount: UInt32 = 1,
        cnonce: String,
        qop preferred: DigestQOP? = nil
    ) throws {
        let algorithm = challenge.effectiveAlgorithm
        guard algorithm.isSupported else {
            throw DigestError(.unsupportedAlgorithm, "algorithm '\(algorithm.rawValue)' is not supported")
        }
        guard HTTPSyntax.isQuotable(uri) else {
            throw DigestError(.invalidParameter, "'uri' contains a control character")
        }
        let qop = try Self.chooseQOP(offered: challenge.qop, preferred: preferred, hasBody: body != nil)
        if qop != nil {
            guard HTTPSyntax.isQuotable(cnonce), !cnonce.isEmpty else {
                throw DigestError(.invalidParameter, "'cnonce' is empty or contains a control character")
            }
        } else if algorithm.isSession {
            throw DigestError(.malformedChallenge, "algorithm '\(algorithm.rawValue)' needs a qop, and none is offered")
        }
        let nc = qop.map { _ in Hex.nonceCount(nonceCount) }
        let sentCnonce = qop.map { _ in cnonce }

        let baseHA1 = try credentials.baseHA1(algorithm: algorithm, realm: challenge.realm)
        let ha1 = DigestComputation.ha1(
            algorithm: algorithm,
            baseHA1: baseHA1,
            nonce: challenge.nonce,
            cnonce: sentCnonce
        )
        let ha2 = DigestComputation.ha2(algorithm: algorithm, method: method.rawValue, uri: uri, qop: qop, body: body)
        let response = DigestComputation.response(
            algorithm: algorithm,
            ha1: ha1,
            nonce: challenge.nonce,
            nc: nc,
            cnonce: sentCnonce,
            qop: qop,
            ha2: ha2
        )

        let usernameParameter =
            challenge.userhash
            ? DigestComputation.userhash(algorithm: algorithm, username: credentials.username, realm: challenge.realm)
            : credentials.username

        self.usernameParameter = usernameParameter
        self.realm = challenge.realm
        self.nonce = challenge.nonce
        self.uri = uri
        self.algorithm = challenge.algorithm
        self.qop = qop
        self.nonceCount = qop.map { _ in nonceCount }
        self.cnonce = sentCnonce
        self.opaque = challenge.opaque
        self.userhash = challenge.userhash
        self.response = response
    }

    /// The `Authorization` value (`Digest username=…, response=…`), built from the fields above
    /// when asked for: the parameter order of RFC 7616 §3.9 when the challenge named its
    /// algorithm, else of RFC 2617 §3.5; `username*` (RFC 8187) for a username outside ASCII.
    public var authorization: String {
        var header: [UInt8] = Array("Digest ".utf8)
        header.reserveCapacity(
            256 + realm.utf8.count + nonce.utf8.count + uri.utf8.count + (cnonce?.utf8.count ?? 0)
                + usernameParameter.utf8.count + (opaque?.utf8.count ?? 0)
        )
        func field(_ name: StaticString, quoted value: String) {
            if header.count > 7 { header.append(contentsOf: [UInt8(ascii: ","), UInt8(ascii: " ")]) }
            header.append(contentsOf: UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
            header.append(UInt8(ascii: "="))
            HTTPSyntax.appendQuotedString(value, to: &header)
        }
        func field(_ name: StaticString, token value: String) {
            if header.count > 7 { header.append(contentsOf: [UInt8(ascii: ","), UInt8(ascii: " ")]) }
            header.append(contentsOf: UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
            header.append(UInt8(ascii: "="))
            header.append(contentsOf: value.utf8)
        }
        if userhash || usernameParameter.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) {
            field("username", quoted: usernameParameter)
        } else {
            field("username*", token: DigestComputation.extValue(usernameParameter))
        }
        field("realm", quoted: realm)
        let nc = nonceCount.map(Hex.nonceCount) ?? ""
        if let named = algorithm {
            // RFC 7616 §3.9 order.
            field("uri", quoted: uri)
            field("algorithm", token: named.rawValue)
            field("nonce", quoted: nonce)
            if let qop {
                field("nc", token: nc)
                field("cnonce", quoted: cnonce ?? "")
                field("qop", token: qop.rawValue)
            }
        } else {
            // RFC 2617 §3.5 order.
            field("nonce", quoted: nonce)
            field("uri", quoted: uri)
            if let qop {
                field("qop", token: qop.rawValue)
                field("nc", token: nc)
                field("cnonce", quoted: cnonce ?? "")
            }
        }
        field("response", quoted: response)
        if let opaque { field("opaque", quoted: opaque) }
        if userhash { field("userhash", token: "true") }
        return String(decoding: header, as: UTF8.self)
    }

    /// Answers `challenge` with a cnonce from `cnonceGenerator` (by default 128 random bits).
    /// See ``init(challenge:credentials:method:uri:body:nonceCount:cnonce:qop:)``.
    public init(
        challenge: DigestChallenge,
        credentials: DigestCredentials,
        method: HTTPRequest.Method,
        uri: String,
        body: [UInt8]? = nil,
        nonceCount: UInt32 = 1,
        cnonceGenerator: DigestCnonceGenerator = .system,
        qop preferred: DigestQOP? = nil
    ) throws {
        try self.init(
            challenge: challenge,
            credentials: credentials,
            method: method,
            uri: uri,
            body: body,
            nonceCount: nonceCount,
            cnonce: cnonceGenerator.next(),
            qop: preferred
        )
    }

    /// Chooses the qop. [RFC 7616 §3.4](https://www.rfc-editor.org/rfc/rfc7616#section-3.4)
    static func chooseQOP(offered: [DigestQOP], preferred: DigestQOP?, hasBody: Bool) throws -> DigestQOP? {
        if offered.isEmpty { return nil }
        let offersAuth = offered.contains(.auth)
        let offersAuthInt = offered.contains(.authInt)
        if offersAuthInt, hasBody, preferred == .authInt || !offersAuth { return .authInt }
        if offersAuth { return .auth }
        if offersAuthInt {
            throw DigestError(.bodyRequired, "the challenge offers only qop=auth-int, which needs the request body")
        }
        throw DigestError(
            .unsupportedQOP,
            "none of the offered qop values (\(offered.map(\.rawValue).joined(separator: ", "))) is supported"
        )
    }

    /// Checks the server's `rspauth` in `Authentication-Info`, which proves that the server knows
    /// the credentials too, and that `cnonce` and `nc`, if present, echo this request's.
    /// Compares in constant time. [RFC 7616 §3.5](https://www.rfc-editor.org/rfc/rfc7616#section-3.5)
    ///
    /// - Parameter responseBody: The response body, needed when ``qop`` is `auth-int`.
    /// - Parameter info: the `Authentication-Info` the server sent.
    /// - Parameter credentials: the credentials this response was computed with.
    /// - Returns: `false` when `rspauth` is absent or wrong.
    public func isValid(
        _ info: DigestAuthenticationInfo,
        credentials: DigestCredentials,
        responseBody: [UInt8]? = nil
    ) -> Bool {
        guard let rspauth = info.rspauth else { return false }
        if let cnonce = info.cnonce, cnonce != self.cnonce { return false }
        if let nc = info.nonceCount, nc != nonceCount { return false }
        if let infoQOP = info.qop, infoQOP != qop { return false }
        if qop == .authInt && responseBody == nil { return false }
        let algorithm = self.algorithm ?? .md5
        guard let baseHA1 = try? credentials.baseHA1(algorithm: algorithm, realm: realm) else { return false }
        let ha1 = DigestComputation.ha1(algorithm: algorithm, baseHA1: baseHA1, nonce: nonce, cnonce: cnonce)
        let expected = DigestComputation.rspauth(
            algorithm: algorithm,
            ha1: ha1,
            nonce: nonce,
            nc: nonceCount.map(Hex.nonceCount),
            cnonce: cnonce,
            qop: qop,
            uri: uri,
            responseBody: responseBody
        )
        return constantTimeEquals(expected, rspauth)
    }

    public var description: String { authorization }
}
