import ArgumentParser
import Foundation
import HTTPTypes
import NIOCore
import RemoteAuth
import RemoteAuthFileStore
import RemoteAuthLoopback
import RemoteAuthNIO

/// Signing in from a resource URL alone (issue 26), for `authorize oauth2 --resource URL` and
/// `request URL --sign-in`: the resource's metadata (RFC 9728), its authorization server's
/// (RFC 8414), a client identity (a client id given for that issuer, a client ID metadata
/// document, or a dynamic registration, RFC 7591), code + PKCE with the resource indicator
/// (RFC 8707) through the loopback listener, and the profile saved. Each step is said on stderr.
struct ResourceSignInRun {
    var profile: String
    /// Where the profile is saved.
    var store: ProfileStore
    /// The resource identifier (`authorize`), or a URL under it (`request`, with ``match`` `.pathPrefix`).
    var resource: String
    var match: OAuth2.ProtectedResourceMetadata.ResourceMatch
    /// The method of the request the sign-in is for: the first, unauthenticated request uses it.
    var probe: HTTPRequest.Method = .get
    var authorizationServer: String?
    var clientID: String?
    var clientSecret: String?
    var clientMetadataURL: String?
    var initialAccessToken: String?
    /// `--client-key`: the client authenticates with `private_key_jwt` (RFC 7523 §2.2); a
    /// registration registers the key's public JWK (RFC 7591 §2 `jwks`), and the profile keeps
    /// the key's path. `nil`: the key of the profile's kept `private_key_jwt` registration, if any.
    var clientKey: String? = nil
    /// `--resource-metadata-key`: the resource's `signed_metadata` must verify with it (RFC 9728 §2.2).
    var resourceMetadataKey: String? = nil
    var scope: [String]?
    /// The step-up a resource asked for: its `acr_values` and `max_age` (RFC 9470).
    var stepUp: OAuth2.StepUp? = nil
    /// The profile's session before this sign-in: its dynamic registration is reused at the
    /// same issuer while its secret is valid (RFC 7591 §3.2.1), and deleted (RFC 7592) when a
    /// new one replaces it.
    var previous: OAuth2.Session? = nil
    var redirectURI: String
    var noBrowser: Bool
    var timeout: Int
    var dpop: Bool
    var tls: TLSOptions
    var connectTimeout: TimeAmount? = nil
    /// Where "Signed in; saved as profile" goes: stdout for `authorize`, stderr for `request`
    /// (whose stdout is the response body).
    var announceOnStdout: Bool

    /// Signs in and saves the profile; nothing is saved when any step fails.
    func run() async throws {
        let nio = try tls.transport()
        let run = self
        let signedIn: OAuth2.ResourceSignIn
        do {
            signedIn = try await RequestCommand.withTransport(nio, connectTimeout: connectTimeout, timeout: nil) {
                transport in
                try await run.signIn(transport: transport)
            }
        } catch {
            await nio?.shutdown()
            throw Self.failure(error, profile: profile)
        }
        await nio?.shutdown()
        var session = signedIn.session
        if session.registration.authenticationMethod == .privateKeyJWT {
            // The key's path, not the key, stays with the profile (read again for each refresh).
            session.registration.keyReference = keyPath
        }
        try await saveOAuth2Profile(profile, session, in: store)
        let line = "Signed in; saved as profile '\(profile)'."
        if announceOnStdout { Terminal.writeLine(line) } else { Terminal.writeError(line + "\n") }
        if let replaced = previous?.registration, replaced.registrationClientURI != nil,
            replaced.clientID != signedIn.session.clientID
        {
            await deleteReplaced(replaced)
        }
    }

    /// Deletes a registration a new one replaced (RFC 7592 §2.3), as it would otherwise be left
    /// behind at the server; a failure is said, not fatal (the profile is saved).
    func deleteReplaced(_ registration: OAuth2.ClientRegistration) async {
        let client = PeerText.printable(registration.clientID)
        do {
            try await RequestCommand.withTransport(nil, connectTimeout: connectTimeout, timeout: nil) { transport in
                try await OAuth2.DynamicRegistration.delete(registration, transport: transport)
            }
            Terminal.writeError("Deleted the previous registration, client \(client) (RFC 7592).\n")
        } catch {
            Terminal.writeError(
                "The previous registration, client \(client), was not deleted: \(describeOAuth2(error, profile: profile)).\n"
            )
        }
    }

