public import HTTPTypes

extension HTTPMessageSignatures {
    /// HTTP Message Signatures as a ``RequestAuthenticator``: every attempt gets, when asked,
    /// a `Content-Digest` of its body (RFC 9530), then a fresh signature (new `created`, new
    /// nonce) in `Signature-Input` and `Signature`; and, with a ``responseVerifier``, every
    /// response must carry a signature that verifies (its `req` components read from the signed
    /// request, [RFC 9421 §2.4](https://www.rfc-editor.org/rfc/rfc9421#section-2.4)), or the
    /// request fails with the verifier's ``Error``.
    ///
    /// When the signature covers `content-digest`, the response's `Content-Digest` is checked
    /// against the body that arrived (``AuthenticationAttempt/responseBody``); a client that
    /// does not hand the body to its authenticators (a streamed response) checks it with
    /// ``ContentDigest/verify(_:body:accepting:)``.
    public struct Authenticator: RequestAuthenticator, CustomStringConvertible {
        /// The signer that signs each attempt: the key, the covered components and the parameters.
        public let signer: Signer
        /// Digest algorithms for `Content-Digest`; empty sends none. With any, `content-digest`
        /// is added to the covered components when the signer does not already cover it.
        public var contentDigestAlgorithms: [ContentDigest.Algorithm] = []
        /// Verifies every response (with the request as sent for `req`); `nil` accepts responses unsigned.
        public var responseVerifier: Verifier?
        /// The label of the response's signature to verify; `nil` takes the first.
        public var responseLabel: String?

        /// An authenticator that signs each attempt with `signer`, adds a `Content-Digest` of the body with
        /// the `contentDigest` algorithms (none when empty), and verifies responses with `responseVerifier`.
        public init(signer: Signer, contentDigest: [ContentDigest.Algorithm] = [], responseVerifier: Verifier? = nil) {
            self.signer = signer
            self.contentDigestAlgorithms = contentDigest
            self.responseVerifier = responseVerifier
        }

        public var writtenFields: [HTTPField.Name] {
            [HTTPMessageSignatures.signatureInputField, HTTPMessageSignatures.signatureField]
        }

        public func authenticate(_ attempt: inout AuthenticationAttempt) async throws {
            var signer = self.signer
            if !contentDigestAlgorithms.isEmpty, attempt.streamedBody != nil {
                throw ClientError(.invalidBody, "Content-Digest covers the body: send it in memory, not streamed")
            }
            if !contentDigestAlgorithms.isEmpty {
                // RFC 9530 §2: the digest of the content as sent (empty when there is none).
                ContentDigest.set(
                    &attempt.request.headerFields,
                    body: attempt.body ?? [],
                    algorithms: contentDigestAlgorithms
                )
                let covered = ComponentIdentifier.field(HTTPMessageSignatures.contentDigestField)
                if !signer.components.contains(covered) { signer.components.append(covered) }
            }
            try signer.sign(&attempt.request)
        }

        public func judge(
            _ response: HTTPResponse,
            to attempt: inout AuthenticationAttempt
        ) async throws
            -> AuthenticationVerdict
        {
            guard let responseVerifier else { return .accept }
            _ = try responseVerifier.verify(
                response,
                for: attempt.request,
                body: attempt.responseBody,
                label: responseLabel,
                now: signer.now()
            )
            return .accept
        }

        public var description: String {
            "HTTPMessageSignatures.Authenticator(\(signer)\(responseVerifier == nil ? "" : ", verifies responses"))"
        }
    }
}
