import ArgumentParser
import Foundation
import RemoteAuth
import RemoteAuthAsyncHTTPClient
import RemoteAuthNIO
import RemoteAuthFileStore
import RemoteAuthLoopback

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `remote-auth authorize oauth2`: the authorization code grant with PKCE through a loopback
/// callback (or a pasted redirect), the device grant, or the client credentials grant; the
/// tokens are kept under `--profile` as an ``OAuth2/Session``.
struct AuthorizeOAuth2: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "oauth2",
        abstract:
            "OAuth 2: code + PKCE (default), --device, or --client-credentials, keeping the tokens under --profile.",
        discussion: ExitStatus.discussion(
            """
            With --issuer, the endpoints come from the server's metadata (RFC 8414) and the redirect's \
            iss is checked (RFC 9207); else name them with --authorization-url and --token-url. The \
            default grant is the authorization code with PKCE S256 (RFC 7636): a listener on 127.0.0.1 \
            with a free port and the path of --redirect-uri is the callback (RFC 8252 §7.3); the URL \
            opens in the browser, or is printed on a line of its own with --no-browser. With --paste, \
            nothing listens: open the printed URL, then paste the address the browser was sent to on \
            standard input. --device uses the device grant (RFC 8628); --client-credentials the client \
            credentials grant (RFC 6749 §4.4). With --par (or when the metadata says \
            require_pushed_authorization_requests) the request is pushed to the server first (RFC 9126) and \
            the browser sees only client_id and request_uri. --oidc adds OpenID Connect (a nonce, the ID token \
            validated, UserInfo); --dpop binds the tokens to a key (RFC 9449); --client-auth picks how a \
            confidential client authenticates. The token is sent to the --resource origins, else to the \
            issuer's origin. The tokens are kept in the desktop keyring when one answers, else in \
            $REMOTE_AUTH_HOME/tokens.json, mode 0600 (--store).
            """
        )
    )

    @Option(help: "The profile name the tokens are kept under.")
    var profile: String

    @Option(help: "The authorization server's issuer: its endpoints are discovered (RFC 8414).")
    var issuer: String?

    @Option(
        help: ArgumentHelp(
            "The issuer the server names, with explicit endpoints (without --issuer).",
            discussion: "The redirect's iss (RFC 9207 §2.4) must equal it; nothing is discovered."
        )
    )
    var expectedIssuer: String?

    @Option(help: "The authorization endpoint (without --issuer).")
    var authorizationURL: String?

    @Option(help: "The token endpoint (without --issuer).")
    var tokenURL: String?

    @Option(help: "The device authorization endpoint (--device without --issuer).")
    var deviceAuthorizationURL: String?

    @Option(help: "The revocation endpoint (RFC 7009), kept for 'remote-auth revoke'.")
    var revocationURL: String?

    @Option(help: "The introspection endpoint (RFC 7662), kept with the profile.")
    var introspectionURL: String?

    @Option(
        help:
            "The client identifier (required, except in a sign-in from --resource alone, where a client is registered when none is given)."
    )
    var clientID: String?

    @Option(
        help: ArgumentHelp(
            "With --resource alone: the https URL of this client's ID metadata document, used as its client_id where the server supports them.",
            valueName: "url"
        )
    )
    var clientMetadataURL: String?

    @Option(
        help: ArgumentHelp(
            "With --resource alone: the resource's metadata must carry signed_metadata (RFC 9728 §2.2) verified with this key (a JWK, JWK Set or PEM public key); its claims are used.",
            valueName: "file"
        )
    )
    var resourceMetadataKey: String?

    @Option(
        parsing: .unconditional,
        help:
            "With --resource alone: the initial access token a registration endpoint asks for (RFC 7591 §3), '-' to read it from stdin, or REMOTE_AUTH_INITIAL_ACCESS_TOKEN."
    )
    var initialAccessToken: String?

    @Option(
        parsing: .unconditional,
        help:
            "The client secret (client_secret_basic unless --client-auth), '-' to read it from stdin, or REMOTE_AUTH_CLIENT_SECRET; none for a public client."
    )
    var clientSecret: String?

    @Option(help: "The scope, space-separated (\"a b\").")
    var scope: String?

    @Option(help: "A resource server (RFC 8707) the token is for and is sent to (repeatable).")
    var resource: [String] = []

    @Option(
        help: """
            The redirect URI. Without --paste: http://127.0.0.1 or http://localhost, the listener's path; \
            with a port, that port (for servers that compare it exactly), else a free one (RFC 8252 §7.3).
            """
    )
    var redirectURI = "http://127.0.0.1/callback"

    @Flag(help: "Print the authorization URL instead of opening the browser.")
    var noBrowser = false

    @Flag(help: "Print the authorization URL and read the redirected address from standard input.")
    var paste = false

    @Flag(
        help:
            "Push the authorization request to the server's PAR endpoint first (RFC 9126); automatic when its metadata requires it."
    )
    var par = false

    @Option(help: "The pushed authorization request endpoint (RFC 9126; without --issuer).")
    var parURL: String?

    @Flag(help: "Use the device authorization grant (RFC 8628).")
    var device = false

    @Flag(
        help:
            "Use the client credentials grant (RFC 6749 §4.4); needs --client-secret, --client-key or a certificate --client-auth."
    )
    var clientCredentials = false

    @Option(help: "Seconds to wait for the browser (at least 1).")
    var timeout = 300

    @Flag(help: "Bind the tokens to a new P-256 key with DPoP (RFC 9449); the key is kept with the profile.")
    var dpop = false

    @Flag(
        help:
            "OpenID Connect: discover the issuer's openid-configuration, add 'openid' to the scope, send a nonce, validate the ID token (Core §3.1.3.7) and print its claims and UserInfo."
    )
    var oidc = false

    @Option(
        help:
            "How the client authenticates: client-secret-basic (default with a secret), client-secret-post, client-secret-jwt, private-key-jwt (RFC 7523), tls-client-auth, self-signed-tls-client-auth (RFC 8705: the --cert certificate), none."
    )
    var clientAuth: ClientAuthOption?

    @Option(
        help:
            "The client's private key (PEM: RSA, P-256 or Ed25519) for private-key-jwt; its path is kept with the profile. With --resource, a registration registers its public key (RFC 7591 jwks)."
    )
    var clientKey: String?

    @Option(help: "The aud of client assertions: token-endpoint (default) or issuer.")
    var assertionAudience: AssertionAudienceOption = .tokenEndpoint

    /// `request`'s TLS options: `--cacert`, `--pin`, `-k`, and `--cert`/`--key` for the
    /// client certificate (RFC 8705), whose paths are kept with the profile.
    @OptionGroup(title: "Profiles")
    var storeOptions: StoreOptions

    @OptionGroup(title: "TLS")
    var tlsOptions: TLSOptions

    /// Without --issuer and explicit endpoints, one --resource is where everything is found
    /// (RFC 9728): the sign-in from a resource URL alone.
    var signsInFromResource: Bool {
        issuer == nil && tokenURL == nil && authorizationURL == nil && expectedIssuer == nil && !device
            && !clientCredentials && !resource.isEmpty
    }

    func validate() throws {
        try ProfileName.check(profile)
        guard timeout > 0 else {
            throw ValidationError("--timeout must be a whole number of seconds, at least 1, not \(timeout)")
        }
        if signsInFromResource {
            guard resource.count == 1 else {
                throw ValidationError("a sign-in from --resource alone takes one --resource, not \(resource.count)")
            }
            if paste || par || oidc {
                throw ValidationError(
                    "--paste, --par and --oidc go with --issuer; a sign-in from --resource alone uses the loopback listener"
                )
            }
            if let clientAuth, clientAuth != .privateKeyJWT || clientKey == nil {
                throw ValidationError(
                    "a sign-in from --resource alone takes --client-key PEMFILE for private-key-jwt (the method is then implied), no other --client-auth"
                )
            }
            if clientKey != nil, clientSecret != nil {
                throw ValidationError("--client-key and --client-secret are two ways to authenticate: choose one")
            }
            if clientSecret != nil, clientID == nil {
                throw ValidationError("--client-secret is the secret of --client-id")
            }
            _ = try LoopbackRedirect(redirectURI)
            return
        }
        if clientMetadataURL != nil || initialAccessToken != nil || resourceMetadataKey != nil {
            throw ValidationError(
                "--client-metadata-url, --initial-access-token and --resource-metadata-key belong to a sign-in from --resource alone"
            )
        }
        guard clientID != nil else {
            throw ValidationError("--client-id is required (except in a sign-in from --resource alone)")
        }
        guard !(device && clientCredentials) else {
            throw ValidationError("--device and --client-credentials are two grants: choose one")
        }
        if (device || clientCredentials) && (paste || noBrowser || par) {
            throw ValidationError("--paste, --no-browser and --par belong to the authorization code grant")
        }
        if par, issuer == nil, parURL == nil {
            throw ValidationError("--par needs --issuer or --par-url")
        }
        if issuer == nil {
            guard tokenURL != nil else { throw ValidationError("--issuer, or --token-url, is required") }
            if device, deviceAuthorizationURL == nil {
                throw ValidationError("--device needs --issuer or --device-authorization-url")
            }
            if !device, !clientCredentials, authorizationURL == nil {
                throw ValidationError("--issuer, or --authorization-url and --token-url, are required")
            }
        }
        if expectedIssuer != nil, issuer != nil {
            throw ValidationError("--expected-issuer goes with explicit endpoints; --issuer names the issuer itself")
        }
        if oidc, issuer == nil {
            throw ValidationError("--oidc needs --issuer (its openid-configuration is discovered)")
        }
        if oidc, device || clientCredentials { throw ValidationError("--oidc belongs to the authorization code grant") }
        if clientKey != nil, let clientAuth, clientAuth != .privateKeyJWT {
            throw ValidationError("--client-key is the key of --client-auth private-key-jwt")
        }
        guard let redirect = URLComponents(string: redirectURI), redirect.scheme != nil, redirect.host != nil else {
            throw ValidationError("--redirect-uri must be an absolute URL, not '\(redirectURI)'")
        }
        if !paste && !device && !clientCredentials {
            _ = try LoopbackRedirect(redirectURI)
        }
    }

    var scopes: [String] { (scope ?? "").split(separator: " ").map(String.init) }

    func run() async throws {
        let secret = try SecretInput.resolve(
            clientSecret,
            environment: "REMOTE_AUTH_CLIENT_SECRET",
            option: "--client-secret"
        )
        if signsInFromResource {
            let initialAccessToken = try SecretInput.resolve(
                self.initialAccessToken,
                environment: "REMOTE_AUTH_INITIAL_ACCESS_TOKEN",
                option: "--initial-access-token"
            )
            // A profile signed in before keeps its registration for the same issuer (RFC 7591).
            let store = try await storeOptions.open()
            let previous = (try? await OAuth2Profile.load(profile, from: store)).flatMap { $0?.session }
            try await ResourceSignInRun(
                profile: profile,
                store: store,
                resource: resource[0],
                match: .exact,
                clientID: clientID,
                clientSecret: secret,
                clientMetadataURL: clientMetadataURL,
                initialAccessToken: initialAccessToken,
                clientKey: clientKey,
                resourceMetadataKey: resourceMetadataKey,
                scope: scope == nil ? nil : scopes,
                previous: previous,
                redirectURI: redirectURI,
                noBrowser: noBrowser,
                timeout: timeout,
                dpop: dpop,
                tls: tlsOptions,
                announceOnStdout: true
            ).run()
            return
        }
        let certificateAuth = clientAuth == .tlsClientAuth || clientAuth == .selfSignedTLSClientAuth
        if clientCredentials, secret == nil, clientKey == nil, !certificateAuth {
            throw CLIFailure(
                "missing secret: --client-credentials needs --client-secret (or REMOTE_AUTH_CLIENT_SECRET)"
            )
        }
        let client = try makeClient(secret: secret, issuer: issuer)
        let store = try await storeOptions.open()  // a store that cannot be used fails now, not after the sign-in
        let command = self
        let prover = try dpopProver()
        // With --cacert, --pin, --cert or -k, the NIO transport (the server checked inside the
        // handshake; the client certificate presented on every connection, RFC 8705).
        let nio = try tlsOptions.transport()
        do {
            let session: OAuth2.Session = try await RequestCommand.withTransport(
                nio,
                connectTimeout: nil,
                timeout: nil
            ) { transport in
                let (discovered, metadata) = try await command.server(transport: transport)
                // RFC 8705 §5: a client authenticating with its certificate uses the mTLS aliases.
                let server = client.authentication.usesMutualTLS ? discovered.usingMutualTLSAliases() : discovered
                var flow = OAuth2.Flow(server: server, client: client, transport: transport, now: unixNow)
                if let prover { flow = flow.binding(to: prover) }
                if command.oidc, let metadata {
                    flow.openIDConnect = try OpenIDConnect.RelyingParty(
                        metadata: metadata,
                        clientID: client.id,
                        transport: transport,
                        now: unixNow
                    )
                }
                let tokens: OAuth2.Tokens
                if command.device {
                    tokens = try await command.deviceGrant(flow)
                } else if command.clientCredentials {
                    tokens = try await flow.clientCredentials(scope: command.scopes, resources: command.resource).tokens
                } else {
                    tokens = try await command.codeGrant(flow)
                    if command.oidc { try await command.printOpenID(tokens: tokens, flow: flow, prover: prover) }
                }
                var session = try command.session(
                    tokens: tokens,
                    server: server,
                    client: client,
                    secret: secret
                )
                session.dpopKey = prover?.privateJWK
                // Core §12.2: what a refresh needs to validate its ID token; RP-Initiated Logout's endpoint.
                if let relyingParty = flow.openIDConnect, let metadata {
                    session.openIDProvider = try OAuth2.Session.OpenIDProvider(
                        metadata: metadata,
                        relyingParty: relyingParty
                    )
                }
                session.clientCertificate = command.tlsOptions.clientCertificateReference
                return session
            }
            await nio?.shutdown()
            command.reportDPoP(session, prover: prover)
            try await saveOAuth2Profile(profile, session, in: store)
            Terminal.writeLine("Signed in; saved as profile '\(profile)'.")
        } catch let failure as CLIFailure {
            throw failure
        } catch {
            throw CLIFailure(
                "sign-in failed: \(describeOAuth2(error, profile: profile))",
                status: ExitStatus(for: error)
            )
        }
    }

    /// The endpoints: discovered at `--issuer` (RFC 8414 §3), each overridden by its option.
    /// With `--oidc`, the OpenID Connect document (Discovery §4), whose metadata is returned too.
    func server(transport: any HTTPTransport) async throws -> (OAuth2.AuthorizationServer, OAuth2.ServerMetadata?) {
        var server = OAuth2.AuthorizationServer()
        var metadata: OAuth2.ServerMetadata?
        if let issuer {
            // Without --oidc, RFC 8414's document, else the OpenID one: some providers serve only that.
            let discovered = try await OAuth2.Flow.discover(
                issuer: issuer,
                document: oidc ? .openIDConfiguration : .oauthAuthorizationServer,
                transport: transport,
                fallingBackToOpenIDConfiguration: !oidc
            )
            server = OAuth2.AuthorizationServer(metadata: discovered)
            metadata = discovered
        }
        if let expectedIssuer {
            try OAuth2.checkEndpoint(expectedIssuer)
            server.issuer = expectedIssuer
        }
        if let authorizationURL { server.authorizationEndpoint = authorizationURL }
        if let tokenURL { server.tokenEndpoint = tokenURL }
        if let deviceAuthorizationURL { server.deviceAuthorizationEndpoint = deviceAuthorizationURL }
        if let revocationURL { server.revocationEndpoint = revocationURL }
        if let introspectionURL { server.introspectionEndpoint = introspectionURL }
        if let parURL { server.pushedAuthorizationRequestEndpoint = parURL }
        return (server, metadata)
    }

    /// The authorization code grant with PKCE ([RFC 7636](https://www.rfc-editor.org/rfc/rfc7636)):
    /// the redirect comes to the loopback listener, or is pasted with `--paste`.
    func codeGrant(_ flow: OAuth2.Flow) async throws -> OAuth2.Tokens {
        if paste {
            // One pasted address, judged once: a redirect that is not this sign-in's answer (tokens
            // injected into it, another state) fails the sign-in with the flow's error, which
            // PasteUserAgent (it reads again) would not.
            let request = try await flow.startAuthorization(
                redirectURI: redirectURI,
                scope: requestedScopes,
                resources: resource,
                push: par,
                random: .system
            )
            Terminal.writeError("Open this URL in a browser, authorize, then paste the address it was sent to:\n")
            Terminal.writeLine(request.url)
            guard let typed = readLine(strippingNewline: true)?.trimmingCharacters(in: .whitespaces), !typed.isEmpty
            else {
                throw CLIFailure("no redirect: nothing was pasted on standard input")
            }
            return try await flow.tokens(fromCallback: typed, pending: request.pending, resources: resource)
        }
        _ = try LoopbackRedirect(redirectURI)  // what the listener cannot serve is a usage error
        return try await flow.signIn(
            with: terminalLoopbackAgent(noBrowser: noBrowser, timeout: timeout),
            redirectURI: redirectURI,
            scope: requestedScopes,
            resources: resource,
            push: par
        )
    }

    /// The device grant ([RFC 8628 §3](https://www.rfc-editor.org/rfc/rfc8628#section-3)): the
    /// codes on stdout, the remaining time on stderr (a progress line on a terminal).
    func deviceGrant(_ flow: OAuth2.Flow) async throws -> OAuth2.Tokens {
        let authorization = try await flow.deviceAuthorization(scope: scopes)
        Terminal.writeLine("Open: \(authorization.verificationURI)")
        Terminal.writeLine("Code: \(authorization.userCode)")
        if let complete = authorization.verificationURIComplete {
            Terminal.writeLine("Or open: \(complete)")
        }
        let onTerminal = isatty(STDERR_FILENO) == 1
        if !onTerminal {
            Terminal.writeError("Waiting for the approval (up to \(authorization.expiresIn) s)…\n")
        }
        let response = try await flow.pollDeviceToken(
            authorization,
            sleep: { seconds in try await Task.sleep(for: .seconds(seconds)) },
            onWait: { polling in
                guard onTerminal else { return }
                let left = max(0, polling.deadline - unixNow())
                Terminal.writeError("\rWaiting for the approval: \(left) s left, polling every \(polling.interval) s ")
            }
        )
        if onTerminal { Terminal.writeError("\n") }
        return response.tokens
    }

    /// The session to keep: tokens, endpoints, client, scope and the origins the token goes to.
    func session(
        tokens: OAuth2.Tokens,
        server: OAuth2.AuthorizationServer,
        client: OAuth2.Client,
        secret: String?
    ) throws -> OAuth2.Session {
        guard let tokenEndpoint = server.tokenEndpoint else {
            throw CLIFailure("the server's metadata names no token endpoint: pass --token-url")
        }
        let origins: [String]
        if resource.isEmpty {
            let base = server.issuer ?? server.authorizationEndpoint ?? tokenEndpoint
            origins = [try AuthScope(url: base).origin.description]
        } else {
            origins = try Array(Set(resource.map { try AuthScope(url: $0).origin.description })).sorted()
        }
        // The server as configured (every endpoint, and the metadata document when discovered).
        return OAuth2.Session(
            server: server,
            registration: OAuth2.ClientRegistration(
                clientID: client.id,
                authenticationMethod: .init(rawValue: client.authentication.methodName),
                clientSecret: secret.map { Secret($0) },
                keyReference: clientKeyReference
            ),
            tokens: tokens,
            // A client credentials profile is renewed by a new grant at expiry (RFC 6749 §4.4),
            // for the same resources (RFC 8707).
            grant: clientCredentials ? .clientCredentials : device ? .deviceCode : .authorizationCode,
            scope: tokens.scope ?? (requestedScopes.isEmpty ? nil : requestedScopes),
            resources: resource.isEmpty ? nil : resource,
            resourceOrigins: origins
        )
    }
}
