public import HTTPTypes

extension OAuth2 {
    /// The device authorization response
    /// ([RFC 8628 §3.2](https://www.rfc-editor.org/rfc/rfc8628#section-3.2)): what to show the
    /// user, and the `device_code` to poll with.
    public struct DeviceAuthorizationResponse: Sendable, Hashable, CustomStringConvertible {
        /// `device_code`: a secret, sent only in the polls.
        public var deviceCode: Secret
        /// `user_code`, for the user to type at ``verificationURI``.
        public var userCode: String
        /// `verification_uri` (Google's older `verification_url` is read too).
        public var verificationURI: String
        /// `verification_uri_complete`, holding the user code (for a QR code or a link).
        public var verificationURIComplete: String?
        /// `expires_in` as sent.
        public var expiresIn: Int64
        /// When the device code expires: `now + expires_in`, the polling deadline.
        public var expiresAt: Int64
        /// `interval`, 5 seconds when absent ([§3.2](https://www.rfc-editor.org/rfc/rfc8628#section-3.2)).
        public var interval: Int64
        /// The members of the response this type does not name, as sent.
        public var additionalParameters: [String: JSONValue]

        /// A response with the device and user codes, where to verify, `expires_in` and the deadline it
        /// gives (seconds since 1970), the polling `interval` (default 5 s) and any other members.
        public init(
            deviceCode: Secret,
            userCode: String,
            verificationURI: String,
            verificationURIComplete: String? = nil,
            expiresIn: Int64,
            expiresAt: Int64,
            interval: Int64 = 5,
            additionalParameters: [String: JSONValue] = [:]
        ) {
            self.deviceCode = deviceCode
            self.userCode = userCode
            self.verificationURI = verificationURI
            self.verificationURIComplete = verificationURIComplete
            self.expiresIn = expiresIn
            self.expiresAt = expiresAt
            self.interval = interval
            self.additionalParameters = additionalParameters
        }

        /// The request: `POST` of `client_id` (or the client's authentication) and `scope`
        /// ([RFC 8628 §3.1](https://www.rfc-editor.org/rfc/rfc8628#section-3.1)).
        public static func httpRequest(
            to endpoint: String,
            client: Client,
            scope: [String] = [],
            additionalParameters: [(name: String, value: String)] = []
        ) throws -> (HTTPRequest, [UInt8]) {
            var parameters: [(name: String, value: String)] = []
            if !scope.isEmpty { parameters.append(("scope", scope.joined(separator: " "))) }
            return try OAuth2.formPost(to: endpoint, parameters: parameters + additionalParameters, client: client)
        }

        /// Reads the response; `now` is the injected clock's time of it.
        ///
        /// - Throws: ``OAuth2/Error/Code/serverRefused`` for an error response,
        ///   ``OAuth2/Error/Code/malformedResponse`` when a required member is missing or of the
        ///   wrong type, or `expires_in`/`interval` is not positive.
        public static func parse(status: Int, body: [UInt8], now: Int64) throws -> Self {
            var object = try JSONObject.parse(status: status, body: body)
            let deviceCode = try object.requiredString("device_code")
            let userCode = try object.requiredString("user_code")
            let verificationURI: String
            if let uri = try object.string("verification_uri") {
                verificationURI = uri
                _ = try object.string("verification_url")
            } else {
                verificationURI = try object.requiredString("verification_url")
            }
            let complete = try object.string("verification_uri_complete")
            guard let expiresIn = try object.integer("expires_in") else {
                throw object.malformed("'expires_in' is missing")
            }
            let interval = try object.integer("interval") ?? 5
            guard expiresIn > 0, interval > 0 else {
                throw object.malformed("'expires_in' and 'interval' must be positive")
            }
            guard !deviceCode.isEmpty, !userCode.isEmpty else {
                throw object.malformed("an empty device_code or user_code")
            }
            return Self(
                deviceCode: Secret(deviceCode),
                userCode: userCode,
                verificationURI: verificationURI,
                verificationURIComplete: complete,
                expiresIn: expiresIn,
                expiresAt: now.addingSaturating(expiresIn),
                interval: interval,
                additionalParameters: object.remaining
            )
        }

        public var description: String {
            "OAuth2.DeviceAuthorizationResponse(userCode: \(userCode), verificationURI: \(verificationURI), expiresAt: \(expiresAt), interval: \(interval), deviceCode: <redacted>)"
        }
    }
}