    /// The profile's registration to reuse, when it was made at `issuer`.
    func reusable(at issuer: String) -> OAuth2.ClientIdentity? {
        guard let previous, previous.issuer == issuer, previous.registration.redirectURIs?.isEmpty == false else {
            return nil
        }
        if previous.registration.secretExpired(at: unixNow()) {
            Terminal.writeError(
                "The client secret of registration \(PeerText.printable(previous.clientID)) has expired (RFC 7591 §3.2.1): registering again.\n"
            )
            return nil
        }
        return .stored(previous.registration, issuer: issuer)
    }

    /// The absolute path of the client's key: `--client-key`, else the one the profile's kept
    /// `private_key_jwt` registration names.
    var keyPath: String? {
        if let clientKey { return URL(fileURLWithPath: clientKey).standardizedFileURL.path }
        guard let registration = previous?.registration, registration.authenticationMethod == .privateKeyJWT else {
            return nil
        }
        return registration.keyReference
    }

    func signIn(transport: any HTTPTransport) async throws -> OAuth2.ResourceSignIn {
        let key = try keyPath.map(loadClientKey(path:))
        Terminal.writeError("Looking for the authorization server of \(resource) (RFC 9728)…\n")
        // A key given means signed metadata is expected: a document without it is refused,
        // never read unsigned in its place.
        let signed = try resourceMetadataKey.map {
            OAuth2.ProtectedResourceMetadata.SignedMetadataPolicy(keys: try KeyFile.verificationKeys($0), required: true)
        }
        let found = try await OAuth2.ResourceDiscovery.discover(
            resource: resource,
            authorizationServer: authorizationServer,
            match: match,
            probe: probe,
            signedMetadata: signed,
            transport: transport
        )
        let attested = signed == nil ? "" : ", signed_metadata verified"
        Terminal.writeError(
            "The resource \(found.resource.resource) is guarded by \(found.server.issuer) (its metadata checked: issuer, PKCE S256\(attested)).\n"
        )
        // RFC 9449 §5.2: a resource that takes only DPoP-bound tokens gets them, with a new key
        // kept in the profile, whether or not --dpop was given.
        let requiresDPoP = found.resource.dpopBoundAccessTokensRequired
        if requiresDPoP, !dpop {
            Terminal.writeError(
                "The resource takes only DPoP-bound tokens (dpop_bound_access_tokens_required): signing in with a new DPoP key (RFC 9449).\n"
            )
        }
        let prover = dpop || requiresDPoP ? try OAuth2.DPoP.Prover(key: .generateP256(), now: unixNow, random: .system) : nil
        var identities: [OAuth2.ClientIdentity] = []
        if clientID == nil, let reusable = reusable(at: found.server.issuer) { identities.append(reusable) }
        if let clientID {
            let secret = clientSecret.map { Secret($0) }
            let authentication: OAuth2.ClientAuthentication =
                if let key { try .privateKeyJWT(key, now: unixNow, random: .system) } else {
                    secret.map { .clientSecretBasic($0) } ?? .none
                }
            identities.append(.registered(OAuth2.Client(id: clientID, authentication: authentication), issuer: found.server.issuer))
        } else {
            if let clientMetadataURL { identities.append(.metadataDocument(url: clientMetadataURL)) }
            identities.append(
                .dynamicRegistration(
                    .init(
                        redirectURIs: [],
                        clientName: "remote-auth",
                        additionalMembers: [
                            // OpenID Connect Dynamic Registration §2: a loopback redirect is a native app's.
                            "application_type": .string("native"),
                            "software_id": .string("remote-auth"),
                            "software_version": .string(RemoteAuthCommand.version),
                        ]
                    ),
                    initialAccessToken: initialAccessToken.map { Secret($0) }
                )
            )
        }
        do {
            return try await signIn(found, identities: identities, transport: transport, prover: prover, key: key)
        } catch let error as LoopbackCallbackListener.ListenerError
            where error.code == .portUnavailable && identities.first.map(Self.isStored) == true
        {
            // The registered redirect URI's port is taken: a new registration gets a free one.
            Terminal.writeError("The registered redirect URI's port is in use: registering again.\n")
            return try await signIn(
                found,
                identities: Array(identities.dropFirst()),
                transport: transport,
                prover: prover,
                key: key
            )
        }
    }

    static func isStored(_ identity: OAuth2.ClientIdentity) -> Bool {
        if case .stored = identity { return true }
        return false
    }

