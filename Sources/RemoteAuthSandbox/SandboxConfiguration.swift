import Foundation
public import HTTPTypes
public import RemoteAuth

/// What a sandbox serves and to whom: its address, its identities and its policies.
///
/// ``demo()`` holds the fixed demo identities that documentation and scripts rely on (like
/// httpbin's); a JSON file (``load(configFile:)``) adds consumers, RSA keys and users.
public struct SandboxConfiguration: Sendable {
    /// A registered client (consumer). An RSA-SHA1 client registers `rsaPublicKeyPEM` (a
    /// public key or a certificate) and may have no secret.
    public struct Consumer: Codable, Sendable, Hashable, CustomStringConvertible {
        /// `oauth_consumer_key`.
        public var key: String
        /// The consumer secret; `nil` for an `RSA-SHA1` client.
        public var secret: String?
        /// The application's name, shown on the consent page.
        public var name: String?
        /// The public key (or certificate) that verifies an `RSA-SHA1` client's signatures, PEM.
        public var rsaPublicKeyPEM: String?

        /// A consumer with its key and, by its signature method, a secret or an RSA public key.
        public init(key: String, secret: String? = nil, name: String? = nil, rsaPublicKeyPEM: String? = nil) {
            self.key = key
            self.secret = secret
            self.name = name
            self.rsaPublicKeyPEM = rsaPublicKeyPEM
        }

        public var description: String { "Consumer(key: \(key), secret: <redacted>)" }
    }

    /// An AWS access key the status API verifies SigV4 requests of (any region and service),
    /// acting for `user`.
    public struct AWSKey: Codable, Sendable, Hashable, CustomStringConvertible {
        /// The access key id (`AKID…`).
        public var accessKeyID: String
        /// The secret access key.
        public var secret: String
        /// The user the key acts for.
        public var user: String

        /// An access key acting for `user`.
        public init(accessKeyID: String, secret: String, user: String) {
            self.accessKeyID = accessKeyID
            self.secret = secret
            self.user = user
        }

        public var description: String { "AWSKey(\(accessKeyID), user: \(user), secret: <redacted>)" }
    }

    /// An account that can sign in on the consent page and use Basic and Digest.
    public struct User: Codable, Sendable, Hashable, CustomStringConvertible {
        /// The name the user signs in with.
        public var name: String
        /// The password, for the consent page, Basic and Digest.
        public var password: String
        /// A numeric id, as Twitter's `user_id`; assigned from the name when absent.
        public var id: String?

        /// A user with a password and, optionally, a fixed id.
        public init(name: String, password: String, id: String? = nil) {
            self.name = name
            self.password = password
            self.id = id
        }

        public var description: String { "User(name: \(name), password: <redacted>)" }
    }

    /// An access token that exists from the start (the device's token for reverse auth).
    public struct SeededToken: Codable, Sendable, Hashable, CustomStringConvertible {
        /// The consumer the token was issued to.
        public var consumerKey: String
        /// `oauth_token`.
        public var token: String
        /// `oauth_token_secret`.
        public var secret: String
        /// The user the token acts for.
        public var user: String

        /// An access token that exists from the start.
        public init(consumerKey: String, token: String, secret: String, user: String) {
            self.consumerKey = consumerKey
            self.token = token
            self.secret = secret
            self.user = user
        }

        public var description: String { "SeededToken(consumer: \(consumerKey), token: \(token), user: \(user))" }
    }

