import HTTPTypes
import Hummingbird
import NIOCore
import RemoteAuth

extension BearerAuthenticator {
    /// A request signed with HTTP Message Signatures ([RFC 9421](https://www.rfc-editor.org/rfc/rfc9421))
    /// by one of the configured keys: its user. The signature must cover `@method`,
    /// `@target-uri` and `@authority`, and, when there is a body, `content-digest`, whose digest
    /// must be the body's (RFC 9530); it must be at most 300 s old and name a known `keyid`.
    /// - Throws: ``JSONError`` 401 naming the rule that failed.
    func verifyMessageSignature(_ request: Request) async throws -> String {
        var keys: [String: (key: HTTPMessageSignatures.VerificationKey, user: String)] = [:]
        for configured in configuration.httpSignatureKeys {
            // Checked when the configuration was loaded; a key that became unreadable is unknown.
            if let key = try? configured.verificationKey() { keys[configured.keyID] = (key, configured.user) }
        }
        let table = keys
        var verifier = HTTPMessageSignatures.Verifier(key: { table[$0]?.key })
        let body = await request.bodyBytes()
        verifier.requiredComponents = [.method, .targetURI, .authority]
        if !body.isEmpty { verifier.requiredComponents.append(.field(HTTPMessageSignatures.contentDigestField)) }
        do {
            let verified = try verifier.verify(messageHead(request), body: body, now: configuration.now())
            return table[verified.keyID]?.user ?? ""
        } catch let error as HTTPMessageSignatures.Error {
            throw JSONError(.unauthorized, "HTTP Message Signatures (RFC 9421) \(error.code): \(error.reason)")
        }
    }

    /// The request as its signer saw it: with the scheme and authority of the URL it was sent to.
    func messageHead(_ request: Request) -> HTTPRequest {
        var head = request.head
        head.scheme = configuration.tls == nil ? "http" : "https"
        head.authority = head.authority ?? request.headers[HTTPField.Name("Host")!]
        return head
    }
}

/// Signs the status API's responses when the request asks with `Accept-Signature`
/// ([RFC 9421 §5.1](https://www.rfc-editor.org/rfc/rfc9421#section-5.1)): the first signature
/// asked for, under its label and over its components (`@status`, `content-digest`, and the
/// request's own signature through `"signature";req;key="…"`, §2.4), with the sandbox's response
/// key. Refusals are signed too, so that a client can trust a 401 as well as a 200. The asked
/// signature's parameters are honoured (§5.1): its `nonce` and `tag` are the signature's; a
/// `keyid` or `alg` other than the response key's is refused (`400`), since the sandbox has one key.
struct ResponseSignatureMiddleware: RouterMiddleware {
    typealias Context = SandboxRequestContext
    let authenticator: BearerAuthenticator

    var configuration: SandboxConfiguration { authenticator.configuration }

    func handle(
        _ request: Request,
        context: SandboxRequestContext,
        next: (Request, SandboxRequestContext) async throws -> Response
    ) async throws -> Response {
        guard let key = configuration.httpSignatureResponseKey,
            !request.headers[values: HTTPMessageSignatures.acceptSignatureField].isEmpty
        else {
            return try await next(request, context)
        }
        let asked: (label: String, input: HTTPMessageSignatures.SignatureInput)
        do {
            guard let first = try HTTPMessageSignatures.AcceptSignature(request.headers).requests.first else {
                return try await next(request, context)
            }
            asked = first
        } catch let error as HTTPMessageSignatures.Error {
            throw JSONError(.badRequest, "Accept-Signature (RFC 9421 §5.1): \(error.reason)")
        }
        // Checked before the route runs: a refused request changes nothing.
        if let keyID = asked.input.keyID, keyID != key.keyID {
            throw JSONError(
                .badRequest,
                "Accept-Signature (RFC 9421 §5.1) asks for keyid \"\(keyID)\": the sandbox signs its responses with \"\(key.keyID)\" only"
            )
        }
        if let algorithm = asked.input.algorithm, algorithm != key.algorithm {
            throw JSONError(
                .badRequest,
                "Accept-Signature (RFC 9421 §5.1) asks for alg \"\(algorithm)\": the sandbox's response key is \(key.algorithm)"
            )
        }
        var response: Response
        do {
            response = try await next(request, context)
        } catch let error as any HTTPResponseError {
            response = try error.response(from: request, context: context)
        }
        // The body, read once to digest it and served again as it was.
        let collector = BodyCollector()
        try await response.body.write(collector)
        let body = collector.buffer
        response.body = ResponseBody(byteBuffer: body)
        var head = HTTPResponse(status: response.status, headerFields: response.headers)
        if asked.input.components.contains(.field(HTTPMessageSignatures.contentDigestField)) {
            HTTPMessageSignatures.ContentDigest.set(
                &head.headerFields,
                body: Array(body.readableBytesView),
                algorithms: [.sha256]
            )
        }
        var signer = HTTPMessageSignatures.Signer(
            key: key,
            label: asked.label,
            components: asked.input.components,
            now: configuration.now
        )
        signer.nonce = asked.input.nonce
        signer.tag = asked.input.tag
        do {
            try signer.sign(&head, for: authenticator.messageHead(request))
        } catch let error as HTTPMessageSignatures.Error {
            throw JSONError(
                .badRequest,
                "the response cannot be signed as Accept-Signature asks (RFC 9421 §5.1): \(error.reason)"
            )
        }
        response.headers = head.headerFields
        return response
    }

    /// Gathers a response body's buffers.
    final class BodyCollector: ResponseBodyWriter {
        var buffer = ByteBuffer()
        func write(_ buffer: ByteBuffer) async throws {
            var buffer = buffer
            self.buffer.writeBuffer(&buffer)
        }
        func finish(_ trailingHeaders: HTTPFields?) async throws {}
    }
}
