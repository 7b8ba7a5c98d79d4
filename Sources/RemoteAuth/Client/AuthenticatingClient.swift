public import HTTPTypes
public import Logging

/// An HTTP client that answers `Basic` and `Digest` challenges with scoped credentials and
/// follows redirects safely, over any ``HTTPTransport``.
///
/// - **Challenge mode**: a `401` whose `WWW-Authenticate` (or a `407` from
///   ``Configuration/proxy`` whose `Proxy-Authenticate`) offers a scheme the store holds a
///   credential for (matched by origin and realm) is answered once; when that answer is refused
///   the client throws ``ClientError/Code/authenticationFailed`` carrying the challenge, and
///   never loops (URLSession's `previousFailureCount` rule). A `401` nothing can answer is
///   returned as is.
/// - **Preemptive mode** (``Configuration/preemptive`` or per request): `Basic` is sent on the
///   first request to an origin with a realm-less credential, saving the `401` round trip.
/// - **Digest** state is kept per protection space: the server's nonce is reused with a growing
///   `nc`, so N requests cost N+1 round trips; `stale=true` is answered with the new nonce
///   without counting as a failure; `nextnonce` is honoured; `rspauth` is checked; `auth-int`
///   hashes the body. [RFC 7616 §3.3–§3.5](https://www.rfc-editor.org/rfc/rfc7616#section-3.3)
/// - **Redirects** (301, 302, 303, 307, 308) are followed here, up to
///   ``Configuration/maximumRedirects``; caller-set `Authorization`, `Proxy-Authorization` and
///   `Cookie` fields are dropped as soon as the scheme, host or port changes, and credentials are only ever
///   added for the origin the request started at, so `https` → `http` never carries them.
///   [RFC 9110 §15.4](https://www.rfc-editor.org/rfc/rfc9110#section-15.4)
/// - **Plain http**: a credential is sent over `http` only to loopback hosts or when its scope
///   opted in (``ScopedCredential/allowsPlainHTTP``); otherwise
///   ``ClientError/Code/plainHTTPRefused`` is thrown instead of sending the credential.
///
/// A request that already carries an `Authorization` field is sent as the caller built it:
/// the client neither adds its own nor answers challenges for it.
public struct AuthenticatingClient: Sendable {
    public struct Configuration: Sendable {
        /// Send `Basic` credentials on the first request to an origin, before any challenge.
        public var preemptive = false
        /// Follow 301, 302, 303, 307 and 308 responses that carry a `Location`.
        public var followsRedirects = true
        /// The most redirects one ``AuthenticatingClient/send(_:body:preemptive:)`` follows.
        public var maximumRedirects = 10
        /// Where Digest cnonces come from.
        public var cnonceGenerator: DigestCnonceGenerator = .system
        /// The Digest `qop` to prefer when the server offers several; `nil` means `auth`.
        /// `auth-int` is used whenever it is the only one offered.
        public var digestQOP: DigestQOP?
        /// The proxy the transport sends through, if any: a `407` is answered with a credential
        /// for this scope, in `Proxy-Authorization`, on every hop (the proxy does not change
        /// when the origin does).
        public var proxy: AuthScope?
        /// Where exchanges are logged (`debug`: one line per round trip; `trace`: redacted
        /// header fields). Credentials and cookies are never logged.
        public var logger = Logger(label: "RemoteAuth.AuthenticatingClient")

        public init() {}
    }

    public let transport: any HTTPTransport
    public let credentials: any CredentialStore
    public let configuration: Configuration
    private let state = ClientState()

    public init(transport: any HTTPTransport, credentials: any CredentialStore, configuration: Configuration = .init())
    {
        self.transport = transport
        self.credentials = credentials
        self.configuration = configuration
    }

    /// How many requests this client has put on the wire, retries and redirects included.
    public var roundTrips: Int {
        get async { await state.roundTrips }
    }

