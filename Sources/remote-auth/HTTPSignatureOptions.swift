import ArgumentParser
import Foundation
import HTTPTypes
import RemoteAuth

/// `remote-auth request`'s HTTP Message Signatures options
/// ([RFC 9421](https://www.rfc-editor.org/rfc/rfc9421)): sign the request, and optionally
/// require a signed response.
struct HTTPSignatureOptions: ParsableArguments {
    @Option(
        name: .customLong("signature-key"),
        help: ArgumentHelp(
            "Sign the request with RFC 9421: a PEM or JWK private key, or a file holding an hmac-sha256 secret (its bytes as they are).",
            valueName: "file"
        )
    )
    var key: String?

    @Option(
        name: .customLong("signature-keyid"),
        help: ArgumentHelp("The keyid sent with the signature (default: the JWK's kid).", valueName: "id")
    )
    var keyID: String?

    @Option(
        name: .customLong("signature-alg"),
        help: ArgumentHelp(
            "rsa-pss-sha512, rsa-v1_5-sha256, hmac-sha256, ecdsa-p256-sha256, ecdsa-p384-sha384 or ed25519 (default: the key's; RSA keys need it).",
            valueName: "alg"
        )
    )
    var algorithm: String?

    @Option(
        name: .customLong("signature-components"),
        help: ArgumentHelp(
            "The covered components, space-separated (default: '@method @target-uri @authority'); with a body, content-digest is added.",
            valueName: "list"
        )
    )
    var components: String?

    @Option(
        name: .customLong("verify-response-key"),
        help: ArgumentHelp(
            "Ask for a signed response (Accept-Signature) and require its signature to verify with this public key (PEM or JWK; or an hmac-sha256 secret file); exit 110 when it does not.",
            valueName: "file"
        )
    )
    var verifyResponseKey: String?

    /// The label of the request's signature, and the one `Accept-Signature` asks the server to use.
    static let requestLabel = "sig1"
    static let responseLabel = "res1"

    /// The components the response must cover: its status, its body (through `Content-Digest`),
    /// and the request's signature (RFC 9421 §2.4).
    static let responseComponents: [HTTPMessageSignatures.ComponentIdentifier] = [
        .status,
        .field(HTTPMessageSignatures.contentDigestField),
        .field(HTTPMessageSignatures.signatureField, key: requestLabel, request: true),
    ]

    /// The authenticator for these options, `nil` without `--signature-key`. With
    /// `--verify-response-key`, `request` gets an `Accept-Signature` for the response (unless it
    /// has one already) and the authenticator requires it answered.
    func authenticator(for request: inout HTTPRequest, hasBody: Bool) throws -> (any RequestAuthenticator)? {
        guard let key else {
            if keyID != nil || algorithm != nil || components != nil || verifyResponseKey != nil {
                throw CLIFailure(
                    "--signature-keyid, --signature-alg, --signature-components and --verify-response-key need --signature-key"
                )
            }
            return nil
        }
        let signingKey = try HTTPSignatureKeyFile.signingKey(key, keyID: keyID, algorithm: algorithm)
        let covered = try HTTPSignatureKeyFile.components(components) ?? [.method, .targetURI, .authority]
        let signer = HTTPMessageSignatures.Signer(key: signingKey, label: Self.requestLabel, components: covered)
        // RFC 9530: with a body (or when content-digest is asked for), a sha-256 Content-Digest, covered.
        let digest = hasBody || covered.contains(.field(HTTPMessageSignatures.contentDigestField))
        var authenticator = HTTPMessageSignatures.Authenticator(signer: signer, contentDigest: digest ? [.sha256] : [])
        guard let verifyResponseKey else { return authenticator }
        let verificationKey = try HTTPSignatureKeyFile.verificationKey(verifyResponseKey)
        var verifier = HTTPMessageSignatures.Verifier(key: { _ in verificationKey })
        if request.headerFields[HTTPMessageSignatures.acceptSignatureField] == nil {
            // RFC 9421 §5.1: the signature asked of the server, by label and components.
            let asked = HTTPMessageSignatures.AcceptSignature([
                (
                    Self.responseLabel,
                    HTTPMessageSignatures.SignatureInput(components: Self.responseComponents, parameters: [])
                )
            ])
            request.headerFields[HTTPMessageSignatures.acceptSignatureField] = try asked.fieldValue()
            verifier.requiredComponents = Self.responseComponents
            authenticator.responseLabel = Self.responseLabel
        }
        authenticator.responseVerifier = verifier
        return ResponseSignatureCheck(inner: authenticator)
    }
}

