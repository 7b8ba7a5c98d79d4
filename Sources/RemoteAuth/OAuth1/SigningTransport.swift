public import HTTPTypes

extension OAuth1 {
    /// An ``HTTPTransport`` that signs every request to one origin with OAuth 1.0a before passing
    /// it on: a signed-in session's client and token credentials, header placement by default.
    /// Requests to any other origin (a redirect elsewhere) go out unsigned.
    public struct SigningTransport: HTTPTransport {
        let inner: any HTTPTransport
        let signer: Signer
        let origin: AuthScope
        let placement: Placement
        let realm: String?
        let now: @Sendable () -> Int64
        let nonce: @Sendable () -> String

        /// - Parameters:
        ///   - origin: the only origin whose requests are signed, e.g. `AuthScope(url: apiBase)`.
        ///   - now: seconds since 1970 for `oauth_timestamp`.
        public init(
            _ inner: any HTTPTransport,
            signer: Signer,
            origin: AuthScope,
            now: @escaping @Sendable () -> Int64,
            placement: Placement = .header,
            realm: String? = nil,
            nonce: @escaping @Sendable () -> String = { Nonce.random() }
        ) {
            self.inner = inner
            self.signer = signer
            self.origin = origin.origin
            self.placement = placement
            self.realm = realm
            self.now = now
            self.nonce = nonce
        }

        public func send(_ request: HTTPRequest, body: [UInt8]?) async throws -> (HTTPResponse, [UInt8]) {
            guard let target = try? AuthScope(origin: request), target == origin else {
                return try await inner.send(request, body: body)
            }
            let signed = try signer.sign(
                request,
                body: body,
                options: SigningOptions(placement: placement, realm: realm),
                nonce: nonce(),
                timestamp: now()
            )
            return try await inner.send(signed.request, body: signed.body)
        }
    }
}
