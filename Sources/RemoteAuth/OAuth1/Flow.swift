import HTTPTypes

extension OAuth1 {
    /// A service provider's OAuth 1.0a endpoints and the conventions it expects.
    public struct Provider: Sendable, Hashable, Codable {
        /// Temporary credentials: [RFC 5849 §2.1](https://www.rfc-editor.org/rfc/rfc5849#section-2.1).
        public var requestTokenURL: String
        /// Resource owner authorization: [RFC 5849 §2.2](https://www.rfc-editor.org/rfc/rfc5849#section-2.2).
        public var authorizeURL: String
        /// Token credentials: [RFC 5849 §2.3](https://www.rfc-editor.org/rfc/rfc5849#section-2.3).
        public var accessTokenURL: String
        /// The signature method the provider expects.
        public var signatureMethod: SignatureMethod
        /// Where the protocol parameters go on the flow's own requests.
        public var placement: Placement
        /// The `realm` to send in `Authorization`, if the provider wants one.
        public var realm: String?

        /// A provider's endpoints and conventions.
        public init(
            requestTokenURL: String,
            authorizeURL: String,
            accessTokenURL: String,
            signatureMethod: SignatureMethod = .hmacSHA1,
            placement: Placement = .header,
            realm: String? = nil
        ) {
            self.requestTokenURL = requestTokenURL
            self.authorizeURL = authorizeURL
            self.accessTokenURL = accessTokenURL
            self.signatureMethod = signatureMethod
            self.placement = placement
            self.realm = realm
        }

        /// The endpoints of a RemoteAuth sandbox (or any provider laid out like Twitter's) at `baseURL`.
        public static func twitterStyle(baseURL: String) -> Provider {
            Provider(
                requestTokenURL: baseURL + "/oauth/request_token",
                authorizeURL: baseURL + "/oauth/authorize",
                accessTokenURL: baseURL + "/oauth/access_token"
            )
        }
    }

    /// Token credentials and the other fields the provider returned with them
    /// (`user_id`, `screen_name`, …).
    public struct AccessToken: Sendable, Hashable, Codable, CustomStringConvertible {
        /// The token and its secret.
        public var credentials: TokenCredentials
        /// Every other field of the response, in order.
        public var fields: [Parameter]

        /// Token credentials with the response's other fields.
        public init(credentials: TokenCredentials, fields: [Parameter] = []) {
            self.credentials = credentials
            self.fields = fields
        }

        /// The value of the response field `name`, if it came.
        public func field(_ name: String) -> String? { fields.first { $0.name == name }?.value }
        /// `user_id`, as Twitter-style providers return it.
        public var userID: String? { field("user_id") }
        /// `screen_name`, as Twitter-style providers return it.
        public var screenName: String? { field("screen_name") }
        public var description: String { "AccessToken(\(credentials), fields: \(fields.map(\.name)))" }
    }

    /// The three-legged flow (RFC 5849 §2) as steps an app drives with any user agent, over any
    /// ``HTTPTransport``; the PIN (`oob`) flow; and Twitter's reverse auth.
    ///
    /// ```swift
    /// let flow = OAuth1.Flow(provider: .twitterStyle(baseURL: base), client: client, transport: transport,
    ///                        now: { Int64(Date().timeIntervalSince1970) })
    /// // requestToken: OAuth1.RequestToken (temporary credentials); access.credentials: token credentials
    /// let requestToken = try await flow.requestToken(callback: "http://127.0.0.1:8765/callback")
    /// open(flow.authorizeURL(for: requestToken))                    // the user consents
    /// let verifier = try flow.verifier(fromCallback: callbackURL, for: requestToken)
    /// let access = try await flow.accessToken(for: requestToken, verifier: verifier)
    /// ```
    public struct Flow: Sendable {
        /// The provider's endpoints (temporary credentials, authorization, token credentials) and
        /// the signature method it expects.
        public let provider: Provider
        /// The client credentials (consumer key and secret) the flow signs with.
        public let client: ClientCredentials
        let privateKey: RSAPrivateKey?
        let transport: any HTTPTransport
        let now: @Sendable () -> Int64
        let nonce: @Sendable () -> String

