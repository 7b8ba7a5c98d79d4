extension OAuth1 {
    /// A signed-in session: everything needed to make signed calls again at the next start,
    /// without a new sign-in. `description` redacts the secrets.
    public struct Session: Sendable, Hashable, Codable, CustomStringConvertible {
        /// The provider the session is signed in to.
        public var provider: Provider
        /// The client (consumer) credentials.
        public var client: ClientCredentials
        /// The access token and the fields that came with it.
        public var accessToken: AccessToken

        /// A session of `client` at `provider` with `accessToken`.
        public init(provider: Provider, client: ClientCredentials, accessToken: AccessToken) {
            self.provider = provider
            self.client = client
            self.accessToken = accessToken
        }

        public var description: String {
            "Session(\(client), \(accessToken.credentials), user: \(accessToken.screenName ?? accessToken.userID ?? "?"))"
        }

        /// A signer for this session's client and access token, with the provider's signature method.
        ///
        /// - Parameter privateKey: the client's RSA key, for a provider that uses RSA-SHA1.
        public func signer(privateKey: RSAPrivateKey? = nil) throws -> Signer {
            try Signer(
                client: client,
                token: accessToken.credentials,
                signatureMethod: provider.signatureMethod,
                privateKey: privateKey
            )
        }

        /// This session as a ``RequestAuthenticator`` for ``AuthenticatingClient``: every request
        /// to `origin` (the request token URL's origin when `nil`) signed, in the provider's
        /// placement unless `placement` is given; over plain `http` beyond loopback only with
        /// `allowingPlainHTTP`. The shortest way from a stored sign-in to a signed call:
        ///
        /// ```swift
        /// let session = try await store.oauth1Session(service: "twitter", account: "alice")!
        /// let api = AuthenticatingClient(transport: transport, authenticators: [try session.authenticator(now: UnixTime.now)])
        /// let (response, body) = try await api.get("https://api.twitter.com/1.1/account/verify_credentials.json")
        /// ```
        ///
        /// - Parameters:
        ///   - now: seconds since 1970 for `oauth_timestamp`.
        ///   - nonce: `oauth_nonce` values; 128 bits from ``RandomSource/system`` by default.
        ///   - origin: the origin whose requests are signed; the request token URL's when `nil`.
        ///   - placement: where the protocol parameters go; the provider's when `nil`.
        ///   - privateKey: the RSA key for `RSA-SHA1` sessions.
        ///   - allowingPlainHTTP: sign requests over plain `http` to hosts other than loopback too.
        public func authenticator(
            now: @escaping @Sendable () -> Int64,
            origin: AuthScope? = nil,
            placement: Placement? = nil,
            privateKey: RSAPrivateKey? = nil,
            allowingPlainHTTP: Bool = false,
            nonce: @escaping @Sendable () -> String = { Nonce.random() }
        ) throws -> ScopedAuthenticator {
            ScopedAuthenticator(
                RequestSigner(
                    signer: try signer(privateKey: privateKey),
                    now: now,
                    placement: placement ?? provider.placement,
                    realm: provider.realm,
                    nonce: nonce
                ),
                for: try origin ?? AuthScope(url: provider.requestTokenURL),
                allowingPlainHTTP: allowingPlainHTTP
            )
        }
    }
}
