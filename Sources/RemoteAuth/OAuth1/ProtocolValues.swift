extension OAuth1.Signer {
        /// The protocol parameters of one request (§3.1), held as they are rather than as an
        /// array, and walked in name order when the base string and the header are written.
        struct ProtocolValues {
            var callback: String?
            var consumerKey: String
            var nonce: String?
            /// `oauth_signature`, empty until the base string is signed.
            var signature: String
            var signatureMethod: String
            var timestamp: String?
            var token: String?
            var verifier: String?
            var includeVersion: Bool
            /// From ``Signer/verbatim``.
            var verbatim: (consumerKey: Bool, token: Bool, signatureMethod: Bool)

            /// Calls `body` with each parameter sent, in name order (§3.4.1.3.2 sorts names in
            /// byte order, and these names sort as listed), and whether the value is known to be
            /// unreserved (written as it is); `oauth_signature` only when `withSignature` is set.
            /// Every name is unreserved.
            @inline(__always)
            func forEach(withSignature: Bool, _ body: (StaticString, String, Bool) throws -> Void) rethrows {
                if let callback { try body("oauth_callback", callback, false) }
                try body("oauth_consumer_key", consumerKey, verbatim.consumerKey)
                if let nonce { try body("oauth_nonce", nonce, false) }
                if withSignature { try body("oauth_signature", signature, false) }
                try body("oauth_signature_method", signatureMethod, verbatim.signatureMethod)
                if let timestamp { try body("oauth_timestamp", timestamp, false) }
                if let token { try body("oauth_token", token, verbatim.token) }
                if let verifier { try body("oauth_verifier", verifier, false) }
                if includeVersion { try body("oauth_version", "1.0", true) }
            }

            /// Every parameter sent, `oauth_signature` included, in name order.
            var parameters: [OAuth1.Parameter] {
                var parameters: [OAuth1.Parameter] = []
                parameters.reserveCapacity(9)
                forEach(withSignature: true) { name, value, _ in parameters.append(OAuth1.Parameter("\(name)", value)) }
                return parameters
            }

            /// Whether a request parameter named `encodedName` (encoded once or twice: the
            /// protocol parameter names are unreserved, so both read the same) collides with a
            /// protocol parameter sent, `oauth_signature` included.
            func isSent(encodedName: ArraySlice<UInt8>) -> Bool {
                encodedName.withUnsafeBufferPointer { encodedName in
                    let prefix: StaticString = "oauth_"
                    guard encodedName.count > prefix.utf8CodeUnitCount,
                        encodedName.prefix(prefix.utf8CodeUnitCount).elementsEqual(
                            UnsafeBufferPointer(start: prefix.utf8Start, count: prefix.utf8CodeUnitCount)
                        )
                    else { return false }
                    var found = false
                    forEach(withSignature: true) { name, _, _ in
                        if !found {
                            found = encodedName.elementsEqual(
                                UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount)
                            )
                        }
                    }
                    return found
                }
            }

            /// The UTF-8 bytes of every name and value, at most.
            var byteCount: Int {
                // The nine names take 140 bytes at most.
                140 + (callback?.utf8.count ?? 0) + consumerKey.utf8.count + (nonce?.utf8.count ?? 0)
                    + signature.utf8.count + signatureMethod.utf8.count + (timestamp?.utf8.count ?? 0)
                    + (token?.utf8.count ?? 0) + (verifier?.utf8.count ?? 0) + 3
            }
        }
}