        /// - Parameters:
        ///   - now: seconds since 1970 for `oauth_timestamp` (the core has no clock of its own).
        ///   - nonce: `oauth_nonce` values; 128 random bits by default.
        ///   - provider: the service provider's endpoints and conventions.
        ///   - client: the client credentials (consumer key and secret).
        ///   - transport: sends the flow's requests.
        ///   - privateKey: the RSA key for `RSA-SHA1` providers.
        public init(
            provider: Provider,
            client: ClientCredentials,
            transport: any HTTPTransport,
            now: @escaping @Sendable () -> Int64,
            privateKey: RSAPrivateKey? = nil,
            nonce: @escaping @Sendable () -> String = { Nonce.random() }
        ) {
            self.provider = provider
            self.client = client
            self.privateKey = privateKey
            self.transport = transport
            self.now = now
            self.nonce = nonce
        }

        /// Step 1: temporary credentials for `callback` (an absolute URL, or `oob` for the PIN
        /// flow). [RFC 5849 §2.1](https://www.rfc-editor.org/rfc/rfc5849#section-2.1)
        ///
        /// - Throws: ``OAuth1/FlowError`` `.providerRefused` (with `oauth_problem` when given),
        ///   `.callbackNotConfirmed` unless `oauth_callback_confirmed=true`, `.malformedResponse`
        ///   when `oauth_token` or `oauth_token_secret` is missing.
        public func requestToken(callback: String, extra: [Parameter] = []) async throws -> RequestToken {
            let fields = try await post(
                provider.requestTokenURL,
                token: nil,
                callback: callback,
                verifier: nil,
                form: extra
            )
            let credentials = try Self.credentials(in: fields, step: "request token")
            let token = RequestToken(token: credentials.token, secret: credentials.secret)
            guard fields.first(where: { $0.name == "oauth_callback_confirmed" })?.value == "true" else {
                throw FlowError(
                    .callbackNotConfirmed,
                    "the provider did not answer oauth_callback_confirmed=true (RFC 5849 §2.1)"
                )
            }
            return token
        }

        /// Step 2: where to send the user: the authorize URL with `oauth_token`.
        /// [RFC 5849 §2.2](https://www.rfc-editor.org/rfc/rfc5849#section-2.2)
        public func authorizeURL(for requestToken: RequestToken) -> String {
            let separator = provider.authorizeURL.contains("?") ? "&" : "?"
            return provider.authorizeURL + separator + "oauth_token=" + PercentEncoding.encode(requestToken.token)
        }

        /// Step 2's answer: the verifier from the callback URL the user agent was sent to, after
        /// checking that its `oauth_token` is the pending request token.
        ///
        /// - Throws: ``OAuth1/FlowError`` `.consentDenied` for a `denied=` callback, `.callbackMismatch`
        ///   when `oauth_token` is another token (or missing), `.missingVerifier`, `.malformedResponse`
        ///   for a query that is not form-encoded.
        public func verifier(fromCallback url: String, for requestToken: RequestToken) throws -> String {
            let query = Substring(URIReference(parsing: url).query ?? "")
            let parameters: [(name: String, value: String)]
            do {
                parameters = try FormURLEncoding.decode(query)
            } catch {
                throw FlowError(.malformedResponse, "the callback's query is not form-encoded")
            }
            func value(_ name: String) -> String? { parameters.first { $0.name == name }?.value }
            if let denied = value("denied") {
                guard constantTimeEquals(denied, requestToken.token) else {
                    throw FlowError(.callbackMismatch, "the callback denies another request token")
                }
                throw FlowError(.consentDenied, "the user denied access")
            }
            guard let token = value("oauth_token"), constantTimeEquals(token, requestToken.token) else {
                throw FlowError(.callbackMismatch, "the callback's oauth_token is not the pending request token")
            }
            guard let verifier = value("oauth_verifier"), !verifier.isEmpty else {
                throw FlowError(.missingVerifier, "the callback has no oauth_verifier")
            }
            return verifier
        }

        /// Step 3: token credentials for the authorized request token and its verifier (from
        /// the callback, or the PIN the user typed).
        /// [RFC 5849 §2.3](https://www.rfc-editor.org/rfc/rfc5849#section-2.3)
        public func accessToken(for requestToken: RequestToken, verifier: String) async throws -> AccessToken {
            let fields = try await post(
                provider.accessTokenURL,
                token: requestToken.signingCredentials,
                callback: nil,
                verifier: verifier,
                form: []
            )
            let credentials = try Self.credentials(in: fields, step: "access token")
            return AccessToken(
                credentials: credentials,
                fields: fields.filter { $0.name != "oauth_token" && $0.name != "oauth_token_secret" }
            )
        }

