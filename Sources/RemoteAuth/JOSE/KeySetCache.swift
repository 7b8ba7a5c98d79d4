import HTTPTypes
public import Logging
import Tracing

extension JOSE {
    /// An issuer's JWK Set (`jwks_uri`), fetched through an ``HTTPTransport`` and cached.
    ///
    /// - The set is kept for ``Configuration/timeToLive`` seconds, then fetched again when next
    ///   needed.
    /// - A JWS whose `kid` is not in the cached set causes one re-fetch (the issuer may have
    ///   rotated its keys, [OpenID Connect Core §10.1.1](https://openid.net/specs/openid-connect-core-1_0.html#RotateSigKeys)),
    ///   but not more often than ``Configuration/minimumRefetchInterval``: a flood of tokens with
    ///   made-up `kid`s cannot make this client hammer the issuer.
    /// - Concurrent callers share one fetch.
    public actor KeySetCache {
        /// How long a fetched set is used, how often it may be fetched again, and how large it may be.
        public struct Configuration: Sendable, Hashable {
            /// Seconds a fetched set is used without fetching again. Default 600.
            public var timeToLive: Int64 = 600
            /// Seconds between two fetches caused by unknown `kid`s. Default 60.
            public var minimumRefetchInterval: Int64 = 60
            /// Bounds on the set read.
            public var maximumKeys = KeySet.defaultMaximumKeys
            /// The largest JWK Set read, in bytes of JSON. Default 256 KiB.
            public var maximumBytes = KeySet.defaultMaximumBytes
            /// The defaults: sets used 600 s, re-fetched at most every 60 s, at most 100 keys and 256 KiB.
            public init() {}
        }

        /// `jwks_uri`.
        public nonisolated let url: String
        private let transport: any HTTPTransport
        private let configuration: Configuration
        private let now: @Sendable () -> Int64
        private var cached: (set: KeySet, fetchedAt: Int64)?
        private var inFlight: Task<KeySet, any Swift.Error>?
        private var lastFetchAttempt: Int64?
        /// How many times the set was fetched (for tests and metrics).
        public private(set) var fetchCount = 0
        /// Where fetches are logged at `debug`: the URL, why, and how many keys came.
        public nonisolated let logger: Logger

        /// - Parameters:
        ///   - url: `jwks_uri`: `https`, or `http` to a loopback host.
        ///   - now: seconds since 1970.
        ///   - transport: fetches the JWK Set.
        ///   - configuration: the bounds on the set and on refetching.
        ///   - logger: where fetches are logged, at `debug`.
        /// - Throws: ``OAuth2/Error/Code/insecureEndpoint`` for another URL.
        public init(
            url: String,
            transport: any HTTPTransport,
            configuration: Configuration = Configuration(),
            now: @escaping @Sendable () -> Int64,
            logger: Logger = Logger(label: "RemoteAuth.JOSE.KeySetCache")
        ) throws {
            try OAuth2.checkEndpoint(url)
            self.logger = logger
            self.url = url
            self.transport = transport
            self.configuration = configuration
            self.now = now
        }

        /// The cached set, fetched when there is none or it is older than the time to live.
        public func keySet() async throws -> KeySet {
            if let cached, now() - cached.fetchedAt < configuration.timeToLive { return cached.set }
            return try await fetch(reason: cached == nil ? "first use" : "expired")
        }

        /// Verifies `jws` with the issuer's keys: with the cached set, then, when its `kid` is
        /// unknown, once more after a re-fetch (if the last fetch is older than the minimum
        /// interval).
        ///
        /// - Throws: what ``CompactJWS/verify(with:allowing:type:)-([JOSE.VerificationKey],_,_)`` throws;
        ///   ``JOSE/Error/Code/keySetUnavailable`` when the set cannot be fetched.
        @discardableResult
        public func verify(
            _ jws: CompactJWS,
            allowing allowed: Set<Algorithm>,
            type: String? = nil
        ) async throws
            -> VerificationKey
        {
            // Header rules first: a token with `alg: none` costs no fetch.
            try jws.checkHeader(allowing: allowed, type: type)
            let set = try await keySet()
            do {
                return try jws.verifyCheckedHeader(with: set.keys)
            } catch let error as JOSE.Error where error.code == .unknownKey {
                guard let last = lastFetchAttempt, now() - last >= configuration.minimumRefetchInterval else {
                    throw error
                }
                let fresh = try await fetch(reason: "unknown kid")
                return try jws.verifyCheckedHeader(with: fresh.keys)
            }
        }

        /// - Parameter reason: why, for the log and the span (`first use`, `expired`, `unknown kid`).
        private func fetch(reason: String) async throws -> KeySet {
            if let inFlight { return try await inFlight.value }
            let task = Task { [url, transport, configuration, logger] in
                // A JWKS URL may carry a key in its query: logs and spans get it redacted.
                let shown = Redaction.redactedURL(url)
                return try await withSpan("RemoteAuth.JOSE.keySetFetch", ofKind: .client) { span in
                    span.attributes["url.full"] = shown
                    span.attributes["remote_auth.reason"] = reason
                    do {
                        let set = try await Self.load(url: url, transport: transport, configuration: configuration)
                        span.attributes["remote_auth.keys"] = set.keys.count
                        logger.debug(
                            "key set fetched",
                            metadata: ["url": "\(shown)", "reason": "\(reason)", "keys": "\(set.keys.count)"]
                        )
                        return set
                    } catch {
                        span.setStatus(SpanStatus(code: .error, message: "\(type(of: error))"))
                        logger.debug("key set fetch failed", metadata: ["url": "\(shown)", "reason": "\(reason)"])
                        throw error
                    }
                }
            }
            inFlight = task
            lastFetchAttempt = now()
            fetchCount += 1
            defer { inFlight = nil }
            let set = try await task.value
            cached = (set, now())
            return set
        }

        private static func load(
            url: String,
            transport: any HTTPTransport,
            configuration: Configuration
        )
            async throws -> KeySet
        {
            var fields = HTTPFields()
            fields[.accept] = "application/jwk-set+json, application/json"
            let request = try HTTPRequest(method: .get, absoluteURL: url, headerFields: fields)
            let (response, body): (HTTPResponse, [UInt8])
            do {
                (response, body) = try await transport.send(request, body: nil)
            } catch {
                throw JOSE.Error(.keySetUnavailable, "GET \(url) failed: \(error)")
            }
            guard response.status == .ok else {
                throw JOSE.Error(.keySetUnavailable, "GET \(url) answered \(response.status.code)")
            }
            return try KeySet(
                json: body,
                maximumKeys: configuration.maximumKeys,
                maximumBytes: configuration.maximumBytes
            )
        }
    }
}
