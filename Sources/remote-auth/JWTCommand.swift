import ArgumentParser
import AsyncHTTPClient
import Foundation
import RemoteAuth
import RemoteAuthAsyncHTTPClient

/// `remote-auth jwt`: sign and verify compact JWS (JWTs) with the library's JOSE module, and
/// print JWK thumbprints: for debugging tokens, and for comparing with other implementations.
struct JWTCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "jwt",
        abstract: "Sign and verify JSON Web Tokens (compact JWS); print a key's public JWK or its thumbprint.",
        discussion: """
            Algorithms: ES256, RS256, PS256, EdDSA and Ed25519, HS256 (RFC 7518, RFC 8037, RFC 9864). Keys are PEM \
            files (PKCS#8, SEC 1 or PKCS#1; public keys as SubjectPublicKeyInfo) or JWK files; a JWK \
            Set file or --jwks URL holds several keys, chosen by kid. Verification allows only the \
            algorithms named with --alg, never 'none', refuses a 'crit' header, and never falls back \
            to another key when the kid is unknown. Exit status: 0 verified, 1 not verified, 2 bad input.
            """,
        subcommands: [JWTSign.self, JWTVerify.self, JWTThumbprint.self, JWTPublicJWK.self]
    )
}

/// Reads a key file: PEM, or JSON (a JWK, or a JWK Set when `allowSet`).
enum KeyFile {
    static func read(_ path: String) throws -> String {
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw CLIFailure("cannot read the key file '\(path)'")
        }
        return text
    }

    static func isJSON(_ text: String) -> Bool { text.drop(while: \.isWhitespace).first == "{" }

    static func signingKey(_ path: String, algorithm: JOSE.Algorithm?, keyID: String?) throws -> JOSE.SigningKey {
        let text = try read(path)
        do {
            if isJSON(text) {
                var jwk = try JOSE.JWK(json: Array(text.utf8))
                if let keyID { jwk.keyID = keyID }
                return try JOSE.SigningKey(jwk: jwk, algorithm: algorithm)
            }
            return try JOSE.SigningKey(pem: text, algorithm: algorithm, keyID: keyID)
        } catch let error as JOSE.Error {
            throw CLIFailure("the key in '\(path)' cannot sign: \(error.reason)")
        }
    }

    static func verificationKeys(_ path: String) throws -> [JOSE.VerificationKey] {
        let text = try read(path)
        do {
            if isJSON(text) {
                if let set = try? JOSE.KeySet(json: Array(text.utf8)) { return set.keys }
                return [try JOSE.VerificationKey(jwk: JOSE.JWK(json: Array(text.utf8)))]
            }
            return [try JOSE.VerificationKey(pem: text)]
        } catch let error as JOSE.Error {
            throw CLIFailure("the key in '\(path)' cannot verify: \(error.reason)")
        }
    }
}

/// The argument, or standard input for `-`.
func argumentOrStandardInput(_ value: String) -> String {
    guard value == "-" else { return value }
    let data = FileHandle.standardInput.readDataToEndOfFile()
    return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
}

struct JWTSign: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sign",
        abstract: "Sign a JSON claims set (or any payload with --raw) and print the compact JWS."
    )

    @Option(help: ArgumentHelp("The private key: a PEM file or a JWK file.", valueName: "file"))
    var key: String

    @Option(help: "The algorithm (default: the JWK's alg, else ES256, RS256, EdDSA or HS256 by key type).")
    var alg: String?

    @Option(help: "The kid header.")
    var kid: String?

    @Option(help: "The typ header (JWT, dpop+jwt, …).")
    var typ: String?

    @Flag(help: "Sign the payload's bytes as they are, not as a JSON object.")
    var raw = false

    @Argument(help: "The claims as a JSON object (or the payload with --raw); '-' reads standard input.")
    var payload: String

    func run() throws {
        let signer = try KeyFile.signingKey(key, algorithm: alg.map(JOSE.Algorithm.init(rawValue:)), keyID: kid)
        let text = argumentOrStandardInput(payload)
        var header: [String: JSONValue] = [:]
        if let typ { header["typ"] = .string(typ) }
        let token: String
        do {
            if raw {
                token = try JOSE.JWS.sign(Array(text.utf8), with: signer, header: header)
            } else {
                guard let claims = try? JSONValue.parseObject(Array(text.utf8)) else {
                    throw CLIFailure("the claims are not a JSON object (use --raw for another payload)")
                }
                token = try JOSE.JWS.sign(claims: claims, with: signer, header: header)
            }
        } catch let error as JOSE.Error {
            throw CLIFailure("cannot sign: \(error.reason)")
        }
        Terminal.writeLine(token)
    }
}

