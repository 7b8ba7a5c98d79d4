import Crypto
public import HTTPTypes
import RawStructuredFieldValues

extension HTTPMessageSignatures {
    /// `Content-Digest`: digests of the message content, a structured dictionary from
    /// algorithm keys to byte sequences.
    /// [RFC 9530 §2](https://www.rfc-editor.org/rfc/rfc9530#section-2)
    public struct ContentDigest: Sendable, Hashable, CustomStringConvertible {
        /// A hash algorithm key of the "Hash Algorithms for HTTP Digest Fields" registry
        /// ([RFC 9530 §5](https://www.rfc-editor.org/rfc/rfc9530#section-5)). Only the two
        /// active ones are computed here.
        public struct Algorithm: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
            public let rawValue: String
            public init(rawValue: String) { self.rawValue = rawValue }
            public var description: String { rawValue }
            /// SHA-256.
            public static let sha256 = Self(rawValue: "sha-256")
            /// SHA-512.
            public static let sha512 = Self(rawValue: "sha-512")

            func digest(_ body: [UInt8]) -> [UInt8]? {
                switch self {
                case .sha256: Array(SHA256.hash(data: body))
                case .sha512: Array(SHA512.hash(data: body))
                default: nil
                }
            }
        }

        /// One digest.
        public struct Entry: Sendable, Hashable {
            /// The digest algorithm (`sha-256`, `sha-512`, or another the sender named).
            public let algorithm: Algorithm
            /// The digest's octets, as decoded from the byte sequence.
            public let digest: [UInt8]
        }

        /// The digests, in field order; unknown algorithms are kept.
        public let entries: [Entry]

        /// The digests of `body` with `algorithms` (SHA-512 by default).
        public init(body: [UInt8], algorithms: [Algorithm] = [.sha512]) {
            entries = algorithms.compactMap { algorithm in
                algorithm.digest(body).map { Entry(algorithm: algorithm, digest: $0) }
            }
        }

        /// Parses a `Content-Digest` value (several field lines joined with `, `).
        /// - Throws: ``Error/Code/malformedContentDigest`` for anything but a dictionary of byte sequences.
        public init(fieldValue: String) throws {
            let dictionary: StructuredFields.Dictionary
            do { dictionary = try StructuredFields.parseDictionary(fieldValue) } catch {
                throw Error(.malformedContentDigest, "Content-Digest is not a structured dictionary (RFC 9530 §2)")
            }
            entries = try dictionary.map { key, member in
                guard case .item(let item) = member, case .undecodedByteSequence(let base64) = item.rfc9651BareItem,
                    let digest = RemoteAuthBase64.decode(base64)
                else {
                    throw Error(
                        .malformedContentDigest,
                        "the Content-Digest member '\(key)' is not a byte sequence (RFC 9530 §2)"
                    )
                }
                return Entry(algorithm: Algorithm(rawValue: key), digest: digest)
            }
        }

        /// The field value: `sha-512=:…:`.
        public var fieldValue: String {
            var dictionary = StructuredFields.Dictionary()
            for entry in entries {
                dictionary[entry.algorithm.rawValue] = .item(
                    Item(
                        bareItem: RFC9651BareItem.undecodedByteSequence(RemoteAuthBase64.encode(entry.digest)),
                        parameters: OrderedMap<String, RFC9651BareItem>()
                    )
                )
            }
            // Keys are registry tokens and values base64: serialization cannot fail for them.
            return (try? StructuredFields.serialize(dictionary)) ?? ""
        }

        public var description: String { fieldValue }

        /// Sets `Content-Digest` of `fields` to the digests of `body` (replacing any earlier one,
        /// which described other content).
        public static func set(_ fields: inout HTTPFields, body: [UInt8], algorithms: [Algorithm] = [.sha512]) {
            fields[HTTPMessageSignatures.contentDigestField] =
                ContentDigest(body: body, algorithms: algorithms).fieldValue
        }

        /// Checks `Content-Digest` of `fields` against `body`: every digest of an algorithm in
        /// `accepting` must match (in constant time), and there must be at least one; other
        /// algorithms are ignored ([RFC 9530 §2](https://www.rfc-editor.org/rfc/rfc9530#section-2):
        /// a recipient may ignore any digest).
        /// - Throws: ``Error/Code/missingContentDigest``, ``Error/Code/malformedContentDigest``,
        ///   ``Error/Code/digestMismatch``.
        public static func verify(
            _ fields: HTTPFields,
            body: [UInt8],
            accepting: Set<Algorithm> = [.sha256, .sha512]
        ) throws {
            let lines = fields[values: HTTPMessageSignatures.contentDigestField]
            guard !lines.isEmpty else {
                throw Error(.missingContentDigest, "the message has no Content-Digest")
            }
            let received = try ContentDigest(fieldValue: lines.joined(separator: ", "))
            var checked = 0
            for entry in received.entries where accepting.contains(entry.algorithm) {
                guard let expected = entry.algorithm.digest(body), constantTimeEquals(expected, entry.digest) else {
                    throw Error(.digestMismatch, "the \(entry.algorithm) digest of Content-Digest is not the body's")
                }
                checked += 1
            }
            guard checked > 0 else {
                throw Error(.missingContentDigest, "Content-Digest holds no sha-256 or sha-512 digest")
            }
        }
    }
}