    /// Sends `request`, answering challenges and following redirects.
    ///
    /// - Parameter preemptive: overrides ``Configuration/preemptive`` for this request.
    /// - Returns: the final response and its body.
    /// - Throws: ``ClientError`` (authentication failed, too many or invalid redirects, plain
    ///   http refused, invalid URL), or what the transport throws.
    public func send(
        _ request: HTTPRequest,
        body: [UInt8]? = nil,
        preemptive: Bool? = nil
    ) async throws -> (HTTPResponse, [UInt8]) {
        let initialOrigin = try AuthScope(origin: request)
        let preemptive = preemptive ?? configuration.preemptive
        var current = request
        var currentBody = body
        var currentOrigin = initialOrigin
        var redirects = 0
        while true {
            let (response, responseBody) = try await exchange(
                current,
                body: currentBody,
                origin: currentOrigin,
                credentialsAllowed: currentOrigin == initialOrigin,
                preemptive: preemptive
            )
            guard configuration.followsRedirects, Self.redirectStatuses.contains(response.status.code),
                let location = response.headerFields[.location]
            else {
                return (response, responseBody)
            }
            redirects += 1
            guard redirects <= configuration.maximumRedirects else {
                throw ClientError(
                    .tooManyRedirects,
                    "more than \(configuration.maximumRedirects) redirects",
                    response: response
                )
            }
            var next = try Self.resolve(location, against: current)
            let nextOrigin = try AuthScope(origin: next)
            // RFC 9110 §15.4: 303 turns every method but HEAD into GET; for 301 and 302,
            // user agents change POST to GET (§15.4.2, §15.4.3); 307 and 308 keep both.
            let code = response.status.code
            var changesToGET = false
            if code == 303 { changesToGET = current.method != .get && current.method != .head }
            if code == 301 || code == 302 { changesToGET = current.method == .post }
            next.method = changesToGET ? .get : current.method
            next.headerFields = current.headerFields
            if changesToGET {
                currentBody = nil
                for name in Self.contentFields { next.headerFields[name] = nil }
            }
            if nextOrigin != currentOrigin {
                for name in [HTTPField.Name.authorization, .proxyAuthorization, .cookie] {
                    next.headerFields[name] = nil
                }
            }
            configuration.logger.debug(
                "redirect",
                metadata: [
                    "status": "\(code)", "to": "\(Redaction.redactedURL(next.absoluteURL))",
                    "crossOrigin": "\(nextOrigin != currentOrigin)",
                ]
            )
            current = next
            currentOrigin = nextOrigin
        }
    }

    static let redirectStatuses: Set<Int> = [301, 302, 303, 307, 308]
    /// Fields that describe a body, dropped with it (the Fetch standard's request-body-header
    /// names, plus the framing fields).
    static let contentFields: [HTTPField.Name] = [
        .contentType, .contentLength, .contentEncoding, .contentLanguage, .contentLocation, .transferEncoding,
    ]

    typealias SentDigest = (key: ClientState.SpaceKey, response: DigestResponse, entry: ScopedCredential)

    /// A party that may challenge: the origin server (401, `WWW-Authenticate`, `Authorization`)
    /// or the proxy (407, `Proxy-Authenticate`, `Proxy-Authorization`), with what was sent to it.
    /// [RFC 9110 §11.6](https://www.rfc-editor.org/rfc/rfc9110#section-11.6),
    /// [RFC 9110 §11.7](https://www.rfc-editor.org/rfc/rfc9110#section-11.7)
    private struct Side {
        let scope: AuthScope
        let name: String
        let status: HTTPResponse.Status
        let challengeField: HTTPField.Name
        let authorizationField: HTTPField.Name
        let infoField: HTTPField.Name
        let enabled: Bool
        var header: String?
        var sentDigest: SentDigest?
        var sentBasic: Credential?
        var answered = false
        var renewedStale = false
    }

    /// One request with its authentication round trips: per side at most a reused Digest
    /// nonce or preemptive Basic, one stale renewal and one answer.
    private func exchange(
        _ request: HTTPRequest,
        body: [UInt8]?,
        origin: AuthScope,
        credentialsAllowed: Bool,
        preemptive: Bool
    ) async throws -> (HTTPResponse, [UInt8]) {
        let path = request.path ?? "/"
        var sides = [
            Side(
                scope: origin,
                name: "\(origin)",
                status: .unauthorized,
                challengeField: .wwwAuthenticate,
                authorizationField: .authorization,
                infoField: .authenticationInfo,
                enabled: credentialsAllowed && request.headerFields[.authorization] == nil
            )
        ]
        if let proxy = configuration.proxy {
            sides.append(
                Side(
                    scope: proxy.origin,
                    name: "the proxy \(proxy.origin)",
                    status: .proxyAuthenticationRequired,
                    challengeField: .proxyAuthenticate,
                    authorizationField: .proxyAuthorization,
                    infoField: Self.proxyAuthenticationInfo,
                    enabled: request.headerFields[.proxyAuthorization] == nil
                )
            )
        }
        for index in sides.indices where sides[index].enabled {
            try await prepare(&sides[index], request: request, body: body, path: path, preemptive: preemptive)
        }
        var (response, responseBody) = try await roundTrip(Self.outgoing(request, sides), body: body)
        while let index = sides.firstIndex(where: { $0.enabled && $0.status == response.status }) {
            guard try await answer(&sides[index], response: response, request: request, body: body, path: path) else {
                break  // Nothing to answer with: hand the challenge back.
            }
            (response, responseBody) = try await roundTrip(Self.outgoing(request, sides), body: body)
        }
        for side in sides where response.status != side.status {
            if let sent = side.sentDigest {
                try await accept(response, body: responseBody, answering: sent, field: side.infoField)
            }
        }
        return (response, responseBody)
    }

