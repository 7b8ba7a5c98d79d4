public import HTTPTypes

extension AWS {
    /// The server side of Signature Version 4, header form: reads `Authorization`
    /// (`AWS4-HMAC-SHA256 Credential=KEY/DAY/REGION/SERVICE/aws4_request, SignedHeaders=…,
    /// Signature=…`), checks `X-Amz-Date` against the scope's day and the clock, rebuilds the
    /// canonical request from the signed fields (`host` must be one), the body's SHA-256 (or the
    /// `x-amz-content-sha256` the request declares, checked against the body unless it is
    /// `UNSIGNED-PAYLOAD`), and compares signatures in constant time. An `aws-chunked` upload
    /// (`STREAMING-AWS4-HMAC-SHA256-PAYLOAD`) has each chunk's signature checked and its payload
    /// returned in ``Verified/decodedBody``.
    public struct SigV4Verifier: Sendable {
        /// The secret of an access key id; `nil` for an unknown key.
        public let secret: @Sendable (_ accessKeyID: String) -> Secret?
        /// The largest distance between `X-Amz-Date` and the clock (AWS: 15 minutes).
        public var maximumSkew: Int64 = 900

        /// A verifier that finds each access key's secret with `secret`.
        public init(secret: @escaping @Sendable (_ accessKeyID: String) -> Secret?) {
            self.secret = secret
        }

        /// What a verified request was signed with.
        public struct Verified: Sendable, Hashable {
            /// The access key id the request was signed with.
            public let accessKeyID: String
            /// The region of its credential scope.
            public let region: String
            /// The service of its credential scope.
            public let service: String
            /// The signed header names, lowercased, as `SignedHeaders` listed them.
            public let signedHeaders: [String]
            /// For an `aws-chunked` upload (`STREAMING-AWS4-HMAC-SHA256-PAYLOAD`): the payload,
            /// every chunk's signature verified and the framing removed. `nil` otherwise.
            public let decodedBody: [UInt8]?

            /// What a verification found.
            public init(
                accessKeyID: String,
                region: String,
                service: String,
                signedHeaders: [String],
                decodedBody: [UInt8]? = nil
            ) {
                self.accessKeyID = accessKeyID
                self.region = region
                self.service = service
                self.signedHeaders = signedHeaders
                self.decodedBody = decodedBody
            }
        }

