import ArgumentParser
import Foundation
import RemoteAuth
import RemoteAuthFileStore

/// `--client-auth`: how the client authenticates at the token endpoint.
enum ClientAuthOption: String, ExpressibleByArgument, CaseIterable, Sendable {
    case clientSecretBasic = "client-secret-basic"
    case clientSecretPost = "client-secret-post"
    /// RFC 7523 §2.2, HS256 keyed with --client-secret.
    case clientSecretJWT = "client-secret-jwt"
    /// RFC 7523 §2.2, signed with --client-key.
    case privateKeyJWT = "private-key-jwt"
    case publicClient = "none"
    /// RFC 8705 §2.1: the --cert certificate, issued by a CA the server trusts.
    case tlsClientAuth = "tls-client-auth"
    /// RFC 8705 §2.2: the self-signed --cert certificate the server registered.
    case selfSignedTLSClientAuth = "self-signed-tls-client-auth"
}

/// `--assertion-audience`: the `aud` of client assertions.
enum AssertionAudienceOption: String, ExpressibleByArgument, CaseIterable, Sendable {
    /// The token endpoint's URL (RFC 7523 §3, OpenID Connect Core §9).
    case tokenEndpoint = "token-endpoint"
    /// The issuer identifier (draft-ietf-oauth-rfc7523bis, FAPI 2).
    case issuer
}

/// Loads a client's private key for `private_key_jwt`: a PEM file (PKCS #8, SEC 1 or PKCS #1),
/// signing with RS256 (RSA), ES256 (P-256) or EdDSA (Ed25519); the `kid` is the key's
/// RFC 7638 thumbprint, so the server finds it in the JWK Set registered for the client.
func loadClientKey(path: String) throws -> JOSE.SigningKey {
    let pem: String
    do {
        pem = try String(contentsOfFile: path, encoding: .utf8)
    } catch {
        throw CLIFailure("cannot read the client key '\(path)'")
    }
    do {
        let key = try JOSE.SigningKey(pem: pem)
        guard let thumbprint = try key.publicJWK?.thumbprint() else { return key }
        return try JOSE.SigningKey(pem: pem, algorithm: key.algorithm, keyID: thumbprint)
    } catch {
        throw CLIFailure(
            "the client key '\(path)' is not a private key this tool signs with (RSA, P-256, Ed25519): \(describe(error))"
        )
    }
}

extension AuthorizeOAuth2 {
    /// The method asked for: `--client-auth`, else `client_secret_basic` with a secret and
    /// `none` without.
    func clientAuthMethod(secret: String?) -> ClientAuthOption {
        clientAuth ?? (clientKey != nil ? .privateKeyJWT : secret == nil ? .publicClient : .clientSecretBasic)
    }

    /// The client, with its authentication; JWT assertions are signed per request with the
    /// system clock and random source (RFC 7523 §3).
    func makeClient(secret: String?, issuer: String?) throws -> OAuth2.Client {
        guard let clientID else { throw CLIFailure("--client-id is required (except in a sign-in from --resource alone)") }
        let audience: OAuth2.ClientAssertion.Audience
        switch assertionAudience {
        case .tokenEndpoint: audience = .endpoint
        case .issuer:
            guard let issuer else { throw CLIFailure("--assertion-audience issuer needs --issuer") }
            audience = .issuer(issuer)
        }
        func needSecret() throws -> Secret {
            guard let secret else {
                throw CLIFailure(
                    "missing secret: --client-auth \(clientAuthMethod(secret: nil).rawValue) needs --client-secret"
                )
            }
            return Secret(secret)
        }
        let authentication: OAuth2.ClientAuthentication
        switch clientAuthMethod(secret: secret) {
        case .clientSecretBasic: authentication = .clientSecretBasic(try needSecret())
        case .clientSecretPost: authentication = .clientSecretPost(try needSecret())
        case .clientSecretJWT:
            authentication = try .clientSecretJWT(try needSecret(), audience: audience, now: unixNow, random: .system)
        case .privateKeyJWT:
            guard let clientKey else { throw CLIFailure("--client-auth private-key-jwt needs --client-key PEMFILE") }
            authentication = try .privateKeyJWT(
                loadClientKey(path: clientKey),
                audience: audience,
                now: unixNow,
                random: .system
            )
        case .publicClient:
            guard secret == nil else { throw CLIFailure("--client-auth none takes no --client-secret") }
            authentication = .none
        case .tlsClientAuth, .selfSignedTLSClientAuth:
            // RFC 8705 §2: the certificate is the credential; the transport presents it.
            let option = clientAuthMethod(secret: secret)
            guard secret == nil else { throw CLIFailure("--client-auth \(option.rawValue) takes no --client-secret") }
            guard tlsOptions.cert != nil else {
                throw CLIFailure(
                    "missing option: --client-auth \(option.rawValue) needs the client certificate: --cert FILE --key FILE (or --cert-type p12)"
                )
            }
            authentication = option == .tlsClientAuth ? .tlsClientAuth : .selfSignedTLSClientAuth
        }
        return OAuth2.Client(id: clientID, authentication: authentication)
    }

