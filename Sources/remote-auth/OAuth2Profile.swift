import ArgumentParser
import Foundation
import Logging
import RemoteAuth
import RemoteAuthAsyncHTTPClient
import RemoteAuthNIO
import RemoteAuthFileStore

/// An OAuth 2 profile as `request`, `token` and `revoke` use it.
struct OAuth2Profile: Sendable {
    let name: String
    let key: TokenStoreKey
    let session: OAuth2.Session
    let store: ProfileStore

    /// The OAuth 2 session under `name`; `nil` when the profile holds another kind of sign-in.
    ///
    /// - Throws: ``CLIFailure`` for an unknown profile.
    static func load(_ name: String, from store: ProfileStore) async throws -> OAuth2Profile? {
        guard let key = try await store.keys().first(where: { $0.service == name }),
            let stored = try await store.session(service: key.service, account: key.account)
        else { throw CLIFailure("unknown profile: '\(name)' (see 'remote-auth profiles list')") }
        guard let session = stored.oauth2 else { return nil }
        return OAuth2Profile(name: name, key: key, session: session, store: store)
    }

    /// Like ``load(_:from:)``, but a profile of another kind is a usage error.
    static func require(_ name: String, from store: ProfileStore) async throws -> OAuth2Profile {
        guard let profile = try await load(name, from: store) else {
            throw CLIFailure("profile '\(name)' is not an OAuth 2 sign-in (see 'remote-auth authorize oauth2')")
        }
        return profile
    }

    /// The token session, refreshing at the stored token endpoint over `transport` (RFC 6749 §6)
    /// and saving what it renews under the profile. The file store is shared: a refresh holds
    /// its lock, so processes using the profile at once refresh it once.
    func tokenSession(
        over transport: any HTTPTransport,
        policy: OAuth2.RefreshPolicy = .init(),
        logger: Logger = Logger(label: "RemoteAuth.OAuth2.TokenSession")
    ) async throws -> OAuth2.TokenSession {
        try await OAuth2.TokenSession.restore(
            from: store,
            service: key.service,
            account: key.account,
            transport: transport,
            policy: policy,
            now: unixNow,
            assertionKey: clientKeys,
            // A secret rotated since the sign-in (a client credentials profile renews with it).
            clientSecret: ProcessInfo.processInfo.environment["REMOTE_AUTH_CLIENT_SECRET"].flatMap { $0.isEmpty ? nil : Secret($0) },
            random: .system,
            logger: logger
        )
    }

    /// Checks that the profile's token goes to `origin` and `path` (its resources' paths, when
    /// they name one: ``OAuth2/Session/resourceTargets()``).
    func check(origin: AuthScope, path: String = "/") throws {
        let targets = try session.resourceTargets()
        let covered = targets.contains { target in
            target.scope.origin == origin.origin && ScopedAuthenticator.path(path, isUnder: target.pathPrefix)
        }
        guard covered else {
            let places = targets.map { "\($0.scope.origin)\($0.pathPrefix ?? "")" }
            // Named by origin alone when the profile's places are whole origins.
            let asked = targets.allSatisfy { $0.pathPrefix == nil } ? "\(origin.origin)" : "\(origin.origin)\(path)"
            throw CLIFailure("profile '\(name)' sends its token to \(places.joined(separator: ", ")) only, not to \(asked)")
        }
    }

    /// The lines of `profiles show`, secrets redacted.
    var shown: [String] {
        var lines = ["profile: \(name)", "account: \(key.account)", "type: OAuth 2"]
        if let issuer = session.issuer { lines.append("issuer: \(issuer)") }
        lines.append("token endpoint: \(session.tokenEndpoint)")
        if let revocation = session.revocationEndpoint { lines.append("revocation endpoint: \(revocation)") }
        if let introspection = session.introspectionEndpoint {
            lines.append("introspection endpoint: \(introspection)")
        }
        let server = session.server
        if let endpoint = server.authorizationEndpoint { lines.append("authorization endpoint: \(endpoint)") }
        if let endpoint = server.pushedAuthorizationRequestEndpoint { lines.append("par endpoint: \(endpoint)") }
        if let endpoint = server.deviceAuthorizationEndpoint { lines.append("device endpoint: \(endpoint)") }
        if let metadata = server.metadata {
            lines.append("metadata: as discovered from \(metadata.issuer) (\(server.requiresIssuerParameter ? "" : "no ")iss in redirects)")
        }
        lines.append("client: \(session.clientID) (\(session.clientAuthentication.rawValue))")
        if session.clientSecret != nil { lines.append("client secret: <redacted>") }
        if let uri = session.registration.registrationClientURI { lines.append("registration: \(uri) (RFC 7592)") }
        if let grant = session.grant { lines.append("grant: \(grant)") }
        if let keyPath = session.clientKeyReference { lines.append("client key: \(keyPath)") }
        if let certificate = session.clientCertificate {
            lines.append("client certificate: \(certificate.certificate)")
        }
        if let scope = session.scope { lines.append("scope: \(scope.joined(separator: " "))") }
        lines.append("resources: \(session.resourceOrigins.joined(separator: " "))")
        if let indicators = session.resources { lines.append("resource indicators: \(indicators.joined(separator: " "))") }
        lines.append("tokens: \(session.tokens)")
        if let jkt = try? session.dpopKey?.thumbprint() { lines.append("dpop key: jkt \(jkt)") }
        if let provider = session.openIDProvider {
            lines.append("openid provider: jwks \(provider.jwksURI)")
            if let endSession = provider.endSessionEndpoint { lines.append("end session endpoint: \(endSession)") }
        }
        return lines
    }

