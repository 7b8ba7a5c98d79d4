public import HTTPTypes

extension HTTPMessageSignatures {
    /// Verifies a signature of a request or response against a policy.
    /// [RFC 9421 §3.2](https://www.rfc-editor.org/rfc/rfc9421#section-3.2)
    ///
    /// In the order of §3.2: the fields are parsed (§4); the signature is chosen by label (or the
    /// first one, with ``requiredTag`` when set); the required components must be covered
    /// (§7.2.1); `created` and `expires` are checked against `now` (§7.2.2); the key is found by
    /// `keyid`, and `alg` (or the key's only algorithm) must be on its allow-list (§7.3.6); the
    /// signature base is rebuilt (§2.5) and the signature checked (§3.3); when a body is given and
    /// `content-digest` is covered, the digest is checked against it (RFC 9530); last, the nonce
    /// is recorded, so a forged signature cannot use up a nonce.
    public struct Verifier: Sendable {
        /// The key of a `keyid`; `nil` for an unknown key.
        public let key: @Sendable (_ keyID: String) -> VerificationKey?
        /// Components every accepted signature must cover (§7.2.1).
        public var requiredComponents: [ComponentIdentifier] = []
        /// The greatest age of `created`, in seconds; `nil` accepts any age. With a maximum age,
        /// `created` is required.
        public var maximumAge: Int64? = 300
        /// How far in the future `created` may be (clock skew), in seconds.
        public var allowedClockSkew: Int64 = 30
        /// Require `expires`.
        public var requiresExpires = false
        /// Accept only signatures with this `tag` (§2.3).
        public var requiredTag: String?
        /// Refuse `nonce`s already seen (§7.2.2): with a store, `nonce` is required.
        public var nonceStore: (any NonceStore)?

        /// - Parameter key: finds the key of a `keyid`.
        public init(key: @escaping @Sendable (_ keyID: String) -> VerificationKey?) {
            self.key = key
        }

        /// A verifier knowing `keys`, by their key ids.
        public init(keys: [VerificationKey]) {
            let table = Dictionary(keys.map { ($0.keyID, $0) }, uniquingKeysWith: { first, _ in first })
            self.init(key: { table[$0] })
        }

        /// What a verified signature said.
        public struct Verified: Sendable, Hashable {
            /// The label of the signature that verified.
            public let label: String
            /// The `keyid` of the key that verified it.
            public let keyID: String
            /// The algorithm it was made with.
            public let algorithm: Algorithm
            /// Its covered components and parameters.
            public let input: SignatureInput
            /// The signature base that was verified (§2.5).
            public let signatureBase: String
        }

        /// Verifies the signature labelled `label` of `request` (the first signature when `nil`).
        /// - Parameters:
        ///   - body: the request's content; when given and `content-digest` is covered, checked
        ///     against `Content-Digest` (RFC 9530).
        ///   - now: the verifier's clock, seconds since 1970.
        ///   - request: the received request.
        ///   - label: the label of the signature to verify; `nil` takes the first.
        public func verify(
            _ request: HTTPRequest,
            body: [UInt8]? = nil,
            label: String? = nil,
            now: Int64
        ) throws -> Verified {
            try verify(.request(request), body: body, label: label, now: now)
        }

        /// Verifies the signature labelled `label` of `response`, with the `request` it answers
        /// for `req` components (§2.4).
        public func verify(
            _ response: HTTPResponse,
            for request: HTTPRequest? = nil,
            body: [UInt8]? = nil,
            label: String? = nil,
            now: Int64
        ) throws -> Verified {
            try verify(.response(response, for: request), body: body, label: label, now: now)
        }