        /// The three legs in one call (RFC 5849 §2.1–§2.3): temporary credentials for
        /// `callback`, the user's consent through `userAgent`, the verifier checked against the
        /// pending request token, and the token credentials.
        ///
        /// `userAgent` is given the authorize URL and returns what came back: the callback URL
        /// the provider redirected to (a loopback listener's callback, a web view's intercepted
        /// navigation, a pasted URL) or, for `callback: "oob"`, the PIN the user typed.
        ///
        /// ```swift
        /// let access = try await flow.signIn(callback: "oob") { authorizeURL in
        ///     print("Open \(authorizeURL), then type the PIN:")
        ///     return readLine() ?? ""
        /// }
        /// ```
        ///
        /// With a loopback listener, `RemoteAuthLoopback`'s `listener.accessToken(for:flow:timeout:)`
        /// does the steps after ``requestToken(callback:extra:)`` itself: it ignores (and keeps waiting
        /// past) a callback for another request token, and tells the browser the truth.
        ///
        /// - Throws: the errors of ``requestToken(callback:extra:)``,
        ///   ``verifier(fromCallback:for:)`` and ``accessToken(for:verifier:)``, and whatever
        ///   `userAgent` throws.
        public func signIn(
            callback: String,
            isolation: isolated (any Actor)? = #isolation,
            userAgent: (_ authorizeURL: String) async throws -> String
        ) async throws -> AccessToken {
            let requestToken = try await requestToken(callback: callback)
            let answer = try await userAgent(authorizeURL(for: requestToken))
            let verifier: String
            if callback == "oob" {
                verifier = String(answer.drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
                guard !verifier.isEmpty else { throw FlowError(.missingVerifier, "no PIN was given") }
            } else {
                verifier = try self.verifier(fromCallback: answer, for: requestToken)
            }
            return try await accessToken(for: requestToken, verifier: verifier)
        }

        /// Reverse auth, step 1 (the app's server): the signed `OAuth …` string a device passes
        /// on as `x_reverse_auth_parameters`, from `x_auth_mode=reverse_auth` on the request token URL.
        public func reverseAuthParameters() async throws -> String {
            let (response, body) = try await send(
                provider.requestTokenURL,
                token: nil,
                callback: nil,
                verifier: nil,
                form: [Parameter("x_auth_mode", "reverse_auth")]
            )
            let text = String(decoding: body, as: UTF8.self)
            guard response.status == .ok else { throw Self.refusal(response, body) }
            guard (try? AuthorizationHeader.parse(text)) != nil else {
                throw FlowError(.malformedResponse, "the reverse auth answer is not an 'OAuth …' header string")
            }
            return text
        }

        /// Reverse auth, step 2 (the device, signed with its own client and access token): a
        /// token pair of the device's user for `targetConsumerKey`.
        public func reverseAuthAccessToken(
            deviceToken: TokenCredentials,
            targetConsumerKey: String,
            parameters: String
        ) async throws -> AccessToken {
            let fields = try await post(
                provider.accessTokenURL,
                token: deviceToken,
                callback: nil,
                verifier: nil,
                form: [
                    Parameter("x_reverse_auth_target", targetConsumerKey),
                    Parameter("x_reverse_auth_parameters", parameters),
                ]
            )
            let credentials = try Self.credentials(in: fields, step: "reverse auth")
            return AccessToken(
                credentials: credentials,
                fields: fields.filter { $0.name != "oauth_token" && $0.name != "oauth_token_secret" }
            )
        }

        // MARK: Wire

        func post(
            _ url: String,
            token: TokenCredentials?,
            callback: String?,
            verifier: String?,
            form: [Parameter]
        ) async throws -> [Parameter] {
            let (response, body) = try await send(url, token: token, callback: callback, verifier: verifier, form: form)
            guard response.status == .ok else { throw Self.refusal(response, body) }
            do {
                return try FormURLEncoding.decode(bytes: body).map { Parameter($0.name, $0.value) }
            } catch {
                throw FlowError(.malformedResponse, "the provider's answer is not form-encoded")
            }
        }

        func send(
            _ url: String,
            token: TokenCredentials?,
            callback: String?,
            verifier: String?,
            form: [Parameter]
        ) async throws -> (HTTPResponse, [UInt8]) {
            var request = try HTTPRequest(method: .post, absoluteURL: url)
            var body: [UInt8]? = nil
            if !form.isEmpty || provider.placement == .body {
                request.headerFields[.contentType] = FormURLEncoding.mediaType
                body = Array(OAuth1.formEncoded(form).utf8)
            }
            let signer = try Signer(
                client: client,
                token: token,
                signatureMethod: provider.signatureMethod,
                privateKey: privateKey
            )
            let signed = try signer.sign(
                request,
                body: body,
                options: SigningOptions(
                    placement: provider.placement,
                    realm: provider.realm,
                    callback: callback,
                    verifier: verifier
                ),
                nonce: nonce(),
                timestamp: now()
            )
            return try await transport.send(signed.request, body: signed.body)
        }

        static func credentials(in fields: [Parameter], step: String) throws -> TokenCredentials {
            guard let token = fields.first(where: { $0.name == "oauth_token" })?.value, !token.isEmpty else {
                throw FlowError(.malformedResponse, "the \(step) answer has no oauth_token")
            }
            guard let secret = fields.first(where: { $0.name == "oauth_token_secret" })?.value else {
                throw FlowError(.malformedResponse, "the \(step) answer has no oauth_token_secret")
            }
            return TokenCredentials(token: token, secret: secret)
        }

        /// The provider's refusal, with `oauth_problem` from the body or `WWW-Authenticate`
        /// (OAuth Problem Reporting) when it gave one.
        static func refusal(_ response: HTTPResponse, _ body: [UInt8]) -> FlowError {
            var problem = (try? FormURLEncoding.decode(bytes: body))?
                .first { $0.name == "oauth_problem" }?.value
            if problem == nil {
                for value in response.headerFields[values: .wwwAuthenticate] {
                    if let parsed = try? AuthorizationHeader.parse(value),
                        let found = parsed.parameters.first(where: { $0.name == "oauth_problem" })
                    {
                        problem = found.value
                    }
                }
            }
            return FlowError(
                .providerRefused,
                "the provider answered \(response.status.code)" + (problem.map { " with oauth_problem=\($0)" } ?? ""),
                status: response.status.code,
                problem: problem.map(Problem.init(rawValue:))
            )
        }
    }
}

extension OAuth1 {
    /// A failure of the OAuth 1.0a flow, with a stable code; ``problem`` carries the provider's
    /// `oauth_problem` when it gave one. Never carries a secret.
    public struct FlowError: Error, Hashable, CustomStringConvertible {
        /// What went wrong, as a stable code: compare it with `==` (the set is open).
        public struct Code: Hashable, Sendable, CustomStringConvertible {
            private enum Base: String, Sendable {
                case providerRefused, callbackNotConfirmed, malformedResponse, callbackMismatch, consentDenied,
                    missingVerifier
            }
            private let base: Base
            private init(_ base: Base) { self.base = base }
            /// A non-200 answer from the provider.
            public static let providerRefused = Code(.providerRefused)
            /// `oauth_callback_confirmed` missing or not `true` (RFC 5849 §2.1).
            public static let callbackNotConfirmed = Code(.callbackNotConfirmed)
            /// An answer without `oauth_token`/`oauth_token_secret`, or not form-encoded.
            public static let malformedResponse = Code(.malformedResponse)
            /// A callback for another request token than the pending one.
            public static let callbackMismatch = Code(.callbackMismatch)
            /// The user denied access (`denied=` on the callback).
            public static let consentDenied = Code(.consentDenied)
            /// A callback without `oauth_verifier`.
            public static let missingVerifier = Code(.missingVerifier)
            public var description: String { base.rawValue }
        }

        public let code: Code
        public let reason: String
        /// The HTTP status of a refusal.
        public let status: Int?
        /// `oauth_problem`, when the provider reported one.
        public let problem: Problem?

        /// Creates the error `code` with `reason`, the HTTP `status` of a refusal and the provider's
        /// `oauth_problem`, when there are any.
        public init(_ code: Code, _ reason: String, status: Int? = nil, problem: Problem? = nil) {
            self.code = code
            self.reason = reason
            self.status = status
            self.problem = problem
        }

        public static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code }
        public func hash(into hasher: inout Hasher) { hasher.combine(code) }
        public var description: String { "OAuth1.FlowError.\(code): \(reason)" }
    }
}

/// The OAuth 1.0a flow's error, by its old name.
@available(*, deprecated, renamed: "OAuth1.FlowError")
public typealias FlowError = OAuth1.FlowError