    func signIn(
        _ found: OAuth2.ResourceDiscovery,
        identities: [OAuth2.ClientIdentity],
        transport: any HTTPTransport,
        prover: OAuth2.DPoP.Prover?,
        key: JOSE.SigningKey?
    ) async throws -> OAuth2.ResourceSignIn {
        let issuer = found.server.issuer
        return try await OAuth2.ResourceSignIn.signIn(
            found,
            identities: identities,
            agent: terminalLoopbackAgent(noBrowser: noBrowser, timeout: timeout),
            redirectURI: redirectURI,
            scope: scope,
            stepUp: stepUp,
            dpop: prover,
            clientKey: key,
            transport: transport,
            now: unixNow,
            onIdentified: { identification in
                switch identification {
                case .registered:
                    Terminal.writeError("Using the client registered at \(issuer).\n")
                case .reused(let registration):
                    Terminal.writeError(
                        "Using the registration made earlier at \(issuer), client \(PeerText.printable(registration.clientID, limit: 200)).\n"
                    )
                case .metadataDocument:
                    Terminal.writeError("Identifying as the client ID metadata document's URL.\n")
                case .dynamicallyRegistered(let registered):
                    let keyed = registered.tokenEndpointAuthMethod == .privateKeyJWT ? ", private_key_jwt with the key's public JWK" : ""
                    Terminal.writeError(
                        "Registered as client \(PeerText.printable(registered.clientID, limit: 200)) at \(issuer) (RFC 7591\(keyed)).\n"
                    )
                }
            }
        )
    }

    /// The failure, with its exit status: 111 when the metadata or the server may not be used,
    /// 112 when the registration was refused.
    static func failure(_ error: any Error, profile: String) -> CLIFailure {
        if let error = error as? OAuth2.Error {
            switch error.code {
            case .resourceMismatch, .unsuitableAuthorizationServer, .issuerMismatch, .signedMetadataRefused:
                return CLIFailure("sign-in failed: \(error.reason)", status: .resourceMetadataRefused)
            case .registrationRefused:
                return CLIFailure(
                    "sign-in failed: the registration was refused: \(describeOAuth2(error, profile: profile))",
                    status: .registrationRefused
                )
            default:
                break
            }
        }
        if let failure = error as? CLIFailure { return failure }
        return CLIFailure("sign-in failed: \(describeOAuth2(error, profile: profile))", status: ExitStatus(for: error))
    }
}

/// `request`'s options for a sign-in from the URL (issue 26).
struct RequestSignInOptions: ParsableArguments {
    @Flag(
        name: .customLong("sign-in"),
        help: ArgumentHelp(
            "When --profile does not exist yet: sign in from the URL alone (RFC 9728: its 401 names its metadata), save the profile, then send the request.",
            discussion:
                "The URL is first requested with the request's method, no body and no credential, to read its challenge. On a terminal, a --profile that does not exist starts the same sign-in without --sign-in."
        )
    )
    var signIn = false

    @Flag(
        name: .customLong("no-browser"),
        help: "In a sign-in, print the authorization URL instead of opening the browser."
    )
    var noBrowser = false

    @Option(name: .customLong("timeout"), help: "In a sign-in, seconds to wait for the browser (at least 1).")
    var timeout = 300

    @Option(
        name: .customLong("client-id"),
        help: "In a sign-in, a client registered at the authorization server; else one is registered (RFC 7591)."
    )
    var clientID: String?

    @Option(
        name: .customLong("client-metadata-url"),
        help: ArgumentHelp(
            "In a sign-in, this client's ID metadata document, used as its client_id where the server supports them.",
            valueName: "url"
        )
    )
    var clientMetadataURL: String?

    @Option(
        name: .customLong("scope"),
        help: "In a sign-in, the scope, space-separated; else what the 401 or the metadata names."
    )
    var scope: String?

    @Option(
        name: .customLong("resource-metadata-key"),
        help: ArgumentHelp(
            "In a sign-in, the resource's metadata must carry signed_metadata (RFC 9728 §2.2) verified with this key (a JWK, JWK Set or PEM public key).",
            valueName: "file"
        )
    )
    var resourceMetadataKey: String?
}

/// A step-up the request can answer by signing in again (thrown by `send` before any output).
struct StepUpNeeded: Error {
    let stepUp: OAuth2.StepUp
    let previous: OAuth2.Session
}

extension RequestCommand {
    /// `--sign-in`, or a terminal: a sign-in may start.
    var maySignIn: Bool {
        signInOptions.signIn || (isatty(STDIN_FILENO) == 1 && isatty(STDERR_FILENO) == 1)
    }

    /// The resource a profile's step-up signs in to again: its one resource indicator (a
    /// profile made by a sign-in from a resource URL).
    static func stepUpResource(_ session: OAuth2.Session) -> String? {
        guard let resources = session.resources, resources.count == 1 else { return nil }
        return resources[0]
    }