    /// The failure of a command that used the profile.
    func failure(_ error: any Error) -> CLIFailure {
        if let failure = error as? CLIFailure { return failure }
        return CLIFailure(describeOAuth2(error, profile: name), status: ExitStatus(for: error))
    }
}

/// `remote-auth token`: a valid access token on stdout, and nothing else (like `gh auth token`).
struct TokenCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "token",
        abstract: "Print a currently valid access token of an OAuth 2 profile, refreshing it if needed.",
        discussion: ExitStatus.discussion(
            """
            Only the token is written to stdout, for curl -H "Authorization: Bearer $(remote-auth token \
            --profile NAME)". A token that expires within a minute is refreshed first (RFC 6749 §6) and \
            the renewed tokens are kept under the profile.
            """
        )
    )

    @Option(help: "The OAuth 2 profile (see 'remote-auth authorize oauth2').")
    var profile: String

    @OptionGroup(title: "TLS")
    var tlsOptions: TLSOptions

    @OptionGroup(title: "Profiles")
    var storeOptions: StoreOptions

    func run() async throws {
        let profile = try await OAuth2Profile.require(self.profile, from: try await storeOptions.open())
        do {
            // The profile's client certificate, if it has one (RFC 8705: refreshes present it).
            let nio = try tlsOptions.presenting(profile.session.clientCertificate).transport()
            let token: Secret = try await RequestCommand.withTransport(nio, connectTimeout: nil, timeout: nil) {
                transport in
                try await profile.tokenSession(over: transport).validTokens().accessToken
            }
            await nio?.shutdown()
            Terminal.writeLine(token.reveal())
        } catch {
            throw profile.failure(error)
        }
    }
}

/// `remote-auth revoke`: revokes an OAuth 2 profile's tokens at the server, then forgets it.
struct RevokeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "revoke",
        abstract: "Revoke an OAuth 2 profile's tokens at the server (RFC 7009) and remove the profile.",
        discussion: ExitStatus.discussion(
            """
            The refresh token is revoked first (which revokes its access tokens where the server \
            supports it, RFC 7009 §2.1), then the access token. A profile without a revocation \
            endpoint is kept: remove it with 'remote-auth profiles remove'.
            """
        )
    )

    @Option(help: "The OAuth 2 profile (see 'remote-auth authorize oauth2').")
    var profile: String

    @OptionGroup(title: "TLS")
    var tlsOptions: TLSOptions

    @OptionGroup(title: "Profiles")
    var storeOptions: StoreOptions

    func run() async throws {
        let profile = try await OAuth2Profile.require(self.profile, from: try await storeOptions.open())
        guard profile.session.revocationEndpoint != nil else {
            throw CLIFailure(
                "profile '\(profile.name)' has no revocation endpoint: nothing was revoked; 'remote-auth profiles remove \(profile.name)' forgets it"
            )
        }
        let session = profile.session
        do {
            let nio = try tlsOptions.presenting(session.clientCertificate).transport()
            try await RequestCommand.withTransport(nio, connectTimeout: nil, timeout: nil) { transport in
                let flow = try profile.flow(over: transport)
                if let refreshToken = session.tokens.refreshToken {
                    try await flow.revoke(refreshToken, hint: .refreshToken)
                }
                try await flow.revoke(session.tokens.accessToken, hint: .accessToken)
            }
            await nio?.shutdown()
        } catch {
            throw profile.failure(error)
        }
        try await profile.store.removeSession(service: profile.key.service, account: profile.key.account)
        Terminal.writeLine("Revoked and removed profile '\(profile.name)'.")
    }
}