    /// The absolute path of `--client-key`, kept with the profile (the key itself is not).
    var clientKeyReference: String? {
        clientKey.map { URL(fileURLWithPath: $0).standardizedFileURL.path }
    }

    /// `--oidc`: the scope gains `openid`.
    var requestedScopes: [String] {
        oidc && !scopes.contains("openid") ? ["openid"] + scopes : scopes
    }

    /// `--oidc`: the ID token the flow validated, and the UserInfo claims, on stdout; the token
    /// itself is not printed. A DPoP-bound token goes to UserInfo with a proof of `prover`'s key
    /// (RFC 9449 §7.1). A UserInfo failure is a warning: the validated sign-in is kept.
    func printOpenID(tokens: OAuth2.Tokens, flow: OAuth2.Flow, prover: OAuth2.DPoP.Prover?) async throws {
        guard let token = tokens.idToken else { return }
        let idToken = try OpenIDConnect.IDToken(claims: JOSE.CompactJWS(token.reveal()).claims(), token: token)
        Terminal.writeLine("ID token validated (OpenID Connect Core §3.1.3.7); claims:")
        for (name, value) in idToken.claims.sorted(by: { $0.key < $1.key }) {
            Terminal.writeLine("  \(name): \(value)")
        }
        guard flow.openIDConnect?.userInfoEndpoint != nil else { return }
        let info: OpenIDConnect.UserInfo
        do {
            info = try await flow.userInfo(tokens: tokens, subject: idToken.subject, dpop: prover)
        } catch {
            Terminal.writeError("warning: UserInfo failed, the sign-in is kept: \(describe(error))\n")
            return
        }
        Terminal.writeLine("UserInfo:")
        for (name, value) in info.claims.sorted(by: { $0.key < $1.key }) {
            Terminal.writeLine("  \(name): \(value)")
        }
    }
}

/// The tool's keys: a `private_key_jwt` profile keeps the absolute path of its `--client-key`,
/// read again each time the key is needed.
struct ClientKeyFiles: OAuth2.ClientKeyProvider {
    let profile: String

    func clientKey(reference: String?, clientID: String) throws -> JOSE.SigningKey {
        guard let reference else {
            throw CLIFailure("profile '\(profile)' uses private_key_jwt but keeps no key path: sign in again")
        }
        return try loadClientKey(path: reference)
    }
}

extension OAuth2Profile {
    /// The provider of a `private_key_jwt` profile's key (asked only for that method).
    var clientKeys: ClientKeyFiles { ClientKeyFiles(profile: name) }

    /// The flow at the profile's endpoints, signing client assertions when its method does.
    func flow(over transport: any HTTPTransport) throws -> OAuth2.Flow {
        try session.flow(over: transport, now: unixNow, assertionKey: clientKeys, random: .system)
    }
}
