import Crypto

extension OAuth2 {
    /// Proof Key for Code Exchange with the `S256` method, the only one this library builds
    /// ([RFC 7636](https://www.rfc-editor.org/rfc/rfc7636); `plain` is for clients that cannot
    /// hash, §4.2, and [RFC 9700 §2.1.1](https://www.rfc-editor.org/rfc/rfc9700#section-2.1.1)
    /// says not to use it).
    ///
    /// The verifier is a ``Secret``: `description` shows only the challenge.
    public struct PKCE: Sendable, Hashable, Codable, CustomStringConvertible {
        /// `code_verifier`: 43 to 128 unreserved characters
        /// ([RFC 7636 §4.1](https://www.rfc-editor.org/rfc/rfc7636#section-4.1)).
        public let verifier: Secret
        /// `code_challenge`: `BASE64URL-ENCODE(SHA256(ASCII(code_verifier)))`
        /// ([RFC 7636 §4.2](https://www.rfc-editor.org/rfc/rfc7636#section-4.2)).
        public let challenge: String
        /// `code_challenge_method`: always `S256`.
        public var challengeMethod: String { "S256" }

        /// A new verifier: 32 octets from `random`, base64url-encoded without padding (43
        /// characters, 256 bits), as [RFC 7636 §4.1](https://www.rfc-editor.org/rfc/rfc7636#section-4.1)
        /// recommends.
        public init(random: RandomSource) {
            self.init(checkedVerifier: OAuth2.base64URL(random.bytes(32)))
        }

        /// A verifier made elsewhere (restored, or a test vector).
        ///
        /// - Throws: ``OAuth2/Error/Code/invalidConfiguration`` when it is not 43 to 128
        ///   characters of `ALPHA / DIGIT / "-" / "." / "_" / "~"`.
        public init(verifier: Secret) throws {
            let valid = verifier.withRevealedUTF8 { bytes in
                (43...128).contains(bytes.count) && bytes.allSatisfy(FormURLEncoding.isUnreserved)
            }
            guard valid else {
                throw OAuth2.Error(
                    .invalidConfiguration,
                    "a code_verifier is 43 to 128 unreserved characters (RFC 7636 §4.1)"
                )
            }
            self.init(checkedVerifier: verifier.reveal())
        }

        private init(checkedVerifier: String) {
            verifier = Secret(checkedVerifier)
            challenge = Self.challenge(for: checkedVerifier)
        }

        /// The `S256` challenge of `verifier`
        /// ([RFC 7636 §4.2](https://www.rfc-editor.org/rfc/rfc7636#section-4.2)).
        public static func challenge(for verifier: String) -> String {
            OAuth2.base64URL(Array(SHA256.hash(data: Array(verifier.utf8))))
        }

        public var description: String { "OAuth2.PKCE(S256, challenge: \(challenge), verifier: <redacted>)" }
    }

    /// Base64url without padding ([RFC 7636 Appendix A](https://www.rfc-editor.org/rfc/rfc7636#appendix-A),
    /// [RFC 4648 §5](https://www.rfc-editor.org/rfc/rfc4648#section-5)).
    static func base64URL(_ bytes: [UInt8]) -> String {
        RemoteAuthBase64URL.encode(bytes)
    }
}
