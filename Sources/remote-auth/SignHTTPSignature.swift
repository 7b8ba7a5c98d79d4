import ArgumentParser
import Foundation
import RemoteAuth

/// `remote-auth sign http-signature`: the `Signature-Input` and `Signature` fields (and
/// `Content-Digest` for a body) that HTTP Message Signatures
/// ([RFC 9421](https://www.rfc-editor.org/rfc/rfc9421)) adds to a request, for debugging and for
/// comparing with other implementations.
struct SignHTTPSignature: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "http-signature",
        abstract: "Print the RFC 9421 Signature-Input and Signature fields of a request (and Content-Digest with -d).",
        discussion: ExitStatus.discussion(
            """
            --key reads a PEM or JWK private key, or any other file as an hmac-sha256 shared secret \
            (its bytes as they are, 32 or more). The algorithm is --alg, else the JWK's alg, else the \
            key's type; RSA keys need --alg. --components lists the covered components as in \
            Signature-Input, bare names allowed: '@method @target-uri "content-type"'. With -d the \
            body's sha-256 Content-Digest (RFC 9530) is printed first and covered. created is now \
            unless --created; expires is created + --lifetime (300; 0 sends none).
            """
        )
    )

    @Option(help: ArgumentHelp("A PEM or JWK private key, or an hmac-sha256 secret file.", valueName: "file"))
    var key: String

    @Option(name: .customLong("keyid"), help: ArgumentHelp("The keyid (default: the JWK's kid).", valueName: "id"))
    var keyID: String?

    @Option(name: .customLong("alg"), help: ArgumentHelp("The algorithm (default: the key's).", valueName: "alg"))
    var algorithm: String?

    @Option(
        help: ArgumentHelp("The covered components (default: '@method @target-uri @authority').", valueName: "list")
    )
    var components: String?

    @Option(help: "The signature's label (default: sig1).")
    var label = HTTPSignatureOptions.requestLabel

    @Option(help: ArgumentHelp("created, seconds since 1970 (default: now).", valueName: "seconds"))
    var created: Int64?

    @Option(help: ArgumentHelp("Seconds from created to expires; 0 sends no expires.", valueName: "seconds"))
    var lifetime: Int64 = 300

    @Flag(help: "Leave the alg parameter out (RFC 9421 §2.3: the verifier then takes the key's).")
    var omitAlg = false

    @Option(name: [.customShort("X"), .customLong("request")], help: "The method (default: GET, or POST with -d).")
    var method: String?

    @Option(
        name: [.customShort("H"), .customLong("header")],
        help: ArgumentHelp("A header field, 'Name: value' (repeatable).", valueName: "header")
    )
    var headers: [String] = []

    @Option(
        name: [.customShort("d"), .customLong("data")],
        help: ArgumentHelp("The body, as given.", valueName: "data")
    )
    var data: String?

    @Argument(help: "The absolute URL.")
    var url: String

    func validate() throws {
        guard lifetime >= 0 else { throw ValidationError("--lifetime must be 0 or more seconds, not \(lifetime)") }
    }

    func run() throws {
        let signingKey = try HTTPSignatureKeyFile.signingKey(key, keyID: keyID, algorithm: algorithm)
        var covered = try HTTPSignatureKeyFile.components(components) ?? [.method, .targetURI, .authority]
        guard let httpMethod = HTTPRequest.Method((method ?? (data == nil ? "GET" : "POST")).uppercased()) else {
            throw CLIFailure("invalid method: '\(method ?? "")' is not an HTTP method token")
        }
        var request: HTTPRequest
        do {
            request = try HTTPRequest(method: httpMethod, absoluteURL: url)
        } catch let error as RequestURLError {
            throw CLIFailure("invalid URL: \(error.reason)")
        }
        for header in headers {
            guard let colon = header.firstIndex(of: ":"), let name = HTTPField.Name(String(header[..<colon])) else {
                throw CLIFailure("invalid header: expected 'Name: value' (not shown: it may hold a credential)")
            }
            let value = header[header.index(after: colon)...].drop(while: { $0 == " " || $0 == "\t" })
            request.headerFields.append(HTTPField(name: name, value: String(value)))
        }
        let digestComponent = HTTPMessageSignatures.ComponentIdentifier.field(HTTPMessageSignatures.contentDigestField)
        var printed: [HTTPField.Name] = []
        if let data {
            // RFC 9530 §2: the digest of the content, covered by the signature.
            HTTPMessageSignatures.ContentDigest.set(
                &request.headerFields,
                body: Array(data.utf8),
                algorithms: [.sha256]
            )
            if !covered.contains(digestComponent) { covered.append(digestComponent) }
            printed.append(HTTPMessageSignatures.contentDigestField)
        }
        var signer = HTTPMessageSignatures.Signer(
            key: signingKey,
            label: label,
            components: covered,
            now: { [created] in created ?? UnixTime.now() }
        )
        signer.lifetime = lifetime == 0 ? nil : lifetime
        signer.includesAlgorithm = !omitAlg
        do {
            try signer.sign(&request)
        } catch let error as HTTPMessageSignatures.Error {
            throw CLIFailure("cannot sign the request: \(error.reason)")
        }
        printed += [HTTPMessageSignatures.signatureInputField, HTTPMessageSignatures.signatureField]
        for name in printed {
            for value in request.headerFields[values: name] { Terminal.writeLine("\(name.rawName): \(value)") }
        }
    }
}