struct JWTVerify: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Verify a compact JWS and print its header and payload as JSON."
    )

    @Option(help: ArgumentHelp("A key: a PEM public key, a JWK or a JWK Set file (repeatable).", valueName: "file"))
    var key: [String] = []

    @Option(help: ArgumentHelp("A JWK Set URL (https, or http to loopback) to fetch the keys from.", valueName: "url"))
    var jwks: String?

    @Option(help: "An algorithm to allow (repeatable; at least one). 'none' is never allowed.")
    var alg: [String] = []

    @Option(help: "The typ the header must have (compared as a media type).")
    var typ: String?

    @Option(help: "Seconds of clock skew allowed on exp and nbf (RFC 7519 §4.1.4, §4.1.5).")
    var leeway: Int64 = 0

    @Argument(help: "The compact JWS; '-' reads standard input.")
    var token: String

    func validate() throws {
        guard !alg.isEmpty else { throw ValidationError("name the algorithms to allow with --alg (e.g. --alg ES256)") }
        guard (0...86_400).contains(leeway) else {
            throw ValidationError("--leeway must be between 0 and 86400 seconds, not \(leeway)")
        }
        guard !key.isEmpty || jwks != nil else { throw ValidationError("give the keys with --key or --jwks") }
    }

    func run() async throws {
        var keys = try key.flatMap(KeyFile.verificationKeys)
        let allowed = Set(alg.map(JOSE.Algorithm.init(rawValue:)))
        let jws: JOSE.CompactJWS
        do {
            jws = try JOSE.CompactJWS(argumentOrStandardInput(token))
            try jws.checkHeader(allowing: allowed, type: typ)
            if let jwks {
                let fetched = try await AsyncHTTPClientTransport.withTransport { transport in
                    try await JOSE.KeySetCache(url: jwks, transport: transport, now: unixNow).keySet()
                }
                keys += fetched.keys
            }
            if keys.count == 1, jwks == nil {
                try jws.verify(with: keys[0], allowing: allowed, type: typ)
            } else {
                try jws.verify(with: keys, allowing: allowed, type: typ)
            }
        } catch let error as JOSE.Error {
            // A token that is not a JWS at all, or too large to read, is bad input (2); one that
            // is well-formed but does not verify is a failure (1).
            let badInput = error.code == .malformed || error.code == .tooLarge
            throw CLIFailure("not verified: \(error.code): \(error.reason)", status: badInput ? .usage : .failure)
        } catch let error as OAuth2.Error {
            throw CLIFailure("not verified: \(error.reason)", status: .usage)
        }
        let payload: JSONValue
        if let claims = try? jws.claims() {
            // A JWT's exp and nbf: a signature over an expired token is still no valid token.
            do {
                try JOSE.CompactJWS.checkTimes(of: claims, now: unixNow(), leeway: leeway)
            } catch let error as JOSE.Error {
                throw CLIFailure("not verified: \(error.code): \(error.reason)", status: .failure)
            }
            payload = .object(claims)
        } else {
            payload = .string(String(decoding: jws.payload, as: UTF8.self))
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let output = try encoder.encode(JSONValue.object(["header": .object(jws.header), "payload": payload]))
        Terminal.writeLine(String(decoding: output, as: UTF8.self))
    }
}

struct JWTThumbprint: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "thumbprint",
        abstract: "Print the RFC 7638 SHA-256 thumbprint of a key (a JWK or PEM file), base64url."
    )

    @Argument(help: ArgumentHelp("A JWK file, or a PEM public or private key.", valueName: "file"))
    var key: String

    func run() throws {
        let text = try KeyFile.read(key)
        do {
            let jwk: JOSE.JWK
            if KeyFile.isJSON(text) {
                jwk = try JOSE.JWK(json: Array(text.utf8))
            } else if let signer = try? JOSE.SigningKey(pem: text), let public_ = signer.publicJWK {
                jwk = public_
            } else {
                jwk = try JOSE.VerificationKey(pem: text).jwk
            }
            Terminal.writeLine(try jwk.thumbprint())
        } catch let error as JOSE.Error {
            throw CLIFailure("no thumbprint for '\(key)': \(error.reason)")
        }
    }
}

/// `jwt jwk`: the public JWK of a key file, to register a client's key with a provider (the
/// `jwks` of [RFC 7591 §2](https://www.rfc-editor.org/rfc/rfc7591#section-2), which
/// `private_key_jwt`, [RFC 7523 §2.2](https://www.rfc-editor.org/rfc/rfc7523#section-2.2), is
/// verified against). Private members are never printed.
struct JWTPublicJWK: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "jwk",
        abstract: "Print the public JWK of a key (a PEM or JWK file), never its private members.",
        discussion: """
            The kid is the key's RFC 7638 thumbprint unless the file or --kid names one: the kid \
            'authorize oauth2 --client-auth private-key-jwt' sends. With --set the key is printed \
            as a JWK Set ({"keys":[…]}), as a provider's client registration takes it.
            """
    )

    @Argument(help: ArgumentHelp("A PEM public or private key, or a JWK file.", valueName: "file"))
    var key: String

    @Option(help: "The kid to print (default: the file's, else the RFC 7638 thumbprint).")
    var kid: String?

    @Flag(help: "Print a JWK Set holding the key.")
    var set = false

    func run() throws {
        let text = try KeyFile.read(key)
        do {
            var jwk: JOSE.JWK
            if KeyFile.isJSON(text) {
                jwk = try JOSE.JWK(json: Array(text.utf8))
                guard jwk.keyType != .oct else {
                    throw CLIFailure("'\(key)' is a symmetric key: it has no public part")
                }
                (jwk.d, jwk.p, jwk.q, jwk.dp, jwk.dq, jwk.qi) = (nil, nil, nil, nil, nil, nil)
            } else if let signer = try? JOSE.SigningKey(pem: text), let public_ = signer.publicJWK {
                jwk = public_
            } else {
                jwk = try JOSE.VerificationKey(pem: text).jwk
            }
            if let kid { jwk.keyID = kid } else if jwk.keyID == nil { jwk.keyID = try jwk.thumbprint() }
            let json = String(decoding: try jwk.json(), as: UTF8.self)
            Terminal.writeLine(set ? #"{"keys":[\#(json)]}"# : json)
        } catch let error as JOSE.Error {
            throw CLIFailure("no public JWK for '\(key)': \(error.reason)")
        }
    }
}