    /// A registered OAuth 2 client ([RFC 6749 §2](https://www.rfc-editor.org/rfc/rfc6749#section-2)):
    /// confidential with a `secret`, public without one. A registered loopback redirect URI
    /// without a port (`http://127.0.0.1/callback`, `http://[::1]/…`, `http://localhost/…`)
    /// accepts any port ([RFC 8252 §7.3](https://www.rfc-editor.org/rfc/rfc8252#section-7.3));
    /// every other one must match exactly.
    public struct OAuth2Client: Codable, Sendable, Hashable, CustomStringConvertible {
        /// `client_id`.
        public var id: String
        /// The client secret; `nil` for a public client (or one that authenticates otherwise).
        public var secret: String?
        /// The application's name, shown on the consent page.
        public var name: String?
        /// The registered redirect URIs; a loopback one without a port accepts any port (RFC 8252 §7.3).
        public var redirectURIs: [String]
        /// The token endpoint refuses this client's requests without a DPoP proof
        /// ([RFC 9449 §5](https://www.rfc-editor.org/rfc/rfc9449#section-5)); `requireDPoP` in a
        /// config file, `false` when absent.
        public var requireDPoP: Bool
        /// The client's public keys (a JWK Set), against which its `private_key_jwt`
        /// assertions are verified ([RFC 7523 §2.2](https://www.rfc-editor.org/rfc/rfc7523#section-2.2),
        /// [RFC 7591 §2](https://www.rfc-editor.org/rfc/rfc7591#section-2) `jwks`).
        public var jwks: JSONValue?
        /// `token_endpoint_auth_method`: when set, the only method the client may use
        /// (`client_secret_basic`, `client_secret_post`, `client_secret_jwt`, `private_key_jwt`).
        public var tokenEndpointAuthMethod: String?
        /// `id_token_signed_response_alg`: `RS256` (the default) or `ES256`.
        public var idTokenSignedResponseAlg: String?
        /// `tls_client_auth_subject_dn`: the subject DN, in RFC 4514 form (`CN=svc,O=Example`,
        /// as `openssl x509 -noout -subject -nameopt RFC2253` prints it), that the certificate of
        /// a `tls_client_auth` client must have
        /// ([RFC 8705 §2.1.2](https://www.rfc-editor.org/rfc/rfc8705#section-2.1.2)).
        public var tlsClientAuthSubjectDN: String?
        /// The self-signed certificate(s), in PEM, of a `self_signed_tls_client_auth` client
        /// ([RFC 8705 §2.2](https://www.rfc-editor.org/rfc/rfc8705#section-2.2)).
        public var tlsClientCertificatePEM: String?
        /// The `x5t#S256` (base64url SHA-256 of the DER) of a `self_signed_tls_client_auth`
        /// client's certificate, instead of the PEM.
        public var tlsClientCertificateSHA256: String?
        /// `post_logout_redirect_uris`: where the end-session endpoint may send the browser
        /// after a logout, each compared exactly ([OpenID Connect RP-Initiated Logout 1.0 §3.1](https://openid.net/specs/openid-connect-rpinitiated-1_0.html#ClientMetadata));
        /// `postLogoutRedirectURIs` in a config file.
        public var postLogoutRedirectURIs: [String]

        /// A registered client; every member but `id` has a default.
        public init(
            id: String,
            secret: String? = nil,
            name: String? = nil,
            redirectURIs: [String] = [],
            requireDPoP: Bool = false,
            jwks: JSONValue? = nil,
            tokenEndpointAuthMethod: String? = nil,
            idTokenSignedResponseAlg: String? = nil,
            tlsClientAuthSubjectDN: String? = nil,
            tlsClientCertificatePEM: String? = nil,
            tlsClientCertificateSHA256: String? = nil,
            postLogoutRedirectURIs: [String] = []
        ) {
            self.id = id
            self.secret = secret
            self.name = name
            self.redirectURIs = redirectURIs
            self.requireDPoP = requireDPoP
            self.jwks = jwks
            self.tokenEndpointAuthMethod = tokenEndpointAuthMethod
            self.idTokenSignedResponseAlg = idTokenSignedResponseAlg
            self.tlsClientAuthSubjectDN = tlsClientAuthSubjectDN
            self.tlsClientCertificatePEM = tlsClientCertificatePEM
            self.tlsClientCertificateSHA256 = tlsClientCertificateSHA256
            self.postLogoutRedirectURIs = postLogoutRedirectURIs
        }

        enum CodingKeys: String, CodingKey {
            case id, secret, name, redirectURIs, requireDPoP, jwks, tokenEndpointAuthMethod, idTokenSignedResponseAlg
            case tlsClientAuthSubjectDN, tlsClientCertificatePEM, tlsClientCertificateSHA256
            case postLogoutRedirectURIs
        }