        /// - Parameters:
        ///   - request: the request as received, with its authority (`Host`) and path.
        ///   - now: the server's clock, seconds since 1970.
        ///   - body: the request's body as received.
        /// - Throws: ``SigV4Error`` (`.malformedAuthorization`, `.unknownKey`,
        ///   `.requestTimeTooSkewed`, `.signatureDoesNotMatch`).
        public func verify(_ request: HTTPRequest, body: [UInt8], now: Int64) throws -> Verified {
            let fields = try Self.parse(request.headerFields[.authorization] ?? "")
            let scope = fields.credential.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
            guard scope.count == 5, scope[4] == "aws4_request", !scope[0].isEmpty else {
                throw SigV4Error("Credential is not KEY/DAY/REGION/SERVICE/aws4_request", code: .malformedAuthorization)
            }
            guard let secret = secret(scope[0]) else {
                throw SigV4Error("the access key id \(scope[0]) is not known", code: .unknownKey)
            }
            guard let date = request.headerFields[SigV4Signer.amzDate], date.hasPrefix(scope[1]),
                let seconds = Self.seconds(date)
            else {
                throw SigV4Error("X-Amz-Date is missing, malformed, or not the Credential's day", code: .requestTimeTooSkewed)
            }
            guard abs(seconds - now) <= maximumSkew else {
                throw SigV4Error("X-Amz-Date is \(seconds - now) s from the server's clock", code: .requestTimeTooSkewed)
            }
            let signed = fields.signedHeaders.split(separator: ";").map(String.init)
            guard signed.contains("host"), signed == signed.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) })
            else {
                throw SigV4Error("SignedHeaders must hold host and be sorted", code: .malformedAuthorization)
            }
            var covered = request
            covered.headerFields = HTTPFields(request.headerFields.filter { signed.contains($0.name.canonicalName) })
            let declared = request.headerFields[SigV4Signer.contentSHA256]
            let hash = SigV4Signer.hexSHA256(body)
            let streaming = declared == SigV4Signer.streamingPayload
            if let declared, declared != "UNSIGNED-PAYLOAD", !streaming, declared != hash {
                throw SigV4Error("x-amz-content-sha256 is not the body's SHA-256", code: .signatureDoesNotMatch)
            }
            let signer = SigV4Signer(
                credentials: Credentials(accessKeyID: scope[0], secretAccessKey: secret),
                region: scope[2],
                service: scope[3]
            )
            let canonical = try signer.canonicalRequest(covered, extraQuery: [], payloadHash: declared ?? hash)
            let (_, expected) = signer.sign(canonical: canonical.bytes, date: date, dayKey: signer.dayKey(date: date))
            guard canonical.signedHeaders == fields.signedHeaders, constantTimeEquals(expected, fields.signature) else {
                throw SigV4Error("the signature does not match the request", code: .signatureDoesNotMatch)
            }
            var decoded: [UInt8]?
            if streaming {
                var chunks = SigV4ChunkSigner(
                    seedSignature: expected,
                    date: date,
                    scope: signer.scope(date),
                    key: signer.signingKey(date: date)
                )
                decoded = try Self.decodeChunked(body, with: &chunks)
                let declaredLength = request.headerFields[HTTPField.Name("x-amz-decoded-content-length")!]
                guard declaredLength == String(decoded?.count ?? -1) else {
                    throw SigV4Error(
                        "x-amz-decoded-content-length is not the length of the decoded body",
                        code: .invalidRequest
                    )
                }
            }
            return Verified(
                accessKeyID: scope[0],
                region: scope[2],
                service: scope[3],
                signedHeaders: signed,
                decodedBody: decoded
            )
        }

        /// The payload of an `aws-chunked` body, each chunk's signature checked in order
        /// against `chunks` (constant time), up to the final empty chunk, which must end the body.
        ///
        /// - Throws: ``SigV4Error`` `.invalidRequest` for broken framing, `.signatureDoesNotMatch`
        ///   for a chunk whose signature is not the expected one.
        static func decodeChunked(_ body: [UInt8], with chunks: inout SigV4ChunkSigner) throws -> [UInt8] {
            var decoded: [UInt8] = []
            var index = 0
            func malformed(_ what: String) -> SigV4Error {
                SigV4Error("the aws-chunked body is malformed: \(what)", code: .invalidRequest)
            }
            let marker = Array(";chunk-signature=".utf8)
            while true {
                // hex size (at most 8 digits), ";chunk-signature=", 64 hex digits, CRLF.
                var size = 0
                var digits = 0
                while index < body.count, let digit = Self.hexValue(body[index]) {
                    guard digits < 8 else { throw malformed("a chunk size of more than 8 hex digits") }
                    size = size * 16 + digit
                    digits += 1
                    index += 1
                }
                guard digits > 0, body.count - index >= marker.count + 64 + 2,
                    Array(body[index..<index + marker.count]) == marker
                else { throw malformed("a chunk header is not SIZE;chunk-signature=SIGNATURE") }
                index += marker.count
                let signature = String(decoding: body[index..<index + 64], as: UTF8.self)
                index += 64
                guard body[index] == 0x0D, body[index + 1] == 0x0A else {
                    throw malformed("a chunk header does not end with CRLF")
                }
                index += 2
                guard body.count - index >= size + 2 else { throw malformed("a chunk is shorter than its size") }
                let data = body[index..<index + size]
                index += size
                guard body[index] == 0x0D, body[index + 1] == 0x0A else {
                    throw malformed("a chunk's data does not end with CRLF")
                }
                index += 2
                let expected = try chunks.signature(of: data)
                guard constantTimeEquals(expected, signature) else {
                    throw SigV4Error("a chunk's signature does not match", code: .signatureDoesNotMatch)
                }
                decoded.append(contentsOf: data)
                if size == 0 {
                    guard index == body.count else { throw malformed("octets after the final chunk") }
                    return decoded
                }
            }
        }

        static func hexValue(_ octet: UInt8) -> Int? {
            switch octet {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): Int(octet - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): Int(octet - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): Int(octet - UInt8(ascii: "A") + 10)
            default: nil
            }
        }

        /// `Credential`, `SignedHeaders` and `Signature` of an `AWS4-HMAC-SHA256` value, each once.
        static func parse(_ value: String) throws -> (credential: String, signedHeaders: String, signature: String) {
            let prefix = SigV4Signer.algorithm + " "
            guard value.hasPrefix(prefix) else {
                throw SigV4Error("Authorization is not AWS4-HMAC-SHA256", code: .malformedAuthorization)
            }
            var found: [String: String] = [:]
            for part in value.dropFirst(prefix.count).split(separator: ",") {
                let item = part.drop { $0 == " " }
                guard let equals = item.firstIndex(of: "="), found[String(item[..<equals])] == nil else {
                    throw SigV4Error("Authorization has a malformed or repeated component", code: .malformedAuthorization)
                }
                found[String(item[..<equals])] = String(item[item.index(after: equals)...])
            }
            guard found.count == 3, let credential = found["Credential"], let signedHeaders = found["SignedHeaders"],
                let signature = found["Signature"]
            else {
                throw SigV4Error("Authorization needs Credential, SignedHeaders and Signature", code: .malformedAuthorization)
            }
            return (credential, signedHeaders, signature)
        }

        /// `yyyyMMddTHHmmssZ` as seconds since 1970, or `nil`.
        package static func seconds(_ date: String) -> Int64? {
            let octets = Array(date.utf8)
            guard octets.count == 16, octets[8] == UInt8(ascii: "T"), octets[15] == UInt8(ascii: "Z") else { return nil }
            func number(_ range: Range<Int>) -> Int64? {
                var value: Int64 = 0
                for octet in octets[range] {
                    guard (0x30...0x39).contains(octet) else { return nil }
                    value = value * 10 + Int64(octet - 0x30)
                }
                return value
            }
            guard let year = number(0..<4), let month = number(4..<6), let day = number(6..<8),
                let hour = number(9..<11), let minute = number(11..<13), let second = number(13..<15),
                (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61
            else { return nil }
            // Days from civil (Howard Hinnant's algorithm), the inverse of SigV4Signer.amzDate.
            let y = month <= 2 ? year - 1 : year
            let era = (y >= 0 ? y : y - 399) / 400
            let yearOfEra = y - era * 400
            let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
            let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
            let days = era * 146_097 + dayOfEra - 719_468
            return days * 86_400 + hour * 3600 + minute * 60 + second
        }
    }
}