    /// A sign-in for this request's options: the loopback listener, the TLS options, the
    /// connect timeout; "Signed in" on stderr (stdout is the response body).
    func signInRun(
        profile: String,
        store: ProfileStore,
        resource: String,
        match: OAuth2.ProtectedResourceMetadata.ResourceMatch,
        clientID: String?,
        scope: [String]?,
        stepUp: OAuth2.StepUp? = nil,
        previous: OAuth2.Session? = nil
    ) throws -> ResourceSignInRun {
        ResourceSignInRun(
            profile: profile,
            store: store,
            resource: resource,
            match: match,
            probe: HTTPRequest.Method(method ?? (dataPieces().isEmpty && json.isEmpty ? "GET" : "POST")) ?? .get,
            clientID: clientID,
            clientSecret: nil,
            clientMetadataURL: signInOptions.clientMetadataURL,
            initialAccessToken: nil,
            resourceMetadataKey: signInOptions.resourceMetadataKey,
            scope: scope,
            stepUp: stepUp,
            previous: previous,
            redirectURI: "http://127.0.0.1/callback",
            noBrowser: signInOptions.noBrowser,
            timeout: signInOptions.timeout,
            dpop: false,
            tls: tlsOptions,
            connectTimeout: try Self.timeAmount(connectTimeout, option: "--connect-timeout"),
            announceOnStdout: false
        )
    }

    /// A response that asks for a step-up (``OAuth2/StepUp``): thrown as ``StepUpNeeded`` when
    /// this request may sign in again (once), else said on stderr with what to do.
    func checkStepUp(_ response: HTTPResponse, profile: OAuth2Profile, steppedUp: Bool) throws {
        guard let stepUp = OAuth2.StepUp(response: response, currentScope: profile.session.scope) else { return }
        let resource = Self.stepUpResource(profile.session)
        if !steppedUp, maySignIn, resource != nil {
            throw StepUpNeeded(stepUp: stepUp, previous: profile.session)
        }
        let how =
            steppedUp
            ? "the new sign-in did not satisfy it"
            : resource == nil
                ? "sign in again with that scope: remote-auth authorize oauth2 --profile \(profile.name) …"
                : "sign in again for it with --sign-in"
        note("remote-auth: \(stepUp); \(how)\n")
    }

    /// Signs in again for the profile's resource with what `needed` asks (the union of the
    /// scopes, RFC 9470's `acr_values` and `max_age`) and replaces the profile; the previous
    /// registration is reused, or deleted at the server when a new one replaces it (RFC 7592).
    func stepUp(_ needed: StepUpNeeded, store: ProfileStore?) async throws {
        guard let profile, let store, let resource = Self.stepUpResource(needed.previous) else { return }
        Terminal.writeError("remote-auth: \(needed.stepUp): signing in again for \(resource).\n")
        try await signInRun(
            profile: profile,
            store: store,
            resource: resource,
            match: .exact,
            clientID: nil,
            scope: needed.stepUp.scope,
            stepUp: needed.stepUp,
            previous: needed.previous
        ).run()
    }

    /// With `--sign-in` (or on a terminal) and a `--profile` that does not exist yet: the
    /// sign-in from the URL, then the request with the new profile.
    func signInFirstIfAsked(store: ProfileStore?) async throws {
        let asked = signInOptions.signIn
        let interactive = isatty(STDIN_FILENO) == 1 && isatty(STDERR_FILENO) == 1
        guard asked || interactive, let profile, let store else {
            if asked { throw CLIFailure("--sign-in needs --profile NAME: the profile the sign-in is saved under") }
            return
        }
        guard signInOptions.timeout > 0 else {
            throw CLIFailure("--timeout must be a whole number of seconds, at least 1, not \(signInOptions.timeout)")
        }
        try ProfileName.check(profile)
        guard try await !store.keys().contains(where: { $0.service == profile }) else { return }
        if !asked { Terminal.writeError("There is no profile '\(profile)' yet: signing in from \(url).\n") }
        let run = try signInRun(
            profile: profile,
            store: store,
            resource: url,
            match: .pathPrefix,
            clientID: signInOptions.clientID,
            scope: signInOptions.scope.map { $0.split(separator: " ").map(String.init) }
        )
        do {
            try await run.run()
        } catch let failure as CLIFailure where !asked {
            // Started only because the terminal is interactive: the name may be a typo.
            throw CLIFailure(
                "unknown profile: '\(profile)' (see 'remote-auth profiles list'), and signing in from the URL failed: \(failure.message)",
                status: failure.status
            )
        }
    }
}
