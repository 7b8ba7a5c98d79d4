import ArgumentParser
import Foundation
import RemoteAuth
import RemoteAuthSandbox

struct SandboxCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sandbox",
        abstract:
            "Run a local service provider: OAuth 1.0a, OAuth 2 and OpenID Connect, a status API, HTTP Basic and Digest.",
        discussion: ExitStatus.discussion(
            """
            The first line printed is 'RemoteAuth sandbox listening on URL'; the endpoints and the demo \
            identities follow (this is a local test service: its secrets are printed). It serves on \
            loopback only and runs until SIGINT or SIGTERM.

            Each request is logged on stderr, one line each: method, path (without the query), status, \
            and for a refusal its oauth_problem or challenge outcome, e.g. \
            'GET /basic/ 401 Basic challenge: no credentials'. --quiet turns the log off.
            """
        )
    )

    @Option(help: "The loopback address to listen on.")
    var host = "127.0.0.1"

    // Unconditional, so that `--port -1` is read as a value and refused by its range.
    @Option(parsing: .unconditional, help: "The port, 0 to 65535 (0 picks a free one).")
    var port = 8080

    @Flag(help: "Sign alice in and approve every authorize request at once.")
    var autoApprove = false

    @Flag(help: "Serve HTTPS with a certificate made now for 127.0.0.1, ::1 and localhost (or --cert/--key).")
    var tls = false

    @Option(help: ArgumentHelp("A PEM certificate chain for --tls.", valueName: "file"))
    var cert: String?

    @Option(help: ArgumentHelp("The PEM private key of --cert.", valueName: "file"))
    var key: String?

    @Option(
        name: .customLong("client-ca"),
        help: ArgumentHelp(
            "With --tls: require a client certificate issued by a CA in this PEM file (mutual TLS).",
            valueName: "file"
        )
    )
    var clientCA: String?

    @Flag(
        name: .customLong("client-cert-optional"),
        help:
            "With --client-ca: ask for a client certificate but accept connections without one; the CA then vouches for tls_client_auth clients (RFC 8705 §2.1). Without --client-ca, a TLS sandbox asks for one anyway and takes any (self_signed_tls_client_auth, certificate-bound tokens)."
    )
    var clientCertOptional = false

    @Option(
        name: .customLong("write-certificate"),
        help: ArgumentHelp(
            "With --tls: write the served certificate chain (PEM) here, for a client's --cacert.",
            valueName: "file"
        )
    )
    var writeCertificate: String?

    @Option(
        name: .customLong("write-signature-key"),
        help: ArgumentHelp(
            "Write alice's RFC 9421 test private key (Ed25519, PEM, mode 0600) here, for request --signature-key (keyid sandbox-alice-ed25519).",
            valueName: "file"
        )
    )
    var writeSignatureKey: String?

    @Option(
        name: .customLong("write-response-key"),
        help: ArgumentHelp(
            "Write the public key (PEM) the sandbox signs responses with, for request --verify-response-key.",
            valueName: "file"
        )
    )
    var writeResponseKey: String?

    @Flag(help: "Do not log requests on stderr.")
    var quiet = false

    @Option(
        help: ArgumentHelp(
            "A JSON file adding OAuth 1.0a consumers, users and OAuth 2 clients (secrets, redirects, jwks, TLS client auth).",
            valueName: "file"
        )
    )
    var config: String?

    @Option(
        help: ArgumentHelp(
            "Keep tokens (OAuth 1.0a and OAuth 2), codes and statuses in this file across restarts (written at start: a path that cannot be written stops the sandbox).",
            valueName: "file"
        )
    )
    var state: String?

    @Option(help: "Accepted oauth_timestamp distance from the server clock, in seconds.")
    var timestampWindow: Int64 = 300

    @Option(help: "Seconds a Digest nonce stays fresh before it is answered stale=true.")
    var digestNonceLifetime: Int64 = 300

    @Option(help: ArgumentHelp("expires_in of OAuth 2 access tokens, in seconds.", valueName: "seconds"))
    var accessTokenTTL: Int64 = 3600

    @Flag(help: "Also answer OAuth 2 response_type=token (the legacy implicit grant, RFC 9700 says not to use it).")
    var implicit = false

    @Flag(help: "Accept OAuth 2 authorization requests only through the PAR endpoint /oauth2/par (RFC 9126).")
    var requirePAR = false
    @Flag(
        name: .customLong("dpop-nonce"),
        help:
            "Require the server's DPoP-Nonce in DPoP proofs, at the token endpoint and the status API (RFC 9449 §8, §9)."
    )
    var dpopNonce = false
    @Option(
        help: ArgumentHelp(
            "Rotate the OpenID provider's ID token signing keys every SECONDS (new kids; the previous keys stay in the JWKS).",
            valueName: "seconds"
        )
    )
    var rotateKeys: Int64?
    @Option(
        help: ArgumentHelp(
            "Require this initial access token (Authorization: Bearer) at POST /oauth2/register (RFC 7591 §3); open without it.",
            valueName: "token"
        )
    )
    var registrationToken: String?
    @Flag(
        help: ArgumentHelp(
            "Status API writes need a stepped-up sign-in (RFC 9470): a token without acr \(StepUpPolicy.defaultACR) is answered 401 insufficient_user_authentication with acr_values."
        )
    )
    var stepUp = false
    @Option(
        help: ArgumentHelp(
            "With --step-up: the stepped-up sign-in counts for SECONDS (max_age in the challenge).",
            valueName: "seconds"
        )
    )
    var stepUpMaxAge: Int64?
    @Option(
        help: ArgumentHelp(
            "Sign the protected resources' metadata (signed_metadata, RFC 9728 §2.2) with a fresh P-256 key, and write its public JWK to FILE.",
            valueName: "file"
        )
    )
    var writeResourceMetadataKey: String?
    @Flag(
        name: .customLong("require-dpop"),
        help: "The protected resources take only DPoP-bound tokens (dpop_bound_access_tokens_required in their metadata, RFC 9449)."
    )
    var requireDPoP = false
    @Flag(
        help:
            "Also fetch client ID metadata documents over http from 127.0.0.1, [::1] and localhost (https only without it)."
    )
    var allowLoopbackClientMetadata = false
    /// A test hook (hidden from the help): refreshed ID tokens carry this `sub`, so that a
    /// relying party's Core §12.2 check can be seen refusing one.
    @Option(help: .hidden)
    var refreshedIDTokenSubject: String?

    func validate() throws {
        guard (0...65535).contains(port) else {
            throw ValidationError("--port must be 0 to 65535 (0 picks a free one), not \(port)")
        }
        if let stepUpMaxAge {
            guard stepUp else { throw ValidationError("--step-up-max-age needs --step-up") }
            guard stepUpMaxAge >= 0 else {
                throw ValidationError("--step-up-max-age must be 0 or more seconds, not \(stepUpMaxAge)")
            }
        }
        guard accessTokenTTL > 0 else {
            throw ValidationError("--access-token-ttl must be a positive number of seconds, not \(accessTokenTTL)")
        }
        if let registrationToken {
            // RFC 6750 §2.1: it is sent as a Bearer b64token.
            guard !registrationToken.isEmpty,
                registrationToken.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: ",") })
            else {
                throw ValidationError("--registration-token must be a non-empty token of visible ASCII characters")
            }
        }
    }

    func run() async throws {
        do {
            try Sandbox.checkLoopbackHost(host)
        } catch let error as SandboxError {
            throw CLIFailure(error.reason)
        }
        var configuration = SandboxConfiguration.demo()
        configuration.host = host
        configuration.port = port
        configuration.autoApprove = autoApprove
        configuration.timestampWindow = timestampWindow
        configuration.digestNonceLifetime = digestNonceLifetime
        configuration.statePath = state
        configuration.accessTokenTTL = accessTokenTTL
        configuration.implicitGrant = implicit
        configuration.requirePushedAuthorizationRequests = requirePAR
        configuration.dpopNonce = dpopNonce
        configuration.openIDKeyRotationInterval = rotateKeys
        configuration.refreshedIDTokenSubject = refreshedIDTokenSubject
        configuration.registrationToken = registrationToken
        if stepUp { configuration.stepUp = StepUpPolicy(maxAge: stepUpMaxAge) }
        configuration.requireDPoP = requireDPoP
        if let writeResourceMetadataKey {
            let key = JOSE.SigningKey.generateP256(keyID: "sandbox-resource-metadata")
            guard let jwk = try? key.publicJWK?.json(),
                FileManager.default.createFile(
                    atPath: writeResourceMetadataKey,
                    contents: Data(jwk),
                    attributes: [.posixPermissions: 0o644]
                )
            else {
                throw CLIFailure("cannot write the key to '\(writeResourceMetadataKey)'", status: .writeError)
            }
            configuration.resourceMetadataSigningKey = key
        }
        configuration.allowLoopbackClientMetadata = allowLoopbackClientMetadata
        if !quiet {
            configuration.requestLog = { entry in
                FileHandle.standardError.write(Data((entry.description + "\n").utf8))
            }
        }
        if let config {
            do {
                try configuration.load(configFile: config)
            } catch let error as SandboxError {
                throw CLIFailure("bad configuration: \(error.reason)")
            }
        }
        try writeSignatureKeys()
        var pin: String? = nil
        if !(tls || cert != nil || key != nil), clientCA != nil || writeCertificate != nil {
            throw CLIFailure("missing option: --client-ca and --write-certificate need --tls")
        }
        if clientCertOptional, clientCA == nil {
            throw CLIFailure("missing option: --client-cert-optional needs --client-ca")
        }
        if tls || cert != nil || key != nil {
            var material: SandboxConfiguration.TLSMaterial
            if cert != nil || key != nil {
                guard let cert, let key else { throw CLIFailure("missing option: --cert and --key go together") }
                guard let chain = try? String(contentsOfFile: cert, encoding: .utf8) else {
                    throw CLIFailure("unreadable certificate: cannot read '\(cert)'")
                }
                guard let privateKey = try? String(contentsOfFile: key, encoding: .utf8) else {
                    throw CLIFailure("unreadable key: cannot read '\(key)'")
                }
                material = .init(certificateChainPEM: chain, privateKeyPEM: privateKey)
            } else {
                material = try SandboxTLS.selfSigned()
            }
            guard let spki = try? SandboxTLS.spkiSHA256(certificateChainPEM: material.certificateChainPEM) else {
                throw CLIFailure("unreadable certificate: '\(cert ?? "")' is not a PEM certificate")
            }
            pin = spki
            if let clientCA {
                guard let pem = try? String(contentsOfFile: clientCA, encoding: .utf8),
                    (try? TrustRoots.pemBundle(pem)) != nil
                else { throw CLIFailure("unreadable client CA: '\(clientCA)' is not a PEM certificate file") }
                material.clientCAPEM = pem
                material.requiresClientCertificate = !clientCertOptional
            }
            if let writeCertificate {
                // Checked now, written once the sandbox listens: a sandbox that fails to bind
                // leaves an earlier sandbox's certificate file as it was.
                let directory = URL(fileURLWithPath: writeCertificate).deletingLastPathComponent().path
                guard FileManager.default.isWritableFile(atPath: directory) else {
                    throw CLIFailure("cannot write the certificate to '\(writeCertificate)': its directory is not writable")
                }
            }
            configuration.tls = material
        }
        if implicit {
            FileHandle.standardError.write(
                Data(
                    "warning: --implicit answers response_type=token with the access token in the redirect's fragment; the implicit grant is legacy (RFC 9700 §2.1.2 says not to use it)\n"
                        .utf8
                )
            )
        }
        let banner = configuration
        let shownPin = pin
        do {
            let writeCertificate = self.writeCertificate
            try await Sandbox.run(configuration) { sandbox in
                if let writeCertificate, let chain = banner.tls?.certificateChainPEM {
                    do {
                        try chain.write(toFile: writeCertificate, atomically: true, encoding: .utf8)
                    } catch {
                        FileHandle.standardError.write(
                            Data(
                                "remote-auth: cannot write the certificate to '\(writeCertificate)': \(error.localizedDescription)\n"
                                    .utf8
                            )
                        )
                        Foundation.exit(ExitStatus.writeError.rawValue)
                    }
                }
                var text = "RemoteAuth sandbox listening on \(sandbox.baseURL)\n"
                if let shownPin { text += "TLS SPKI pin: sha256//\(shownPin)\n" }
                if banner.tls?.requiresClientCertificate == true {
                    text += "Mutual TLS: a client certificate from --client-ca is required.\n"
                } else if banner.tls?.clientCAPEM != nil {
                    text +=
                        "Mutual TLS: a client certificate is asked for; --client-ca vouches for tls_client_auth clients.\n"
                }
                text += "\n" + SandboxBanner.endpoints(base: sandbox.baseURL) + SandboxBanner.identities(banner)
                if banner.autoApprove {
                    text += "Auto-approve: every authorize request is approved as \(banner.users.first?.name ?? "?").\n"
                }
                FileHandle.standardOutput.write(Data(text.utf8))
            }
        } catch let error as SandboxError {
            throw CLIFailure("cannot start the sandbox: \(error.reason)")
        } catch {
            throw CLIFailure("cannot start the sandbox: \(error)")
        }
    }
}

extension SandboxCommand {
    /// `--write-signature-key` and `--write-response-key`: the demo's fixed RFC 9421 test keys,
    /// written before the sandbox starts (the private one readable by its owner only).
    func writeSignatureKeys() throws {
        let keys = SandboxConfiguration.DemoSignatureKeys.self
        for (path, text, mode) in [
            (writeSignatureKey, keys.clientPrivateKeyPEM, 0o600), (writeResponseKey, keys.responsePublicKeyPEM, 0o644),
        ] {
            guard let path else { continue }
            guard FileManager.default.createFile(atPath: path, contents: Data(text.utf8), attributes: [.posixPermissions: mode])
            else {
                throw CLIFailure("cannot write the key to '\(path)'", status: .writeError)
            }
            // createFile keeps the mode of a file that already exists.
            try? FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: path)
        }
    }
}
