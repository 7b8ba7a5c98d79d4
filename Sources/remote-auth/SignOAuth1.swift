import ArgumentParser
import Foundation
import HTTPTypes
import RemoteAuth

struct SignOAuth1: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "oauth1",
        abstract: "Sign a request with OAuth 1.0a (RFC 5849) and print one line of the result.",
        discussion: ExitStatus.discussion(
            """
            Secrets may also come from the environment, which keeps them out of the process list: \
            REMOTE_AUTH_CONSUMER_SECRET and REMOTE_AUTH_TOKEN_SECRET.

            Example (the Twitter documentation's request):
              remote-auth sign oauth1 POST 'https://api.twitter.com/1.1/statuses/update.json?include_entities=true' \\
                --consumer-key xvz1evFS4wEEPTGEFPHBog --consumer-secret kAcSOqF21Fu85e7zjz7ZN2U4ZRhfV3WpwPAoE3Z7kBw \\
                --token 370773112-GmHxMAgYyLbNEtIKZeRNFsMKPR9EyMZeS9weJAEb --token-secret LswwdoUaIvS8ltyTt5jkRh4J50vUPVVHtR2YPi5kE \\
                --nonce kYjzVBB8Y0ZFabxSWbWovY3uYSQ2pTgmZeNu2VS4cg --timestamp 1318622958 \\
                -d 'status=Hello Ladies + Gentlemen, a signed OAuth request!'
            """
        )
    )

    enum PrintChoice: String, ExpressibleByArgument, CaseIterable {
        case header
        case baseString = "base-string"
        case signature, url
    }

    @Argument(help: "The HTTP method, such as GET or POST.")
    var method: String

    @Argument(help: "The absolute URL, with its query.")
    var url: String

    @Option(help: "The client (consumer) key.")
    var consumerKey: String

    @Option(
        parsing: .unconditional,
        help:
            "The client (consumer) secret, '-' to read it from stdin, or REMOTE_AUTH_CONSUMER_SECRET; not needed for RSA-SHA1."
    )
    var consumerSecret: String?

    @Option(help: "The token (access or request token).")
    var token: String?

    @Option(
        parsing: .unconditional,
        help: "The token secret, '-' to read it from stdin, or REMOTE_AUTH_TOKEN_SECRET."
    )
    var tokenSecret: String?

    @Option(help: "HMAC-SHA1, HMAC-SHA256, RSA-SHA1 or PLAINTEXT.")
    var signatureMethod: String = "HMAC-SHA1"

    @Option(help: ArgumentHelp("A PEM RSA private key (PKCS#1 or PKCS#8), for RSA-SHA1.", valueName: "pemfile"))
    var privateKey: String?

    @Option(help: "oauth_nonce (default: 128 random bits).")
    var nonce: String?

    @Option(help: "oauth_timestamp (default: now, in seconds).")
    var timestamp: String?

    @Option(help: "The realm of the Authorization header.")
    var realm: String?

    @Option(help: "oauth_callback: an absolute URL, or oob.")
    var callback: String?

    @Option(help: "oauth_verifier.")
    var verifier: String?

    @Flag(help: "Do not send oauth_version=\"1.0\" (it is optional).")
    var omitVersion = false

    @Option(
        name: .customShort("d"),
        help: ArgumentHelp(
            "A form-body parameter, NAME=VALUE, value taken literally (repeatable).",
            valueName: "name=value"
        )
    )
    var data: [String] = []

    enum PlacementChoice: String, ExpressibleByArgument, CaseIterable {
        case header, query, body
        var placement: OAuth1.Placement {
            switch self {
            case .header: .header
            case .query: .query
            case .body: .body
            }
        }
    }

    @Option(help: "Where the protocol parameters go: header, query or body.")
    var placement: PlacementChoice = .header

    @Option(name: .customLong("print"), help: "What to print: header, base-string, signature or url.")
    var printChoice: PrintChoice = .header

    func validate() throws {
        // RFC 5849 §3.3: a positive integer, seconds since 1970-01-01 UTC.
        if let timestamp, timestamp.isEmpty || !timestamp.utf8.allSatisfy({ (0x30...0x39).contains($0) }) {
            throw ValidationError("--timestamp must be whole seconds since 1970 (digits only), not '\(timestamp)'")
        }
        if privateKey != nil, signatureMethod.uppercased() != OAuth1.SignatureMethod.rsaSHA1.rawValue {
            throw ValidationError(
                "--private-key is used only by RSA-SHA1; \(signatureMethod.uppercased()) signs with the secrets"
            )
        }
    }

    func run() throws {
        guard let httpMethod = HTTPRequest.Method(method.uppercased()) else {
            throw CLIFailure("invalid method: '\(method)' is not an HTTP method token")
        }
        let methodName = OAuth1.SignatureMethod(rawValue: signatureMethod.uppercased())
        guard OAuth1.SignatureMethod.supported.contains(methodName) else {
            throw CLIFailure(
                "unknown signature method: '\(signatureMethod)' (use HMAC-SHA1, HMAC-SHA256, RSA-SHA1 or PLAINTEXT)"
            )
        }
        var key: OAuth1.RSAPrivateKey? = nil
        if methodName == .rsaSHA1 {
            guard let privateKey else {
                throw CLIFailure("missing private key: RSA-SHA1 needs --private-key PEMFILE")
            }
            guard let pem = try? String(contentsOfFile: privateKey, encoding: .utf8) else {
                throw CLIFailure("unreadable key: cannot read '\(privateKey)'")
            }
            do {
                key = try OAuth1.RSAPrivateKey(pemRepresentation: pem)
            } catch {
                throw CLIFailure("unreadable key: '\(privateKey)' is not a PEM RSA private key of at least 1024 bits")
            }
        }
        let clientSecret = try SecretInput.resolve(
            consumerSecret,
            environment: "REMOTE_AUTH_CONSUMER_SECRET",
            option: "--consumer-secret"
        )
        guard clientSecret != nil || methodName == .rsaSHA1 else {
            throw CLIFailure(
                "missing secret: --consumer-secret (or REMOTE_AUTH_CONSUMER_SECRET) is required for \(methodName)"
            )
        }
        var tokenCredentials: OAuth1.TokenCredentials? = nil
        if let token {
            guard
                let secret = try SecretInput.resolve(
                    tokenSecret,
                    environment: "REMOTE_AUTH_TOKEN_SECRET",
                    option: "--token-secret"
                )
            else {
                throw CLIFailure("missing secret: --token needs --token-secret (or REMOTE_AUTH_TOKEN_SECRET)")
            }
            tokenCredentials = OAuth1.TokenCredentials(token: token, secret: secret)
        } else if tokenSecret != nil {
            throw CLIFailure("missing token: --token-secret was given without --token")
        }

        var request: HTTPRequest
        do {
            request = try HTTPRequest(method: httpMethod, absoluteURL: url)
        } catch let error as RequestURLError {
            throw CLIFailure("invalid URL: \(error.reason)")
        }
        var body: [UInt8]? = nil
        if !data.isEmpty {
            var bytes: [UInt8] = []
            for pair in data {
                guard let equals = pair.firstIndex(of: "=") else {
                    throw CLIFailure("invalid -d: '\(pair)' is not NAME=VALUE")
                }
                if !bytes.isEmpty { bytes.append(UInt8(ascii: "&")) }
                bytes += Array(
                    FormURLEncoding.encode([(String(pair[..<equals]), String(pair[pair.index(after: equals)...]))]).utf8
                )
            }
            request.headerFields[.contentType] = "application/x-www-form-urlencoded"
            body = bytes
        }

        let signed: OAuth1.SignedRequest
        do {
            let signer = try OAuth1.Signer(
                client: OAuth1.ClientCredentials(key: consumerKey, secret: clientSecret ?? ""),
                token: tokenCredentials,
                signatureMethod: methodName,
                privateKey: key
            )
            let options = OAuth1.SigningOptions(
                placement: placement.placement,
                realm: realm,
                callback: callback,
                verifier: verifier,
                includeVersion: !omitVersion
            )
            signed = try signer.sign(
                request,
                body: body,
                options: options,
                nonce: nonce ?? OAuth1.Nonce.random(),
                timestamp: timestamp ?? String(Int64(Date().timeIntervalSince1970))
            )
        } catch let error as OAuth1Error {
            throw CLIFailure("cannot sign: \(error.reason)")
        }

        switch printChoice {
        case .header: Terminal.writeLine(signed.authorization)
        case .signature: Terminal.writeLine(signed.signature)
        case .url: Terminal.writeLine(signed.url)
        case .baseString:
            guard let baseString = signed.signatureBaseString else {
                throw CLIFailure("no base string: PLAINTEXT signs none (RFC 5849 §3.4.4)")
            }
            Terminal.writeLine(baseString)
        }
    }
}
