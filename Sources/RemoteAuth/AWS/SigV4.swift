import Crypto
public import HTTPTypes

/// Amazon Web Services' request signing.
public enum AWS {}

extension AWS {
    /// An access key: its id, its secret and, for temporary credentials, the session token.
    /// `description` shows the key id only.
    public struct Credentials: Sendable, Hashable, CustomStringConvertible {
        /// The access key id (`AKIA…`, `ASIA…` for temporary credentials).
        public var accessKeyID: String
        /// The secret access key.
        public var secretAccessKey: Secret
        /// `X-Amz-Security-Token`, for temporary credentials (AWS STS).
        public var sessionToken: Secret?

        /// An access key, with the session token of temporary credentials.
        public init(accessKeyID: String, secretAccessKey: Secret, sessionToken: Secret? = nil) {
            self.accessKeyID = accessKeyID
            self.secretAccessKey = secretAccessKey
            self.sessionToken = sessionToken
        }

        /// `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY` and `AWS_SESSION_TOKEN` of `environment`;
        /// `nil` when the first two are not both set.
        public static func fromEnvironment(_ environment: [String: String]) -> Credentials? {
            guard let id = environment["AWS_ACCESS_KEY_ID"], !id.isEmpty,
                let secret = environment["AWS_SECRET_ACCESS_KEY"], !secret.isEmpty
            else { return nil }
            let token = environment["AWS_SESSION_TOKEN"].flatMap { $0.isEmpty ? nil : Secret($0) }
            return Credentials(accessKeyID: id, secretAccessKey: Secret(secret), sessionToken: token)
        }

        public var description: String {
            "AWS.Credentials(\(accessKeyID), <redacted>\(sessionToken == nil ? "" : ", session token <redacted>"))"
        }
    }

    /// Signature Version 4 ([AWS SigV4](https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_sigv-create-signed-request.html)):
    /// a canonical request, a string to sign, a signing key derived from the secret for the
    /// day, region and service (HMAC-SHA256 four times, cached for the day), and the signature,
    /// sent in `Authorization` (the header form) or in the query (a presigned URL).
    ///
    /// The canonical request's rules, checked against the AWS test suite:
    /// - the path with its empty and dot segments removed as the AWS SDKs do
    ///   (`canonicalPath(_:)`), then each segment URI-encoded again (already percent-encoded
    ///   octets are encoded a second time); S3 (`service` `s3`) signs the path as sent;
    /// - the query's parameters decoded and encoded again (unreserved characters only, `%XX`
    ///   uppercase), sorted by name then value, `name=` for a parameter without a value;
    /// - header names lowercased and sorted, values trimmed with inner runs of spaces folded to
    ///   one, repeated fields joined with `,`; `host` always, and every field of the request
    ///   except `authorization`, `user-agent`, `expect` and `x-amzn-trace-id`;
    /// - the payload's hex SHA-256 (`UNSIGNED-PAYLOAD` where asked; S3 also sends it in
    ///   `x-amz-content-sha256`).
    public struct SigV4Signer: Sendable, CustomStringConvertible, CustomReflectable {
        /// The access key that signs.
        public let credentials: Credentials
        /// The region of the credential scope (`us-east-1`).
        public let region: String
        /// The service of the credential scope (`s3`, `execute-api`).
        public let service: String
        let now: @Sendable () -> Int64
        private let keys: Locked<DayKey?>
        /// Whether the key id, region and service are free of control characters, so that
        /// `Authorization` is a legal field value as written (see ``authorization(canonical:dayKey:signature:)``).
        private let plainText: Bool

        /// - Parameter now: the clock, seconds since 1970 (`X-Amz-Date`).
        /// - Parameter credentials: the access key that signs.
        /// - Parameter region: the region of the credential scope (`us-east-1`).
        /// - Parameter service: the service of the credential scope (`s3`, `execute-api`).
        public init(
            credentials: Credentials,
            region: String,
            service: String,
            now: @escaping @Sendable () -> Int64 = UnixTime.now
        ) {
            self.credentials = credentials
            self.region = region
            self.service = service
            self.now = now
            self.keys = Locked(nil)
            self.plainText =
                !Self.hasControl(credentials.accessKeyID) && !Self.hasControl(region) && !Self.hasControl(service)
        }