    static let proxyAuthenticationInfo = HTTPField.Name("Proxy-Authentication-Info")!

    private static func outgoing(_ request: HTTPRequest, _ sides: [Side]) -> HTTPRequest {
        var outgoing = request
        for side in sides {
            if let header = side.header {
                outgoing.headerFields.append(HTTPField(name: side.authorizationField, value: header))
            }
        }
        return outgoing
    }

    /// Before any challenge: a Digest answer from the space's saved nonce (next `nc`), or in
    /// preemptive mode Basic with a realm-less credential.
    private func prepare(
        _ side: inout Side,
        request: HTTPRequest,
        body: [UInt8]?,
        path: String,
        preemptive: Bool
    ) async throws {
        if let use = await state.nextDigestUse(origin: side.scope, path: path) {
            try checkPlainHTTP(side.scope, use.entry)
            let answer = try digestResponse(use.challenge, use.entry, request, body: body, nonceCount: use.nonceCount)
            side.header = answer.authorization
            side.sentDigest = (use.key, answer, use.entry)
        } else if preemptive, let entry = await credentials.credential(for: side.scope, realm: nil),
            entry.credential.schemes.contains(.basic)
        {
            try checkPlainHTTP(side.scope, entry)
            side.header = try entry.credential.basicCredentials.authorization
            side.sentBasic = entry.credential
        }
    }

    /// Answers the challenge in `response` for `side`. Returns `false` when there is nothing to
    /// answer with (and nothing was sent); throws ``ClientError/Code/authenticationFailed`` when
    /// an answer was already refused.
    private func answer(
        _ side: inout Side,
        response: HTTPResponse,
        request: HTTPRequest,
        body: [UInt8]?,
        path: String
    ) async throws -> Bool {
        let scope = side.scope
        let challenges = (try? AuthenticationChallenge.parse(response.headerFields, name: side.challengeField)) ?? []
        var candidates: [(challenge: AuthenticationChallenge, entry: ScopedCredential)] = []
        for challenge in challenges {
            guard let entry = await credentials.credential(for: scope, realm: challenge.parameter("realm")),
                entry.credential.allows(scheme: challenge.scheme)
            else { continue }
            candidates.append((challenge, entry))
        }
        let sentDigest = side.sentDigest
        func failure(_ reason: String, _ challenge: AuthenticationChallenge?) async -> ClientError {
            if let sentDigest { await state.remove(sentDigest.key) }
            configuration.logger.debug("authentication failed", metadata: ["scope": "\(scope)"])
            return ClientError(.authenticationFailed, reason, challenge: challenge, response: response)
        }
        guard let pick = AuthenticationChallenge.preferred(candidates.map(\.challenge)),
            let entry = candidates.first(where: { $0.challenge == pick })?.entry
        else {
            if side.sentDigest != nil || side.sentBasic != nil {
                throw await failure(
                    "\(side.name) refused the credential and asks for nothing it can answer",
                    challenges.first
                )
            }
            return false
        }
        if pick.hasScheme("Digest") {
            let digest = try DigestChallenge(pick)
            let key = ClientState.SpaceKey(origin: scope, challenge: digest)
            if digest.stale, side.sentDigest != nil, !side.renewedStale {
                // RFC 7616 §3.3: the answer was right, only the nonce had expired.
                side.renewedStale = true
            } else if side.answered {
                await state.remove(key)
                throw await failure("\(side.name) refused the Digest answer for realm \"\(digest.realm)\"", pick)
            } else {
                side.answered = true
            }
            try checkPlainHTTP(scope, entry)
            let nonceCount = await state.startDigest(key, challenge: digest, entry: entry, path: path)
            let answer = try digestResponse(digest, entry, request, body: body, nonceCount: nonceCount)
            side.header = answer.authorization
            side.sentDigest = (key, answer, entry)
            side.sentBasic = nil
        } else {
            if side.answered || side.sentBasic == entry.credential {
                throw await failure(
                    "\(side.name) refused the Basic credential for realm \"\(pick.parameter("realm") ?? "")\"",
                    pick
                )
            }
            side.answered = true
            try checkPlainHTTP(scope, entry)
            side.header = try entry.credential.basicCredentials.authorization
            side.sentBasic = entry.credential
            side.sentDigest = nil
        }
        return true
    }