        /// Verifies the signature labelled `label` of `message`.
        /// - Throws: ``Error``: ``Error/Code/malformedSignatureInput``,
        ///   ``Error/Code/malformedSignature``, ``Error/Code/duplicateLabel``,
        ///   ``Error/Code/signatureNotFound``, ``Error/Code/tagMismatch``,
        ///   ``Error/Code/missingRequiredComponent``, ``Error/Code/missingParameter``,
        ///   ``Error/Code/tooOld``, ``Error/Code/createdInFuture``, ``Error/Code/expired``,
        ///   ``Error/Code/unknownKey``, ``Error/Code/algorithmNotAllowed``, a §2.5 rule,
        ///   ``Error/Code/invalidSignature``, ``Error/Code/digestMismatch``,
        ///   ``Error/Code/replayedNonce``.
        public func verify(
            _ message: Message,
            body: [UInt8]? = nil,
            label: String? = nil,
            now: Int64
        ) throws -> Verified {
            // 1–2. Parse Signature-Input and Signature; choose the signature.
            let signatures = try MessageSignatures(message.headerFields)
            let entry: MessageSignatures.Entry
            if let label {
                guard let found = signatures[label] else {
                    throw Error(.signatureNotFound, "the message has no signature labelled '\(label)'")
                }
                entry = found
            } else {
                guard let found = signatures.entries.first(where: { requiredTag == nil || $0.input.tag == requiredTag })
                else {
                    throw Error(
                        .signatureNotFound,
                        signatures.entries.isEmpty ? "the message is not signed" : "no signature has the tag required"
                    )
                }
                entry = found
            }
            let input = entry.input
            if let requiredTag, input.tag != requiredTag {
                throw Error(
                    .tagMismatch,
                    "the signature '\(entry.label)' does not have the tag required (RFC 9421 §2.3)"
                )
            }
            // 3. The components the application requires (§3.2 step 6, §7.2.1).
            for required in requiredComponents where !input.components.contains(required) {
                throw Error(.missingRequiredComponent, "the signature '\(entry.label)' does not cover \(required)")
            }
            // 4. Times (§3.2 step 7, §7.2.2).
            if let maximumAge {
                guard let created = input.created else {
                    throw Error(.missingParameter, "the signature '\(entry.label)' has no 'created'")
                }
                guard now - created <= maximumAge else {
                    throw Error(
                        .tooOld,
                        "the signature '\(entry.label)' was created \(now - created) s ago; at most \(maximumAge) s"
                    )
                }
            }
            if let created = input.created, created > now + allowedClockSkew {
                throw Error(
                    .createdInFuture,
                    "the signature '\(entry.label)' is created \(created - now) s in the future"
                )
            }
            if let expires = input.expires {
                guard now <= expires else {
                    throw Error(
                        .expired,
                        "the signature '\(entry.label)' expired \(now - expires) s ago (RFC 9421 §2.3)"
                    )
                }
            } else if requiresExpires {
                throw Error(.missingParameter, "the signature '\(entry.label)' has no 'expires'")
            }
            if nonceStore != nil, input.nonce == nil {
                throw Error(.missingParameter, "the signature '\(entry.label)' has no 'nonce'")
            }
            // 5. The key, by keyid, and the algorithm on its allow-list (§3.2 steps 4–5).
            guard let keyID = input.keyID else {
                throw Error(.missingParameter, "the signature '\(entry.label)' has no 'keyid'")
            }
            guard let key = key(keyID) else {
                throw Error(.unknownKey, "the key id '\(keyID)' is not known")
            }
            let algorithm: Algorithm
            if let declared = input.algorithm {
                guard key.algorithms.contains(declared) else {
                    throw Error(.algorithmNotAllowed, "the key '\(keyID)' may not verify \(declared)")
                }
                algorithm = declared
            } else {
                guard key.algorithms.count == 1, let only = key.algorithms.first else {
                    throw Error(
                        .algorithmNotAllowed,
                        "the signature names no 'alg' and the key '\(keyID)' allows several"
                    )
                }
                algorithm = only
            }
            // 6. The signature base and the signature (§3.2 steps 8–9).
            let base = try HTTPMessageSignatures.signatureBase(for: message, input: input)
            guard key.isValidSignature(entry.signature, for: Array(base.utf8), algorithm: algorithm) else {
                throw Error(.invalidSignature, "the signature '\(entry.label)' does not verify with the key '\(keyID)'")
            }
            // 7. The body, when covered through Content-Digest (RFC 9530 §2).
            if let body, input.components.contains(.field(HTTPMessageSignatures.contentDigestField)) {
                try ContentDigest.verify(message.headerFields, body: body)
            }
            // 8. The nonce, recorded only once the signature holds (§7.2.2).
            if let nonceStore, let nonce = input.nonce {
                let until = input.expires ?? (input.created ?? now) + (maximumAge ?? 300)
                guard nonceStore.record(nonce: nonce, keyID: keyID, until: until, now: now) else {
                    throw Error(
                        .replayedNonce,
                        "the nonce of '\(entry.label)' was already used with the key '\(keyID)'"
                    )
                }
            }
            return Verified(label: entry.label, keyID: keyID, algorithm: algorithm, input: input, signatureBase: base)
        }
    }

    /// Remembers the nonces of accepted signatures, to refuse a replay
    /// ([RFC 9421 §7.2.2](https://www.rfc-editor.org/rfc/rfc9421#section-7.2.2)). A store shared
    /// by a server's instances (a database) conforms as well as ``BoundedNonceStore``.
    public protocol NonceStore: Sendable {
        /// Records `nonce` of `keyID` until `until` (seconds since 1970); returns `false` when it
        /// is already recorded and not yet past, or when the store cannot take it (fail closed).
        func record(nonce: String, keyID: String, until: Int64, now: Int64) -> Bool
    }

    /// A ``NonceStore`` in memory, bounded: past nonces are dropped first; when every entry is
    /// still current and the store is full, new nonces are refused rather than old ones
    /// forgotten (forgetting would reopen a replay).
    public final class BoundedNonceStore: NonceStore {
        /// Each remembered nonce (prefixed by its key id) and the time it may be forgotten.
        private let entries: Locked<[String: Int64]>
        /// The most nonces remembered at once (at least 1).
        public let capacity: Int

        /// A store remembering at most `capacity` nonces (default 10,000; at least 1).
        public init(capacity: Int = 10_000) {
            self.capacity = max(1, capacity)
            self.entries = Locked([:])
        }

        public func record(nonce: String, keyID: String, until: Int64, now: Int64) -> Bool {
            let key = "\(keyID.utf8.count):\(keyID)\(nonce)"
            return entries.withLock { entries in
                if let current = entries[key], current >= now { return false }
                if entries.count >= capacity {
                    entries = entries.filter { $0.value >= now }
                }
                guard entries.count < capacity else { return false }
                entries[key] = until
                return true
            }
        }

        /// How many nonces are remembered.
        public var count: Int { entries.withLock { $0.count } }
    }
}