        /// What a signature was made of: the canonical request and the string to sign, for
        /// comparing with what the server says it expected.
        public struct Signed: Sendable, CustomStringConvertible, CustomReflectable {
            /// The request with `Authorization`, `X-Amz-Date` (and `X-Amz-Security-Token`,
            /// `x-amz-content-sha256`), or, presigned, with the signature in its query.
            public let request: HTTPRequest
            /// The canonical request's bytes, as hashed.
            let canonicalBytes: [UInt8]
            /// The string to sign's bytes, as signed.
            let stringToSignBytes: [UInt8]
            /// The signature, lowercase hex.
            public let signature: String
            /// The canonical request (method, path, query, signed headers, payload hash).
            public var canonicalRequest: String { String(decoding: canonicalBytes, as: UTF8.self) }
            /// The string to sign: the algorithm, the date, the scope and the canonical request's hash.
            public var stringToSign: String { String(decoding: stringToSignBytes, as: UTF8.self) }

            /// The method and redacted URL: the canonical request holds a session token.
            public var description: String {
                "AWS.SigV4Signer.Signed(\(request.method) \(Redaction.redactedURL(request.absoluteURL)))"
            }

            public var customMirror: Mirror { Mirror(self, children: ["description": description], displayStyle: .struct) }
        }

        /// `request` signed in the header form.
        ///
        /// - Parameters:
        ///   - payloadHash: the payload's hex SHA-256 when already known, or `UNSIGNED-PAYLOAD`;
        ///     `nil` hashes `body`.
        ///   - date: `X-Amz-Date` (`yyyyMMddTHHmmssZ`), else from the clock.
        ///   - request: the request to sign.
        ///   - body: the body it will be sent with, hashed into the signature unless `payloadHash` is given.
        /// - Throws: ``SigV4Error`` for a request without an authority or path.
        public func sign(
            _ request: HTTPRequest,
            body: [UInt8]?,
            payloadHash: String? = nil,
            date: String? = nil
        ) throws -> Signed {
            let date = date ?? Self.amzDate(now())
            let hash = payloadHash ?? Self.hexSHA256(body ?? [])
            var signed = request
            // The fields this sets, removed first (one pass to find whether there are any).
            if signed.headerFields.contains(where: { Self.isSet($0.name.canonicalName) }) {
                for name in [Self.amzDate, Self.securityToken, Self.contentSHA256, HTTPField.Name.authorization] {
                    signed.headerFields[name] = nil
                }
            }
            // Room for the fields added below, so that the request's fields are copied once
            // (copy on write) rather than again when an append outgrows an exact capacity.
            signed.headerFields.reserveCapacity(signed.headerFields.count + 4)
            signed.headerFields.append(HTTPField(name: Self.amzDate, value: date))
            if let token = credentials.sessionToken {
                signed.headerFields.append(HTTPField(name: Self.securityToken, value: token.reveal()))
            }
            if service == "s3" { signed.headerFields.append(HTTPField(name: Self.contentSHA256, value: hash)) }
            let canonical = try canonicalRequest(signed, extraQuery: [], payloadHash: hash)
            let dayKey = self.dayKey(date: date)
            let (stringToSign, signature) = sign(canonical: canonical.bytes, date: date, dayKey: dayKey)
            signed.headerFields.append(authorization(canonical: canonical, dayKey: dayKey, signature: signature))
            return Signed(
                request: signed,
                canonicalBytes: canonical.bytes,
                stringToSignBytes: stringToSign,
                signature: signature
            )
        }

