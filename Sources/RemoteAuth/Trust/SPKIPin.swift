import Crypto
import SwiftASN1
public import X509

/// A public-key pin: the SHA-256 of a certificate's DER-encoded `SubjectPublicKeyInfo` (the
/// algorithm and the key), written `sha256//BASE64` as curl's `--pinnedpubkey` does, or as the
/// bare Base64 that HPKP's `pin-sha256` and TrustKit use.
/// [RFC 7469 §2.4](https://www.rfc-editor.org/rfc/rfc7469#section-2.4)
///
/// A pin names a key, not a certificate: it survives the certificate's renewal with the same
/// key, and a backup pin names the key that will replace it.
public struct SPKIPin: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The 32 bytes of the SHA-256 digest.
    public let sha256: [UInt8]

    /// - Parameter sha256: the 32-byte SHA-256 of a DER `SubjectPublicKeyInfo`.
    public init(sha256: [UInt8]) throws {
        guard sha256.count == SHA256.byteCount else {
            throw TrustError(
                .invalidPin,
                "a SHA-256 pin is \(SHA256.byteCount) bytes, not \(sha256.count)"
            )
        }
        self.sha256 = sha256
    }

    /// Reads `sha256//BASE64` (curl's form) or the bare Base64 of the 32-byte digest (HPKP's
    /// `pin-sha256`, RFC 7469 §2.1.1).
    public init(_ text: String) throws {
        // Base64 may itself hold "/" and "//": only a leading "sha256//" is a prefix.
        var base64 = Substring(text)
        if text.lowercased().hasPrefix("sha256//") {
            base64 = text.dropFirst(8)
        } else if text.utf8.count != 44, let slash = text.firstIndex(of: "/"), text[slash...].hasPrefix("//") {
            throw TrustError(.invalidPin, "unsupported pin hash '\(text[..<slash])': only sha256// pins exist")
        }
        guard let bytes = RemoteAuthBase64.decode(String(base64)) else {
            throw TrustError(.invalidPin, "the pin '\(text)' is not sha256// followed by Base64")
        }
        try self.init(sha256: bytes)
    }

    /// The pin of `certificate`'s public key.
    public init(certificate: Certificate) {
        self.init(publicKey: certificate.publicKey)
    }

    /// The pin of a DER-encoded `SubjectPublicKeyInfo`: the bytes of a PEM `PUBLIC KEY` block,
    /// or what `openssl pkey -pubin -outform der` writes.
    public init(subjectPublicKeyInfoDER: [UInt8]) {
        self.sha256 = Array(SHA256.hash(data: subjectPublicKeyInfoDER))
    }

    /// The pin of a public key (its whole `SubjectPublicKeyInfo`: algorithm and key).
    public init(publicKey: Certificate.PublicKey) {
        var serializer = DER.Serializer()
        // A parsed or generated public key always serializes.
        try! serializer.serialize(publicKey)
        self.sha256 = Array(SHA256.hash(data: serializer.serializedBytes))
    }

    /// The pin of the public key in a DER-encoded certificate.
    public init(certificateDER: [UInt8]) throws {
        do {
            self.init(certificate: try Certificate(derEncoded: certificateDER))
        } catch {
            throw TrustError(.invalidCertificate, "not a DER X.509 certificate: \(error)")
        }
    }

    /// The bare Base64 of the digest, as HPKP writes it.
    public var base64: String { RemoteAuthBase64.encode(sha256) }

    /// `sha256//BASE64`, as curl's `--pinnedpubkey` takes it.
    public var description: String { "sha256//" + base64 }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.sha256.lexicographicallyPrecedes(rhs.sha256) }
}