        /// `redirectURIs` may be left out (a client that only uses client credentials).
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            id = try container.decode(String.self, forKey: .id)
            secret = try container.decodeIfPresent(String.self, forKey: .secret)
            name = try container.decodeIfPresent(String.self, forKey: .name)
            redirectURIs = try container.decodeIfPresent([String].self, forKey: .redirectURIs) ?? []
            requireDPoP = try container.decodeIfPresent(Bool.self, forKey: .requireDPoP) ?? false
            jwks = try container.decodeIfPresent(JSONValue.self, forKey: .jwks)
            tokenEndpointAuthMethod = try container.decodeIfPresent(String.self, forKey: .tokenEndpointAuthMethod)
            idTokenSignedResponseAlg = try container.decodeIfPresent(String.self, forKey: .idTokenSignedResponseAlg)
            tlsClientAuthSubjectDN = try container.decodeIfPresent(String.self, forKey: .tlsClientAuthSubjectDN)
            tlsClientCertificatePEM = try container.decodeIfPresent(String.self, forKey: .tlsClientCertificatePEM)
            tlsClientCertificateSHA256 = try container.decodeIfPresent(
                String.self,
                forKey: .tlsClientCertificateSHA256
            )
            postLogoutRedirectURIs =
                try container.decodeIfPresent([String].self, forKey: .postLogoutRedirectURIs) ?? []
        }

        /// Whether the client authenticates with its TLS certificate (RFC 8705 §2).
        public var usesMutualTLS: Bool {
            tokenEndpointAuthMethod == "tls_client_auth" || tokenEndpointAuthMethod == "self_signed_tls_client_auth"
        }

        /// A client with a secret, registered keys or a TLS client certificate.
        public var isConfidential: Bool { secret != nil || jwks != nil || usesMutualTLS }