        /// `Authorization: AWS4-HMAC-SHA256 Credential=ID/SCOPE, SignedHeaders=NAMES, Signature=HEX`,
        /// written straight into the value's string.
        func authorization(canonical: Canonical, dayKey: DayKey, signature: String) -> HTTPField {
            let scope = dayKey.scope
            let capacity = 64 + credentials.accessKeyID.utf8.count + scope.utf8.count + canonical.signedRange.count
                + signature.utf8.count
            let value = String(writingAtMost: capacity) { writer in
                writer.write(contentsOf: Self.algorithm)
                writer.write(" Credential=")
                writer.write(contentsOf: credentials.accessKeyID)
                writer.write(UInt8(ascii: "/"))
                writer.write(contentsOf: scope)
                writer.write(", SignedHeaders=")
                canonical.bytes.withUnsafeBufferPointer {
                    writer.write(UnsafeBufferPointer(rebasing: $0[canonical.signedRange]))
                }
                writer.write(", Signature=")
                writer.write(contentsOf: signature)
            }
            // Only the key id and the scope (day, region, service) can hold control characters
            // (the names are tokens, the rest is fixed text and hex). Without any, the value is
            // a legal field value, which `HTTPField(name:value:)` keeps as it is; with some, the
            // lenient rule replaces only NUL, CR and LF, as it always has.
            guard plainText, dayKey.plainDay else {
                return HTTPField(name: .authorization, lenientValue: Array(value.utf8))
            }
            return HTTPField(name: .authorization, value: value)
        }

        /// `request` as a presigned URL valid for `expires` seconds (at most 7 days): the
        /// `X-Amz-*` parameters and the signature in the query, only `host` (and the request's
        /// other fields) signed, the payload `UNSIGNED-PAYLOAD` for S3 and the body's hash
        /// otherwise.
        ///
        /// - Throws: ``SigV4Error`` for an expiry outside 1…604800 seconds or a request without
        ///   an authority or path.
        public func presign(_ request: HTTPRequest, body: [UInt8]? = nil, expires: Int, date: String? = nil) throws -> Signed {
            guard (1...604_800).contains(expires) else {
                throw SigV4Error("a presigned URL expires after 1 to 604800 seconds (7 days), not \(expires)")
            }
            let date = date ?? Self.amzDate(now())
            let hash = service == "s3" ? "UNSIGNED-PAYLOAD" : Self.hexSHA256(body ?? [])
            var signed = request
            signed.headerFields[.authorization] = nil
            var scratch: [UInt8] = []
            let signedRange = try Self.appendCanonicalHeaders(signed, to: &scratch)
            let signedHeaders = String(decoding: scratch[signedRange], as: UTF8.self)
            var parameters: [(String, String)] = [
                ("X-Amz-Algorithm", Self.algorithm),
                ("X-Amz-Credential", "\(credentials.accessKeyID)/\(scope(date))"),
                ("X-Amz-Date", date),
                ("X-Amz-Expires", String(expires)),
                ("X-Amz-SignedHeaders", signedHeaders),
            ]
            if let token = credentials.sessionToken { parameters.append(("X-Amz-Security-Token", token.reveal())) }
            let canonical = try canonicalRequest(signed, extraQuery: parameters, payloadHash: hash)
            let (stringToSign, signature) = sign(canonical: canonical.bytes, date: date, dayKey: dayKey(date: date))
            parameters.append(("X-Amz-Signature", signature))
            let path = signed.path ?? "/"
            let added = parameters.map { Self.uriEncode($0.0) + "=" + Self.uriEncode($0.1) }.joined(separator: "&")
            signed.path = path + (path.contains("?") ? (path.hasSuffix("?") || path.hasSuffix("&") ? "" : "&") : "?") + added
            return Signed(
                request: signed,
                canonicalBytes: canonical.bytes,
                stringToSignBytes: stringToSign,
                signature: signature
            )
        }

        public var description: String { "AWS.SigV4Signer(\(credentials), \(region), \(service))" }

        /// `dump` shows the key id, region and service: never the secret or the day's key.
        public var customMirror: Mirror {
            Mirror(
                self,
                children: ["accessKeyID": credentials.accessKeyID, "region": region, "service": service],
                displayStyle: .struct
            )
        }

        // MARK: - The parts

        static let algorithm = "AWS4-HMAC-SHA256"
        static let amzDate = HTTPField.Name("X-Amz-Date")!
        static let securityToken = HTTPField.Name("X-Amz-Security-Token")!
        static let contentSHA256 = HTTPField.Name("x-amz-content-sha256")!

