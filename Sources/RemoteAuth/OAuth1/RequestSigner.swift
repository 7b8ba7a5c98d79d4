public import HTTPTypes

extension OAuth1 {
    /// OAuth 1.0a signing as a ``RequestAuthenticator``: every attempt is signed afresh (a new
    /// nonce and timestamp, [RFC 5849 §3.3](https://www.rfc-editor.org/rfc/rfc5849#section-3.3)),
    /// the protocol parameters placed in the `Authorization` header (§3.5.1), the query (§3.5.3)
    /// or the form body (§3.5.2). Give it to ``AuthenticatingClient`` with the API's origin
    /// (``ScopedAuthenticator``): requests elsewhere, a redirect included, go out unsigned.
    public struct RequestSigner: RequestAuthenticator, CustomStringConvertible {
        /// Signs each attempt.
        public let signer: Signer
        /// Where the protocol parameters go.
        public let placement: Placement
        /// The `realm` of the `Authorization` header, if any.
        public let realm: String?
        let now: @Sendable () -> Int64
        let nonce: @Sendable () -> String

        /// - Parameter now: seconds since 1970 for `oauth_timestamp`.
        /// - Parameter signer: the client's (and token's) signer.
        /// - Parameter placement: where the protocol parameters go.
        /// - Parameter realm: the `realm` of the `Authorization` header, if any.
        /// - Parameter nonce: `oauth_nonce` values.
        public init(
            signer: Signer,
            now: @escaping @Sendable () -> Int64,
            placement: Placement = .header,
            realm: String? = nil,
            nonce: @escaping @Sendable () -> String = { Nonce.random() }
        ) {
            self.signer = signer
            self.placement = placement
            self.realm = realm
            self.now = now
            self.nonce = nonce
        }

        /// `Authorization` for header placement; the query and body parameters are not fields
        /// (``Redaction/redactedURL(_:)`` hides `oauth_signature` and `oauth_token` in a URL).
        public var writtenFields: [HTTPField.Name] { placement == .header ? [.authorization] : [] }

        /// Signs the attempt's request and body as they are.
        ///
        /// - Throws: ``OAuth1Error`` for a request the placement cannot carry (body placement
        ///   of a `GET`, of a body that is not a form).
        public func authenticate(_ attempt: inout AuthenticationAttempt) async throws {
            // RFC 5849 §3.4.1.3.1: a form body's parameters are signed; a stream is not at hand.
            if attempt.streamedBody != nil,
                placement == .body
                    || attempt.request.headerFields[.contentType]?.lowercased().hasPrefix("application/x-www-form-urlencoded")
                        == true
            {
                throw ClientError(
                    .invalidBody,
                    "OAuth 1.0a signs a form body's parameters (RFC 5849 §3.4.1.3.1): send it in memory, not streamed"
                )
            }
            let signed = try signer.sign(
                attempt.request,
                body: attempt.body,
                options: SigningOptions(placement: placement, realm: realm),
                nonce: nonce(),
                timestamp: now()
            )
            attempt.request = signed.request
            attempt.body = signed.body
        }

        public var description: String { "OAuth1.RequestSigner(\(signer), \(placement))" }
    }
}