    /// Reads `Authentication-Info` after a Digest answer: checks `rspauth` when sent, takes
    /// `nextnonce`. [RFC 7616 §3.5](https://www.rfc-editor.org/rfc/rfc7616#section-3.5)
    private func accept(
        _ response: HTTPResponse,
        body: [UInt8],
        answering sent: SentDigest,
        field: HTTPField.Name
    ) async throws {
        guard let value = response.headerFields[field],
            let info = try? DigestAuthenticationInfo(headerValue: value)
        else { return }
        if info.rspauth != nil,
            !sent.response.isValid(info, credentials: sent.entry.credential.digestCredentials, responseBody: body)
        {
            await state.remove(sent.key)
            throw ClientError(
                .invalidServerProof,
                "the rspauth of \(sent.key.origin) does not match the credential",
                response: response
            )
        }
        if let nextnonce = info.nextnonce {
            await state.renewNonce(sent.key, nextnonce: nextnonce)
        }
    }

    private func digestResponse(
        _ challenge: DigestChallenge,
        _ entry: ScopedCredential,
        _ request: HTTPRequest,
        body: [UInt8]?,
        nonceCount: UInt32
    ) throws -> DigestResponse {
        try DigestResponse(
            challenge: challenge,
            credentials: entry.credential.digestCredentials,
            method: request.method,
            uri: request.path ?? "/",
            body: body ?? [],
            nonceCount: nonceCount,
            cnonce: configuration.cnonceGenerator.next(),
            qop: configuration.digestQOP
        )
    }

    private func checkPlainHTTP(_ origin: AuthScope, _ entry: ScopedCredential) throws {
        guard origin.scheme == "http", !origin.isLoopback, !entry.allowsPlainHTTP else { return }
        throw ClientError(
            .plainHTTPRefused,
            "refusing to send a credential to \(origin) over plain http, where anyone on the path can read it;"
                + " use https, or opt in to plain http for this scope"
        )
    }

    private func roundTrip(_ request: HTTPRequest, body: [UInt8]?) async throws -> (HTTPResponse, [UInt8]) {
        await state.countRoundTrip()
        let logger = configuration.logger
        logger.debug(
            "request",
            metadata: ["method": "\(request.method)", "url": "\(Redaction.redactedURL(request.absoluteURL))"]
        )
        logger.trace(
            "request fields",
            metadata: ["fields": .array(Redaction.redacted(request.headerFields).map { "\($0)" })]
        )
        let (response, responseBody) = try await transport.send(request, body: body)
        logger.debug("response", metadata: ["status": "\(response.status)", "bytes": "\(responseBody.count)"])
        logger.trace(
            "response fields",
            metadata: ["fields": .array(Redaction.redacted(response.headerFields).map { "\($0)" })]
        )
        return (response, responseBody)
    }
}

extension AuthenticatingClient {
    /// Resolves a `Location` value against the request it answered: absolute, network-path
    /// (`//host/…`), absolute-path, query-only and relative-path references; the fragment is
    /// dropped. [RFC 3986 §5.2](https://www.rfc-editor.org/rfc/rfc3986#section-5.2)
    static func resolve(_ location: String, against request: HTTPRequest) throws -> HTTPRequest {
        var reference = Substring(location).drop(while: { $0 == " " || $0 == "\t" })
        while reference.last == " " || reference.last == "\t" { reference = reference.dropLast() }
        if let hash = reference.firstIndex(of: "#") { reference = reference[..<hash] }
        let scheme = request.scheme ?? "http"
        let authority = request.authority ?? ""
        let path = request.path ?? "/"
        let pathOnly = path.firstIndex(of: "?").map { path[..<$0] } ?? Substring(path)
        let absolute: String
        if let colon = reference.firstIndex(of: ":"),
            reference[..<colon].allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) }),
            !reference[..<colon].isEmpty
        {
            let targetScheme = reference[..<colon].lowercased()
            guard targetScheme == "http" || targetScheme == "https", reference[colon...].hasPrefix("://") else {
                throw ClientError(
                    .invalidRedirect,
                    "redirect to '\(Redaction.redactedURL(String(reference)))' is not http or https"
                )
            }
            absolute = String(reference)
        } else if reference.hasPrefix("//") {
            absolute = scheme + ":" + String(reference)
        } else if reference.hasPrefix("/") {
            absolute = scheme + "://" + authority + String(reference)
        } else if reference.hasPrefix("?") {
            absolute = scheme + "://" + authority + String(pathOnly) + String(reference)
        } else if reference.isEmpty {
            absolute = scheme + "://" + authority + path
        } else {
            let directory = pathOnly.lastIndex(of: "/").map { pathOnly[...$0] } ?? "/"
            absolute = scheme + "://" + authority + String(directory) + String(reference)
        }
        do {
            return try HTTPRequest(method: request.method, absoluteURL: absolute)
        } catch let error as RequestURLError {
            throw ClientError(.invalidRedirect, "the Location of a redirect is not usable: \(error.reason)")
        }
    }
}

