public import HTTPTypes

extension OAuth1 {
    /// What to sign besides the request itself, and where the protocol parameters go.
    public struct SigningOptions: Hashable, Sendable {
        /// Where the protocol parameters travel (§3.5); the `Authorization` header by default.
        public var placement: Placement
        /// The `realm` of the `Authorization` header (§3.5.1); never signed.
        public var realm: String?
        /// `oauth_callback`, for a temporary-credential request (§2.1): an absolute URL or `oob`.
        public var callback: String?
        /// `oauth_verifier`, for a token request (§2.3).
        public var verifier: String?
        /// Sends `oauth_version="1.0"`; it is optional (§3.1) but most providers expect it.
        public var includeVersion: Bool

        /// Options: the protocol parameters in `placement` (the header by default), with `oauth_version`
        /// unless `includeVersion` is false, and the optional `realm`, `callback` and `verifier`.
        public init(
            placement: Placement = .header,
            realm: String? = nil,
            callback: String? = nil,
            verifier: String? = nil,
            includeVersion: Bool = true
        ) {
            self.placement = placement
            self.realm = realm
            self.callback = callback
            self.verifier = verifier
            self.includeVersion = includeVersion
        }
    }

    /// A request with its protocol parameters in place, and what went into them.
    public struct SignedRequest: Sendable, Hashable {
        /// The request to send: with an `Authorization` field, or an extended `:path` (query placement).
        public var request: HTTPRequest
        /// The body to send: unchanged, or extended with the protocol parameters (body placement).
        public var body: [UInt8]?
        /// The signature base string (§3.4.1); `nil` for PLAINTEXT, which signs none.
        public var signatureBaseString: String? {
            signatureBaseStringBytes.map { String(decoding: $0, as: UTF8.self) }
        }
        /// The signature base string's bytes, as signed.
        public var signatureBaseStringBytes: [UInt8]?
        /// `oauth_signature`, before its final encoding.
        public var signature: String
        /// Every protocol parameter sent, `oauth_signature` included, sorted by name.
        public var protocolParameters: [Parameter]
        /// The `Authorization` value these parameters make (§3.5.1), whatever the placement.
        public var authorization: String
        /// The absolute URL of ``request`` (`scheme://authority/path?query`).
        public var url: String { request.absoluteURL }
    }
}