/// A response whose RFC 9421 signature did not verify (exit status 110).
struct ResponseSignatureRejection: Error, CustomStringConvertible {
    let error: HTTPMessageSignatures.Error
    var description: String {
        "the response's signature does not verify (RFC 9421 §3.2, \(error.code)): \(error.reason)"
    }
}

/// The signing authenticator, with what its response check throws told apart from what
/// signing throws: a signature that does not verify is ``ResponseSignatureRejection``.
struct ResponseSignatureCheck: RequestAuthenticator {
    let inner: HTTPMessageSignatures.Authenticator
    var writtenFields: [HTTPField.Name] { inner.writtenFields }

    func authenticate(_ attempt: inout AuthenticationAttempt) async throws {
        try await inner.authenticate(&attempt)
    }

    func judge(
        _ response: HTTPResponse,
        to attempt: inout AuthenticationAttempt
    ) async throws
        -> AuthenticationVerdict
    {
        do {
            return try await inner.judge(response, to: &attempt)
        } catch let error as HTTPMessageSignatures.Error {
            throw ResponseSignatureRejection(error: error)
        }
    }
}

/// How `request --signature-key`, `--verify-response-key` and `sign http-signature --key` read
/// their files: text starting with `{` is a JWK; text with `-----BEGIN` is PEM; anything else
/// is an hmac-sha256 shared secret, its bytes exactly as they are (32 or more; write it with
/// `printf`, or `head -c 32 /dev/urandom`, as a trailing newline would be part of it).
enum HTTPSignatureKeyFile {
    enum Contents {
        case jwk(JOSE.JWK)
        case pem(String)
        case secret([UInt8])
    }