/// The client's shared mutable state: Digest protection spaces and the round-trip count.
actor ClientState {
    /// A Digest protection space: origin and realm (RFC 9110 §11.5), told apart also by
    /// algorithm and qop, which a server may vary within one realm.
    struct SpaceKey: Hashable, Sendable {
        let origin: AuthScope
        let realm: String
        let algorithm: DigestAlgorithm
        let qop: [DigestQOP]

        init(origin: AuthScope, challenge: DigestChallenge) {
            self.origin = origin
            self.realm = challenge.realm
            self.algorithm = challenge.effectiveAlgorithm
            self.qop = challenge.qop
        }
    }

    struct Space: Sendable {
        var challenge: DigestChallenge
        var entry: ScopedCredential
        var nonceCount: UInt32
        /// Path prefixes the space covers: its `domain` URIs' paths and the directories of
        /// the requests that were challenged.
        var prefixes: [String]
        var lastUse: Int
    }

    private(set) var roundTrips = 0
    private var spaces: [SpaceKey: Space] = [:]
    private var uses = 0

    func countRoundTrip() { roundTrips += 1 }

    /// The space to answer a request for `path` at `origin` without waiting for a challenge,
    /// with its next nonce count: the one covering the longest prefix of the path; else, for a
    /// space without `domain` (the whole origin, RFC 7616 §3.3), the one used last.
    func nextDigestUse(
        origin: AuthScope,
        path: String
    ) -> (
        key: SpaceKey, challenge: DigestChallenge, entry: ScopedCredential, nonceCount: UInt32
    )? {
        let candidates = spaces.filter { $0.key.origin == origin }
        var best: (key: SpaceKey, length: Int, lastUse: Int)?
        for (key, space) in candidates {
            let length =
                space.prefixes.filter { path.hasPrefix($0) }.map(\.count).max()
                ?? (space.challenge.domain.isEmpty ? 0 : -1)
            guard length >= 0 else { continue }
            if let current = best, (current.length, current.lastUse) >= (length, space.lastUse) { continue }
            best = (key, length, space.lastUse)
        }
        guard let key = best?.key, var space = spaces[key], space.nonceCount < UInt32.max else { return nil }
        uses += 1
        space.nonceCount += 1
        space.lastUse = uses
        spaces[key] = space
        return (key, space.challenge, space.entry, space.nonceCount)
    }

    /// Records a fresh challenge for its space; returns the nonce count to use (1).
    func startDigest(_ key: SpaceKey, challenge: DigestChallenge, entry: ScopedCredential, path: String) -> UInt32 {
        var prefixes = spaces[key]?.prefixes ?? []
        for uri in challenge.domain {
            let domainPath = Self.path(of: uri)
            if !prefixes.contains(domainPath) { prefixes.append(domainPath) }
        }
        let pathOnly = path.firstIndex(of: "?").map { String(path[..<$0]) } ?? path
        let directory = pathOnly.lastIndex(of: "/").map { String(pathOnly[...$0]) } ?? "/"
        if !prefixes.contains(directory) { prefixes.append(directory) }
        uses += 1
        spaces[key] = Space(challenge: challenge, entry: entry, nonceCount: 1, prefixes: prefixes, lastUse: uses)
        return 1
    }

    /// `nextnonce`: the next request uses it, counting from 1.
    /// [RFC 7616 §3.5](https://www.rfc-editor.org/rfc/rfc7616#section-3.5)
    func renewNonce(_ key: SpaceKey, nextnonce: String) {
        guard var space = spaces[key] else { return }
        space.challenge.nonce = nextnonce
        space.nonceCount = 0
        spaces[key] = space
    }

    func remove(_ key: SpaceKey) { spaces[key] = nil }

    /// The path of a `domain` URI, which may be absolute or an absolute path.
    static func path(of uri: String) -> String {
        guard let colon = uri.firstIndex(of: ":"), uri[colon...].hasPrefix("://") else { return uri }
        let rest = uri[uri.index(colon, offsetBy: 3)...]
        return rest.firstIndex(of: "/").map { String(rest[$0...]) } ?? "/"
    }
}