        /// `yyyyMMdd/region/service/aws4_request`.
        func scope(_ date: String) -> String {
            var scope = String(decoding: date.utf8.prefix(8), as: UTF8.self)
            scope.reserveCapacity(22 + region.utf8.count + service.utf8.count)
            scope += "/"
            scope += region
            scope += "/"
            scope += service
            scope += "/aws4_request"
            return scope
        }

        /// Whether `text` holds a control character (below 0x20, or 0x7F).
        static func hasControl(_ text: String) -> Bool {
            func isControl(_ octet: UInt8) -> Bool { octet < 0x20 || octet == 0x7F }
            return text.utf8.withContiguousStorageIfAvailable { $0.contains(where: isControl) }
                ?? text.utf8.contains(where: isControl)
        }

        /// Whether the signer sets the field (lowercase name) itself.
        static func isSet(_ name: String) -> Bool {
            // Most names are none of these: their length says so without comparing the text.
            switch name.utf8.count {
            case 10: name == "x-amz-date"
            case 20: name == "x-amz-security-token" || name == "x-amz-content-sha256"
            case 13: name == "authorization"
            default: false
            }
        }

        /// The day's signing key for one scope, and HMAC-SHA256 keyed with it (``KeyedHMAC``: the
        /// SHA-256 states after `K XOR ipad` and `K XOR opad`, RFC 2104 §2), copied for each
        /// signature so that the key's two blocks are hashed once a day. A class: the cache
        /// hands it out with one retain.
        final class DayKey: Sendable {
            /// `yyyyMMdd`.
            let day: String
            /// `yyyyMMdd/region/service/aws4_request`.
            let scope: String
            /// Whether ``day`` is free of control characters (a date given by the caller may not be).
            let plainDay: Bool
            let key: SymmetricKey
            private let hmac: KeyedHMAC<SHA256>

            init(day: String, scope: String, key: [UInt8]) {
                self.day = day
                self.scope = scope
                self.plainDay = !AWS.SigV4Signer.hasControl(day)
                self.key = SymmetricKey(data: key)
                self.hmac = KeyedHMAC(key: key)
            }

            /// HMAC-SHA256(key, `message`) in lowercase hex.
            func hexMAC(_ message: UnsafeRawBufferPointer) -> String {
                hmac.withAuthenticationCode(for: message) { Hex.encode($0) }
            }
        }

        /// The string to sign and the signature of `canonical`, with the day's key.
        func sign(canonical: [UInt8], date: String, dayKey: DayKey) -> (stringToSign: [UInt8], signature: String) {
            // The buffer-pointer entry points: `hash(data:)` and `HMAC.update(data:)` iterate a
            // `DataProtocol`'s regions generically, which costs more than hashing the few
            // hundred bytes here.
            var hasher = SHA256()
            canonical.withUnsafeBytes { hasher.update(bufferPointer: $0) }
            let digest = hasher.finalize()
            let capacity = Self.algorithm.utf8.count + date.utf8.count + dayKey.scope.utf8.count + 67
            let stringToSign = [UInt8](writingAtMost: capacity) { writer in
                writer.write(contentsOf: Self.algorithm)
                writer.write(0x0A)
                writer.write(contentsOf: date)
                writer.write(0x0A)
                writer.write(contentsOf: dayKey.scope)
                writer.write(0x0A)
                digest.withUnsafeBytes { bytes in
                    for byte in bytes {
                        writer.write(Hex.digit(byte >> 4, uppercase: false))
                        writer.write(Hex.digit(byte & 0x0F, uppercase: false))
                    }
                }
            }
            return (stringToSign, stringToSign.withUnsafeBytes { dayKey.hexMAC($0) })
        }

        /// kSigning = HMAC(HMAC(HMAC(HMAC("AWS4" + secret, day), region), service), "aws4_request"),
        /// derived once per day, region and service.
        func signingKey(date: String) -> [UInt8] {
            dayKey(date: date).key.withUnsafeBytes { Array($0) }
        }