    static func read(_ path: String) throws -> Contents {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CLIFailure("cannot read the key file '\(path)'")
        }
        let bytes = [UInt8](data)
        let text = String(decoding: bytes, as: UTF8.self)
        if text.drop(while: \.isWhitespace).first == "{" {
            do {
                return .jwk(try JOSE.JWK(json: bytes))
            } catch let error as JOSE.Error {
                throw CLIFailure("the key file '\(path)' is not a JWK: \(error.reason)")
            }
        }
        if text.contains("-----BEGIN ") { return .pem(text) }
        return .secret(bytes)
    }

    static func algorithm(_ name: String?) throws -> HTTPMessageSignatures.Algorithm? {
        guard let name else { return nil }
        guard let known = HTTPMessageSignatures.Algorithm.all.first(where: { $0.rawValue == name }) else {
            throw CLIFailure(
                "unknown signature algorithm '\(name)': rsa-pss-sha512, rsa-v1_5-sha256, hmac-sha256, ecdsa-p256-sha256, ecdsa-p384-sha384 or ed25519"
            )
        }
        return known
    }

    /// The covered components of `--components` (`nil` when not given).
    static func components(_ text: String?) throws -> [HTTPMessageSignatures.ComponentIdentifier]? {
        guard let text else { return nil }
        do {
            let list = try HTTPMessageSignatures.ComponentIdentifier.list(parsing: text)
            guard !list.isEmpty else { throw CLIFailure("the signature's component list is empty") }
            return list
        } catch let error as HTTPMessageSignatures.Error {
            throw CLIFailure("invalid signature components: \(error.reason)")
        }
    }

    /// The signing key of `path`. The algorithm is `algorithm`, else the JWK's `alg`, else the
    /// key's type (EC P-256, P-384, Ed25519, oct); an RSA key must be told. The key id is
    /// `keyID`, else the JWK's `kid`.
    static func signingKey(
        _ path: String,
        keyID: String?,
        algorithm name: String?
    ) throws
        -> HTTPMessageSignatures.SigningKey
    {
        let named = try algorithm(name)
        let rsaNeedsAlgorithm = CLIFailure(
            "the RSA key in '\(path)' needs --signature-alg rsa-pss-sha512 or rsa-v1_5-sha256 (RFC 9421 §3.3)"
        )
        do {
            switch try read(path) {
            case .jwk(let jwk):
                let declared = jwk.algorithm.flatMap { alg in
                    HTTPMessageSignatures.Algorithm.all.first { $0.rawValue == alg.rawValue }
                }
                let inferred: HTTPMessageSignatures.Algorithm? =
                    switch (jwk.keyType, jwk.curve) {
                    case (.ec, "P-256"): .ecdsaP256SHA256
                    case (.ec, "P-384"): .ecdsaP384SHA384
                    case (.okp, "Ed25519"): .ed25519
                    case (.oct, _): .hmacSHA256
                    default: nil
                    }
                guard let chosen = named ?? declared ?? inferred else { throw rsaNeedsAlgorithm }
                guard keyID != nil || jwk.keyID != nil else {
                    throw CLIFailure("the JWK in '\(path)' has no kid: pass its keyid")
                }
                return try HTTPMessageSignatures.SigningKey(jwk: jwk, algorithm: chosen, keyID: keyID)
            case .pem(let pem):
                guard let keyID else { throw CLIFailure("a PEM key has no key id: pass its keyid") }
                if let named { return try HTTPMessageSignatures.SigningKey(pem: pem, algorithm: named, keyID: keyID) }
                for candidate in [HTTPMessageSignatures.Algorithm.ed25519, .ecdsaP256SHA256, .ecdsaP384SHA384] {
                    if let key = try? HTTPMessageSignatures.SigningKey(pem: pem, algorithm: candidate, keyID: keyID) {
                        return key
                    }
                }
                if (try? HTTPMessageSignatures.SigningKey(pem: pem, algorithm: .rsaPSSSHA512, keyID: keyID)) != nil {
                    throw rsaNeedsAlgorithm
                }
                throw CLIFailure("the PEM in '\(path)' is not an RSA, P-256, P-384 or Ed25519 private key")
            case .secret(let secret):
                guard let keyID else { throw CLIFailure("a shared secret has no key id: pass its keyid") }
                if let named, named != .hmacSHA256 {
                    throw CLIFailure(
                        "'\(path)' is neither PEM nor JWK: it is read as an hmac-sha256 secret, not a \(named) key"
                    )
                }
                return try HTTPMessageSignatures.SigningKey.hmacSHA256(secret, keyID: keyID)
            }
        } catch let error as HTTPMessageSignatures.Error {
            throw CLIFailure("the key in '\(path)' cannot sign: \(error.reason)")
        }
    }

    /// The key of `path` that a response's signature must verify with, whatever its keyid: a
    /// public PEM (an RSA one allows both RSA algorithms), a JWK, or an hmac-sha256 secret.
    static func verificationKey(_ path: String) throws -> HTTPMessageSignatures.VerificationKey {
        let keyID = "--verify-response-key"
        do {
            switch try read(path) {
            case .jwk(let jwk):
                let rsa: Set<HTTPMessageSignatures.Algorithm>? =
                    jwk.keyType == .rsa && jwk.algorithm == nil ? [.rsaPSSSHA512, .rsaV1_5SHA256] : nil
                return try HTTPMessageSignatures.VerificationKey(jwk: jwk, keyID: jwk.keyID ?? keyID, algorithms: rsa)
            case .pem(let pem):
                let sets: [Set<HTTPMessageSignatures.Algorithm>] = [
                    [.ed25519], [.ecdsaP256SHA256], [.ecdsaP384SHA384], [.rsaPSSSHA512, .rsaV1_5SHA256],
                ]
                for set in sets {
                    if let key = try? HTTPMessageSignatures.VerificationKey(pem: pem, keyID: keyID, algorithms: set) {
                        return key
                    }
                }
                throw CLIFailure("the PEM in '\(path)' is not an RSA, P-256, P-384 or Ed25519 public key")
            case .secret(let secret):
                return try HTTPMessageSignatures.VerificationKey.hmacSHA256(secret, keyID: keyID)
            }
        } catch let error as HTTPMessageSignatures.Error {
            throw CLIFailure("the key in '\(path)' cannot verify: \(error.reason)")
        }
    }
}
