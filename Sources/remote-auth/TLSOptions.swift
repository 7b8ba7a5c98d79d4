import ArgumentParser
import Foundation
import NIOCore
import RemoteAuth
import RemoteAuthNIO

/// curl's TLS options: `--cacert`, `--pin` (curl's `--pinnedpubkey`), `--cert`/`--key`,
/// `--insecure`. Any of them selects the NIO transport, which checks the server from inside the
/// TLS handshake, before a byte of the request is written.
struct TLSOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Trust only the CAs in this PEM bundle, not the system's.", valueName: "file"))
    var cacert: String?

    @Option(
        help: ArgumentHelp(
            "Pin the SHA-256 of a public key (SubjectPublicKeyInfo) of the server's chain, as curl's --pinnedpubkey writes it; repeatable, at least two (one a backup key).",
            valueName: "sha256//base64"
        )
    )
    var pin: [String] = []

    @Option(
        help: ArgumentHelp(
            "A client certificate for mutual TLS: PEM (with --key), or PKCS#12 with --cert-type p12 (passphrase from REMOTE_AUTH_CERT_PASSPHRASE).",
            valueName: "file"
        )
    )
    var cert: String?

    @Option(help: ArgumentHelp("The PEM private key of --cert.", valueName: "file"))
    var key: String?

    enum CertType: String, ExpressibleByArgument, CaseIterable {
        case pem, p12
    }

    @Option(name: .customLong("cert-type"), help: "The format of --cert: pem (default) or p12.")
    var certType: CertType = .pem

    @Flag(
        name: [.customShort("k"), .customLong("insecure")],
        help: "Accept any server certificate. For local development only: anyone on the path can read the credentials."
    )
    var insecure = false

    /// These options, with the client certificate of `reference` (a profile's) when no `--cert`
    /// was given.
    func presenting(_ reference: OAuth2.Session.ClientCertificateReference?) -> TLSOptions {
        guard cert == nil, key == nil, let reference else { return self }
        var options = self
        options.cert = reference.certificate
        options.key = reference.key
        options.certType = CertType(rawValue: reference.format) ?? .pem
        return options
    }

    /// The `--cert`, `--key` and `--cert-type` to keep with a profile, as absolute paths.
    var clientCertificateReference: OAuth2.Session.ClientCertificateReference? {
        guard let cert else { return nil }
        func absolute(_ path: String) -> String { URL(fileURLWithPath: path).standardizedFileURL.path }
        return .init(certificate: absolute(cert), key: key.map(absolute), format: certType.rawValue)
    }

    var isEmpty: Bool { cacert == nil && pin.isEmpty && cert == nil && key == nil && !insecure }

    /// The NIO transport these options describe, or `nil` when none was given.
    /// With `quiet`, the `--insecure` warning is not written (`request -s`).
    func transport(
        connectTimeout: TimeAmount? = nil,
        timeout: TimeAmount? = nil,
        quiet: Bool = false
    ) throws -> NIOHTTP1Transport? {
        guard !isEmpty else { return nil }
        var configuration = NIOHTTP1Transport.Configuration()
        if let connectTimeout { configuration.connectTimeout = connectTimeout }
        if let timeout { configuration.timeout = timeout }
        configuration.trust = ServerTrust(default: try policy(quiet: quiet))
        configuration.clientIdentity = try identity()
        do {
            return try NIOHTTP1Transport(configuration: configuration)
        } catch let error as TrustError {
            throw CLIFailure(error.reason)
        }
    }

    func policy(quiet: Bool = false) throws -> any TrustPolicy {
        if insecure, !pin.isEmpty {
            // curl's -k --pinnedpubkey: the pin alone, the usual way to pin a self-signed server.
            guard cacert == nil else {
                throw CLIFailure("--insecure contradicts --cacert: with --pin it trusts the pinned key alone")
            }
            if !quiet {
                Terminal.writeError(
                    "remote-auth: warning: --insecure with --pin: only the server's key is checked (no CA, host name or dates)\n"
                )
            }
            do {
                return try PinnedKeyOnlyPolicy(pins: pin.map { try SPKIPin($0) })
            } catch let error as TrustError {
                throw CLIFailure("bad --pin: \(error.reason)")
            }
        }
        if insecure {
            guard cacert == nil else {
                throw CLIFailure("--insecure contradicts --cacert: it checks nothing")
            }
            if !quiet {
                Terminal.writeError(
                    "remote-auth: warning: --insecure: the server's certificate is not checked; anyone on the path can read and change this request, credentials included\n"
                )
            }
            return InsecureAcceptAnythingPolicy()
        }
        var roots = TrustRoots.system
        if let cacert {
            guard let pem = try? String(contentsOfFile: cacert, encoding: .utf8) else {
                throw CLIFailure("unreadable CA bundle: cannot read '\(cacert)'")
            }
            do {
                roots = try TrustRoots.pemBundle(pem)
            } catch let error as TrustError {
                throw CLIFailure("bad CA bundle '\(cacert)': \(error.reason)")
            }
        }
        guard !pin.isEmpty else { return DefaultTrustPolicy(roots: roots) }
        do {
            return try PublicKeyPinningPolicy(pins: pin.map { try SPKIPin($0) }, roots: roots)
        } catch let error as TrustError {
            throw CLIFailure("bad --pin: \(error.reason)")
        }
    }

    func identity() throws -> ClientIdentity? {
        guard let cert else {
            if key != nil { throw CLIFailure("missing option: --key needs --cert") }
            return nil
        }
        guard let certificate = FileManager.default.contents(atPath: cert) else {
            throw CLIFailure("unreadable client certificate: cannot read '\(cert)'")
        }
        switch certType {
        case .p12:
            if key != nil { throw CLIFailure("--key does not go with --cert-type p12: the bundle holds the key") }
            return ClientIdentity(
                pkcs12: Array(certificate),
                passphrase: ProcessInfo.processInfo.environment["REMOTE_AUTH_CERT_PASSPHRASE"].map { Secret($0) }
            )
        case .pem:
            guard let key else { throw CLIFailure("missing option: --cert needs --key (or --cert-type p12)") }
            guard let privateKey = try? String(contentsOfFile: key, encoding: .utf8) else {
                throw CLIFailure("unreadable key: cannot read '\(key)'")
            }
            return ClientIdentity(
                certificateChainPEM: String(decoding: certificate, as: UTF8.self),
                privateKeyPEM: privateKey
            )
        }
    }
}
