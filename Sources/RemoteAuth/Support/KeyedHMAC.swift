package import Crypto

/// HMAC keyed once: [RFC 2104 §2](https://www.rfc-editor.org/rfc/rfc2104#section-2),
/// `H(K ⊕ opad, H(K ⊕ ipad, text))`, with the two hash states that follow the padded key kept,
/// and copied for each message.
///
/// swift-crypto's `HMAC` computes the same bytes (the RFC 5849 and RFC 4231 vectors check it),
/// but its `update(data:)` is generic over `DataProtocol` and not specialized across modules: on
/// the signer's path it cost about 3,000 instructions of metadata look-ups per signature, a
/// third of the HMAC itself. Here every call is concrete.
package struct KeyedHMAC<H: HMACHashFunction>: Sendable {
    private var inner: H
    private var outer: H

    package init(key: some Collection<UInt8>) {
        // 1. A key longer than the block is hashed first; 2. then padded with zeros to the block.
        var block = [UInt8](repeating: 0, count: H.blockByteCount)
        if key.count > H.blockByteCount {
            var hasher = H()
            Array(key).withUnsafeBytes { hasher.update(bufferPointer: $0) }
            H.withBytes(of: hasher.finalize()) { digest in
                for index in digest.indices { block[index] = digest[index] }
            }
        } else {
            for (index, octet) in key.enumerated() { block[index] = octet }
        }
        // 3. The inner state absorbs K ⊕ ipad (0x36…), the outer K ⊕ opad (0x5c…).
        var inner = H()
        block.map { $0 ^ 0x36 }.withUnsafeBytes { inner.update(bufferPointer: $0) }
        var outer = H()
        block.map { $0 ^ 0x5C }.withUnsafeBytes { outer.update(bufferPointer: $0) }
        self.inner = inner
        self.outer = outer
    }

    /// Calls `body` with the authentication code of `message`.
    package func withAuthenticationCode<Result>(
        for message: UnsafeRawBufferPointer,
        _ body: (UnsafeRawBufferPointer) throws -> Result
    ) rethrows -> Result {
        var inner = self.inner
        inner.update(bufferPointer: message)
        var outer = self.outer
        H.withBytes(of: inner.finalize()) { outer.update(bufferPointer: $0) }
        return try H.withBytes(of: outer.finalize(), body)
    }

    package func withAuthenticationCode<Result>(
        for message: [UInt8],
        _ body: (UnsafeRawBufferPointer) throws -> Result
    ) rethrows -> Result {
        try message.withUnsafeBytes { try withAuthenticationCode(for: $0, body) }
    }

    /// The authentication code of `message` under a key used once (a key derivation's step):
    /// the two states are finished in place, where ``withAuthenticationCode(for:_:)`` copies
    /// them for each message.
    package static func authenticationCode(key: some Collection<UInt8>, message: UnsafeRawBufferPointer) -> [UInt8] {
        var keyed = KeyedHMAC(key: key)
        keyed.inner.update(bufferPointer: message)
        let innerCode = keyed.inner.finalize()
        H.withBytes(of: innerCode) { keyed.outer.update(bufferPointer: $0) }
        return H.withBytes(of: keyed.outer.finalize()) { Array($0) }
    }

    /// Whether `code` is the authentication code of `message`, compared in constant time.
    package func isValidAuthenticationCode(_ code: [UInt8], for message: [UInt8]) -> Bool {
        withAuthenticationCode(for: message) { constantTimeEquals($0, code) }
    }
}

/// The hash functions ``KeyedHMAC`` runs on, with their digest's bytes read concretely.
package protocol HMACHashFunction: HashFunction, Sendable {
    static func withBytes<Result>(
        of digest: Digest,
        _ body: (UnsafeRawBufferPointer) throws -> Result
    ) rethrows -> Result
}

extension Insecure.SHA1: HMACHashFunction {
    package static func withBytes<Result>(
        of digest: Insecure.SHA1Digest,
        _ body: (UnsafeRawBufferPointer) throws -> Result
    ) rethrows -> Result {
        try digest.withUnsafeBytes(body)
    }
}

extension SHA256: HMACHashFunction {
    package static func withBytes<Result>(
        of digest: SHA256Digest,
        _ body: (UnsafeRawBufferPointer) throws -> Result
    ) rethrows -> Result {
        try digest.withUnsafeBytes(body)
    }
}