        /// The day's key (``signingKey(date:)``) and scope for `date` (`yyyyMMddTHHmmssZ`),
        /// cached for the day.
        func dayKey(date: String) -> DayKey {
            let day = String(decoding: date.utf8.prefix(8), as: UTF8.self)
            if let cached = keys.withLock({ $0 }), cached.day == day { return cached }
            var key = credentials.secretAccessKey.withRevealedUTF8 { Array("AWS4".utf8) + Array($0) }
            // Each step with the concrete HMAC (swift-crypto's `HMAC.update(data:)` is generic
            // over `DataProtocol`, and its metadata look-ups cost more than the hashing here).
            func derive(_ part: String) {
                key = part.utf8.withContiguousStorageIfAvailable {
                    KeyedHMAC<SHA256>.authenticationCode(key: key, message: UnsafeRawBufferPointer($0))
                } ?? Array(part.utf8).withUnsafeBytes { KeyedHMAC<SHA256>.authenticationCode(key: key, message: $0) }
            }
            derive(day)
            derive(region)
            derive(service)
            derive("aws4_request")
            let dayKey = DayKey(day: day, scope: scope(date), key: key)
            keys.withLock { $0 = dayKey }
            return dayKey
        }

        /// AWS's URI encoding: `A-Z a-z 0-9 - _ . ~` as they are, every other octet `%XY`
        /// (uppercase): the same rule as RFC 5849 §3.6, so the same code.
        static func uriEncode(_ text: String) -> String { OAuth1.PercentEncoding.encode(text) }

        /// `%XY` decoded (a `%` without two hex digits kept as it is; `+` is a plus).
        static func percentDecode(_ text: String) -> String {
            let bytes = Array(text.utf8)
            var output: [UInt8] = []
            var index = 0
            while index < bytes.count {
                if bytes[index] == UInt8(ascii: "%"), index + 2 < bytes.count,
                    let high = Hex.value(bytes[index + 1]), let low = Hex.value(bytes[index + 2])
                {
                    output.append(high << 4 | low)
                    index += 3
                } else {
                    output.append(bytes[index])
                    index += 1
                }
            }
            return String(decoding: output, as: UTF8.self)
        }

        static func hexSHA256(_ bytes: [UInt8]) -> String { Hex.encode(Array(SHA256.hash(data: bytes))) }

        /// `yyyyMMddTHHmmssZ` in UTC.
        package static func amzDate(_ seconds: Int64) -> String {
            let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
            let time = seconds - days * 86_400
            // Days to a civil date (Howard Hinnant's algorithm).
            let z = days + 719_468
            let era = (z >= 0 ? z : z - 146_096) / 146_097
            let dayOfEra = z - era * 146_097
            let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
            let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
            let mp = (5 * dayOfYear + 2) / 153
            let day = dayOfYear - (153 * mp + 2) / 5 + 1
            let month = mp < 10 ? mp + 3 : mp - 9
            let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
            func two(_ value: Int64) -> String { value < 10 ? "0\(value)" : "\(value)" }
            return "\(year)\(two(month))\(two(day))T\(two(time / 3600))\(two(time % 3600 / 60))\(two(time % 60))Z"
        }
    }

    /// A request SigV4 cannot sign as asked, or a signature that does not verify.
    public struct SigV4Error: CodedError {
        /// What went wrong, as a stable code: compare it with `==` (the set is open).
        public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
            public let rawValue: String
            public init(rawValue: String) { self.rawValue = rawValue }
            public var description: String { rawValue }
            /// The request cannot be signed as asked (no authority, an expiry out of range).
            public static let invalidRequest = Code(rawValue: "invalidRequest")
            /// `Authorization` is not a SigV4 value this verifier reads.
            public static let malformedAuthorization = Code(rawValue: "malformedAuthorization")
            /// The access key id is not one the verifier knows.
            public static let unknownKey = Code(rawValue: "unknownKey")
            /// `X-Amz-Date` is missing, malformed, another day than the scope's, or too far from now.
            public static let requestTimeTooSkewed = Code(rawValue: "requestTimeTooSkewed")
            /// The signature is not the one the request's content gives.
            public static let signatureDoesNotMatch = Code(rawValue: "signatureDoesNotMatch")
        }

        public let code: Code
        public let reason: String
        /// Creates the error with `reason`, in plain words, and `code` (default `.invalidRequest`).
        public init(_ reason: String, code: Code = .invalidRequest) {
            self.code = code
            self.reason = reason
        }
        public var description: String { "AWS.SigV4Error.\(code): \(reason)" }
    }
}