        public var description: String {
            "OAuth2Client(id: \(id), \(secret == nil ? "public" : "secret: <redacted>"))"
        }
    }

    /// TLS material in PEM: a certificate chain (leaf first) and its private key, and the CAs
    /// that issue client certificates.
    ///
    /// The sandbox always asks for a client certificate (a TLS `CertificateRequest`); with
    /// ``requiresClientCertificate``, a client must present one issued by a `clientCAPEM` CA or
    /// the handshake fails. Otherwise any certificate, self-signed too, is taken and checked
    /// where it matters: `tls_client_auth` clients' against `clientCAPEM`,
    /// `self_signed_tls_client_auth` clients' against the registered one (RFC 8705 §2), and
    /// tokens are bound to it (§3).
    public struct TLSMaterial: Sendable {
        /// The server's certificate chain, leaf first, PEM.
        public var certificateChainPEM: String
        /// The server's private key, PEM.
        public var privateKeyPEM: String
        /// The CA whose client certificates the handshake accepts, PEM; `nil` takes any.
        public var clientCAPEM: String?
        /// The handshake fails without a client certificate from `clientCAPEM`.
        public var requiresClientCertificate: Bool
        /// - Parameter requiresClientCertificate: `nil` requires one exactly when `clientCAPEM`
        ///   is given.
        /// - Parameter certificateChainPEM: the server's certificate chain, leaf first.
        /// - Parameter privateKeyPEM: the server's private key.
        /// - Parameter clientCAPEM: the CA whose client certificates are accepted; `nil` takes any.
        public init(
            certificateChainPEM: String,
            privateKeyPEM: String,
            clientCAPEM: String? = nil,
            requiresClientCertificate: Bool? = nil
        ) {
            self.certificateChainPEM = certificateChainPEM
            self.privateKeyPEM = privateKeyPEM
            self.clientCAPEM = clientCAPEM
            self.requiresClientCertificate = (requiresClientCertificate ?? (clientCAPEM != nil)) && clientCAPEM != nil
        }
    }

    /// The address to listen on; the sandbox is meant for loopback.
    public var host = "127.0.0.1"
    /// The port; 0 picks a free one (read it back from ``RunningSandbox/port``).
    public var port = 0
    /// Sign alice in and approve every authorize request at once, for headless runs.
    public var autoApprove = false
    /// Accepted distance between `oauth_timestamp` and the server clock, in seconds.
    public var timestampWindow: Int64 = 300
    /// How long a Digest nonce stays fresh, in seconds; an older one is answered `stale=true`.
    public var digestNonceLifetime: Int64 = 300
    /// The realm of every challenge.
    public var realm = "RemoteAuth Sandbox"
    /// The OAuth 1.0a consumers.
    public var consumers: [Consumer] = []
    /// The users who can sign in.
    public var users: [User] = []
    /// OAuth 1.0a access tokens that exist from the start.
    public var seededTokens: [SeededToken] = []
    /// The OAuth 2 clients of the authorization server under `/oauth2`.
    public var oauth2Clients: [OAuth2Client] = []
    /// The AWS Signature Version 4 access keys the status API verifies, each acting for a user.
    public var awsKeys: [AWSKey] = []
    /// The RFC 9421 client keys the status API verifies HTTP Message Signatures of, by `keyid`.
    public var httpSignatureKeys: [HTTPSignatureKey] = []
    /// The key the status API signs its responses with when a request asks (`Accept-Signature`,
    /// RFC 9421 §5.1); `nil` signs none.
    public var httpSignatureResponseKey: HTTPMessageSignatures.SigningKey?
    /// The scopes the authorization server grants; a request without `scope` gets them all
    /// ([RFC 6749 §3.3](https://www.rfc-editor.org/rfc/rfc6749#section-3.3)).
    public var oauth2Scopes = ["statuses:read", "statuses:write"]
    /// `expires_in` of every OAuth 2 access token, in seconds.
    public var accessTokenTTL: Int64 = 3600
    /// How long an authorization code can be exchanged, in seconds.
    public var authorizationCodeTTL: Int64 = 60
    /// `expires_in` of a device code, in seconds ([RFC 8628 §3.2](https://www.rfc-editor.org/rfc/rfc8628#section-3.2)).
    public var deviceCodeTTL: Int64 = 600
    /// The device flow's polling `interval`, in seconds.
    public var devicePollingInterval: Int64 = 5
    /// Also answer `response_type=token` (the implicit grant, [RFC 6749 §4.2](https://www.rfc-editor.org/rfc/rfc6749#section-4.2)),
    /// which [RFC 9700 §2.1.2](https://www.rfc-editor.org/rfc/rfc9700#section-2.1.2) says not to use; off by default.
    public var implicitGrant = false
    /// Accept authorization requests only through the PAR endpoint, `POST /oauth2/par`, and say
    /// so in the metadata (`require_pushed_authorization_requests`,
    /// [RFC 9126 §5](https://www.rfc-editor.org/rfc/rfc9126#section-5)); off by default.
    public var requirePushedAuthorizationRequests = false
    /// `expires_in` of a pushed request's `request_uri`, in seconds
    /// ([RFC 9126 §2.2](https://www.rfc-editor.org/rfc/rfc9126#section-2.2) suggests 5 to 600).
    public var pushedRequestTTL: Int64 = 60
    /// Require the server's `DPoP-Nonce` in DPoP proofs, at the token endpoint and at the
    /// status API ([RFC 9449 §8](https://www.rfc-editor.org/rfc/rfc9449#section-8),
    /// [§9](https://www.rfc-editor.org/rfc/rfc9449#section-9)); off by default.
    public var dpopNonce = false
    /// Rotate the OpenID provider's signing keys after this many seconds of ``now`` (the
    /// previous keys stay published); `nil`, the default, keeps one generation.
    public var openIDKeyRotationInterval: Int64?
    /// A test hook: the `sub` of the ID tokens issued on refresh, instead of the user's own, so
    /// that a relying party's Core §12.2 check ("its sub Claim Value MUST be the same as in
    /// the ID Token issued when the original authentication occurred") can be seen refusing
    /// one. `nil` (the default) issues them as Core §12.2 says.
    public var refreshedIDTokenSubject: String?
    /// Keeps what the sandbox confirmed across restarts: OAuth 1.0a request and access tokens,
    /// statuses, and OAuth 2 authorization codes, access and refresh tokens (JSON, written
    /// atomically before each answer that changed it, mode 0600). Pending consent pages,
    /// pushed requests, device codes, sessions and nonces stay in memory.
    public var statePath: String?
    /// The most entries each of the sandbox's tables holds (OAuth 1.0a request and access
    /// tokens, statuses, OAuth 2 pending and pushed requests, codes, access and refresh tokens,
    /// device codes): a new one first drops the oldest, so memory stays bounded however many
    /// tokens clients ask for. Seeded tokens are never dropped.
    public var tableCapacity = 100_000
    /// The initial access token dynamic registration requires as `Authorization: Bearer`
    /// ([RFC 7591 §3](https://www.rfc-editor.org/rfc/rfc7591#section-3)); `nil`, the default,
    /// leaves `POST /oauth2/register` open.
    public var registrationToken: String?
    /// Step-up authentication ([RFC 9470](https://www.rfc-editor.org/rfc/rfc9470)) on the status
    /// API's writes: `nil`, the default, takes any token with `statuses:write`; with a policy, a
    /// write needs a token whose sign-in was of the policy's class (and recent enough), else
    /// `401` with `error="insufficient_user_authentication"` and `acr_values`.
    public var stepUp: StepUpPolicy?
    /// Signs each protected resource's metadata: `signed_metadata`, a JWT of the document's
    /// members with `iss` the sandbox's base URL ([RFC 9728 §2.2](https://www.rfc-editor.org/rfc/rfc9728#section-2.2)).
    /// `nil`, the default, serves the documents unsigned.
    public var resourceMetadataSigningKey: JOSE.SigningKey?
    /// The protected resources take only DPoP-bound access tokens: their metadata says
    /// `dpop_bound_access_tokens_required` ([RFC 9728 §2](https://www.rfc-editor.org/rfc/rfc9728#section-2),
    /// [RFC 9449 §5.2](https://www.rfc-editor.org/rfc/rfc9449#section-5.2)) and a Bearer token
    /// is refused with a `DPoP` challenge. `false`, the default, takes both.
    public var requireDPoP = false
    /// The most clients `POST /oauth2/register` keeps at once (RFC 7591); a registration beyond
    /// it is refused with `403` until one is deleted (RFC 7592).
    public var registeredClientLimit = 1000
    /// Take a `client_id` that is an `https` URL as the address of the client's metadata
    /// document, fetched when an endpoint first names it, and say so in the authorization
    /// server metadata (`client_id_metadata_document_supported`,
    /// [draft-ietf-oauth-client-id-metadata-document](https://datatracker.ietf.org/doc/draft-ietf-oauth-client-id-metadata-document/)).
    /// On by default: it is how MCP clients identify themselves to a server they have never
    /// met, and the tool's `--client-metadata-url` needs it; fetching only `https` keeps the
    /// sandbox from being a way to reach plain-http services on this machine for whoever can
    /// open a link to it.
    public var clientIDMetadataDocuments = true
    /// Also fetch metadata documents over `http` from `127.0.0.1`, `[::1]` and `localhost`
    /// (`--allow-loopback-client-metadata`), for a client under development whose document is
    /// served locally; off by default.
    public var allowLoopbackClientMetadata = false
    /// Seconds a client metadata document's fetch may take in all (connection, request, body)
    /// before the endpoint that named it refuses the client. Default 5: a document is a small
    /// static file.
    public var clientMetadataDocumentTimeout: Int64 = 5
    /// Serve HTTPS with this material.
    public var tls: TLSMaterial?
    /// Called with the head of every request that reaches the router, before it is handled:
    /// lets a test see from the server's side what arrived (and that nothing did).
    public var onRequest: (@Sendable (HTTPRequest) -> Void)?
    /// Called once for every connection the sandbox accepts, before its TLS handshake: lets a
    /// test count connections (so handshakes) from the server's side, as a client's connection
    /// reuse is seen there.
    public var onConnection: (@Sendable () -> Void)?
    /// Called with one entry per answered request: method, path, status, and the
    /// `oauth_problem` or challenge outcome of a refusal. `nil` (the default) logs nothing; the
    /// `remote-auth sandbox` command writes each entry to stderr unless `--quiet`.
    public var requestLog: (@Sendable (SandboxLogEntry) -> Void)?
    /// The clock, in seconds since 1970; injectable so tests can move time.
    public var now: @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970) }
    /// Where tokens, secrets, verifiers, PINs, nonces and session identifiers come from;
    /// injectable so tests can repeat a run.
    public var random: RandomSource = .system

    /// An empty configuration on `127.0.0.1` and a free port: no users, no clients.
    public init() {}

    /// The demo identities: consumer `demo-consumer` / `demo-consumer-secret`; device consumer
    /// `demo-device` / `demo-device-secret` holding alice's access token `alice-device-token` /
    /// `alice-device-token-secret`; user `alice` / `wonderland`.
    public static func demo() -> SandboxConfiguration {
        var configuration = SandboxConfiguration()
        configuration.consumers = [
            Consumer(key: "demo-consumer", secret: "demo-consumer-secret", name: "RemoteAuth Demo"),
            Consumer(key: "demo-device", secret: "demo-device-secret", name: "RemoteAuth Device"),
        ]
        configuration.users = [User(name: "alice", password: "wonderland", id: "1001")]
        configuration.awsKeys = [AWSKey(accessKeyID: "AKIDSANDBOX", secret: "sandbox-aws-secret", user: "alice")]
        configuration.httpSignatureKeys = [DemoSignatureKeys.clientKey]
        configuration.httpSignatureResponseKey = DemoSignatureKeys.responseSigningKey
        configuration.oauth2Clients = [
            OAuth2Client(id: "demo-app", name: "RemoteAuth Demo App", redirectURIs: ["http://127.0.0.1/callback"]),
            OAuth2Client(
                id: "demo-service",
                secret: "demo-service-secret",
                name: "RemoteAuth Demo Service",
                redirectURIs: ["http://127.0.0.1/callback"]
            ),
        ]
        configuration.seededTokens = [
            SeededToken(
                consumerKey: "demo-device",
                token: "alice-device-token",
                secret: "alice-device-token-secret",
                user: "alice"
            )
        ]
        return configuration
    }

    /// Adds the consumers, users and tokens of a JSON configuration file, e.g.
    /// `{"consumers":[{"key":"rsa-app","name":"RSA App","rsaPublicKeyPEM":"-----BEGIN PUBLIC KEY-----\n…"}],
    ///   "users":[{"name":"bob","password":"builder"}],
    ///   "oauth2Clients":[{"id":"my-app","redirectURIs":["http://127.0.0.1/callback"]},
    ///                    {"id":"my-service","secret":"s3cret"}],
    ///   "httpSignatureKeys":[{"keyID":"my-key","user":"alice","algorithm":"ecdsa-p256-sha256",
    ///                         "publicKeyPEM":"-----BEGIN PUBLIC KEY-----\n…"}]}` (RFC 9421; hmac-sha256
    ///   takes `secretBase64`). Entries replace same-named ones.
    public mutating func load(configFile path: String) throws {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw SandboxError("cannot read the configuration file '\(path)'")
        }
        let file: File
        do {
            file = try JSONDecoder().decode(File.self, from: data)
        } catch {
            throw SandboxError("the configuration file '\(path)' is not valid: \(error)")
        }
        for consumer in file.consumers ?? [] {
            if consumer.secret == nil && consumer.rsaPublicKeyPEM == nil {
                throw SandboxError("consumer '\(consumer.key)' has neither a secret nor an rsaPublicKeyPEM")
            }
            if let pem = consumer.rsaPublicKeyPEM {
                do {
                    _ = try OAuth1.RSAPublicKey(pemRepresentation: pem)
                } catch {
                    throw SandboxError(
                        "consumer '\(consumer.key)': rsaPublicKeyPEM is not an RSA public key or certificate"
                    )
                }
            }
            consumers.removeAll { $0.key == consumer.key }
            consumers.append(consumer)
        }
        for user in file.users ?? [] {
            users.removeAll { $0.name == user.name }
            users.append(user)
        }
        for client in file.oauth2Clients ?? [] {
            // RFC 8705 §2.1.2 and §2.2: a certificate client names what its certificate must be.
            if client.tokenEndpointAuthMethod == "tls_client_auth", client.tlsClientAuthSubjectDN == nil {
                throw SandboxError("OAuth 2 client '\(client.id)': tls_client_auth needs tlsClientAuthSubjectDN")
            }
            if client.tokenEndpointAuthMethod == "self_signed_tls_client_auth", client.selfSignedThumbprints.isEmpty {
                throw SandboxError(
                    "OAuth 2 client '\(client.id)': self_signed_tls_client_auth needs tlsClientCertificatePEM (a PEM certificate) or tlsClientCertificateSHA256"
                )
            }
            oauth2Clients.removeAll { $0.id == client.id }
            oauth2Clients.append(client)
        }
        for key in file.httpSignatureKeys ?? [] {
            _ = try key.verificationKey()
            httpSignatureKeys.removeAll { $0.keyID == key.keyID }
            httpSignatureKeys.append(key)
        }
        for token in file.tokens ?? [] {
            seededTokens.removeAll { $0.token == token.token }
            seededTokens.append(token)
        }
    }
}

/// A sandbox that cannot start or is misconfigured.
public struct SandboxError: Error, CustomStringConvertible {
    /// Why the sandbox cannot start, in plain words.
    public let reason: String
    /// Creates the error with `reason`, in plain words.
    public init(_ reason: String) { self.reason = reason }
    public var description: String { reason }
}
