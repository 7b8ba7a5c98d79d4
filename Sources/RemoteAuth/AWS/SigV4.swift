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
        private let keys: Locked<(scope: String, key: [UInt8])?>

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
        }

        /// What a signature was made of: the canonical request and the string to sign, for
        /// comparing with what the server says it expected.
        public struct Signed: Sendable, CustomStringConvertible, CustomReflectable {
            /// The request with `Authorization`, `X-Amz-Date` (and `X-Amz-Security-Token`,
            /// `x-amz-content-sha256`), or, presigned, with the signature in its query.
            public let request: HTTPRequest
            /// The canonical request (method, path, query, signed headers, payload hash).
            public let canonicalRequest: String
            /// The string to sign: the algorithm, the date, the scope and the canonical request's hash.
            public let stringToSign: String
            /// The signature, lowercase hex.
            public let signature: String

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
            for name in [Self.amzDate, Self.securityToken, Self.contentSHA256, HTTPField.Name.authorization] {
                signed.headerFields[name] = nil
            }
            signed.headerFields[Self.amzDate] = date
            if let token = credentials.sessionToken { signed.headerFields[Self.securityToken] = token.reveal() }
            if service == "s3" { signed.headerFields[Self.contentSHA256] = hash }
            let canonical = try canonicalRequest(signed, extraQuery: [], payloadHash: hash)
            let (stringToSign, signature) = sign(canonical: canonical.text, date: date)
            signed.headerFields[.authorization] =
                "\(Self.algorithm) Credential=\(credentials.accessKeyID)/\(scope(date)), SignedHeaders=\(canonical.signedHeaders), Signature=\(signature)"
            return Signed(request: signed, canonicalRequest: canonical.text, stringToSign: stringToSign, signature: signature)
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
            let headers = try Self.canonicalHeaders(signed)
            var parameters: [(String, String)] = [
                ("X-Amz-Algorithm", Self.algorithm),
                ("X-Amz-Credential", "\(credentials.accessKeyID)/\(scope(date))"),
                ("X-Amz-Date", date),
                ("X-Amz-Expires", String(expires)),
                ("X-Amz-SignedHeaders", headers.signed),
            ]
            if let token = credentials.sessionToken { parameters.append(("X-Amz-Security-Token", token.reveal())) }
            let canonical = try canonicalRequest(signed, extraQuery: parameters, payloadHash: hash)
            let (stringToSign, signature) = sign(canonical: canonical.text, date: date)
            parameters.append(("X-Amz-Signature", signature))
            let path = signed.path ?? "/"
            let added = parameters.map { Self.uriEncode($0.0) + "=" + Self.uriEncode($0.1) }.joined(separator: "&")
            signed.path = path + (path.contains("?") ? (path.hasSuffix("?") || path.hasSuffix("&") ? "" : "&") : "?") + added
            return Signed(request: signed, canonicalRequest: canonical.text, stringToSign: stringToSign, signature: signature)
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
        /// Fields never signed (botocore's list, and the signature's own field).
        static let unsigned: Set<String> = ["authorization", "user-agent", "expect", "x-amzn-trace-id"]

        /// `yyyyMMdd/region/service/aws4_request`.
        func scope(_ date: String) -> String { "\(date.prefix(8))/\(region)/\(service)/aws4_request" }

        /// The string to sign and the signature of `canonical`, with the day's key.
        func sign(canonical: String, date: String) -> (String, String) {
            let stringToSign = "\(Self.algorithm)\n\(date)\n\(scope(date))\n\(Self.hexSHA256(Array(canonical.utf8)))"
            let key = signingKey(date: date)
            let mac = HMAC<SHA256>.authenticationCode(for: Array(stringToSign.utf8), using: SymmetricKey(data: key))
            return (stringToSign, Hex.encode(Array(mac)))
        }

        /// kSigning = HMAC(HMAC(HMAC(HMAC("AWS4" + secret, day), region), service), "aws4_request"),
        /// derived once per day, region and service.
        func signingKey(date: String) -> [UInt8] {
            let scope = self.scope(date)
            if let cached = keys.withLock({ $0 }), cached.scope == scope { return cached.key }
            var key = credentials.secretAccessKey.withRevealedUTF8 { Array("AWS4".utf8) + Array($0) }
            for part in [String(date.prefix(8)), region, service, "aws4_request"] {
                key = Array(HMAC<SHA256>.authenticationCode(for: Array(part.utf8), using: SymmetricKey(data: key)))
            }
            let derived = key
            keys.withLock { $0 = (scope, derived) }
            return derived
        }

        /// The canonical request and its signed header names.
        func canonicalRequest(
            _ request: HTTPRequest,
            extraQuery: [(String, String)],
            payloadHash: String
        ) throws -> (text: String, signedHeaders: String) {
            let target = request.target
            let path = String(target.path)
            let query = String(target.query ?? "")
            let headers = try Self.canonicalHeaders(request)
            let text = [
                request.method.rawValue,
                canonicalPath(path),
                Self.canonicalQuery(query, extra: extraQuery),
                headers.text,
                headers.signed,
                payloadHash,
            ].joined(separator: "\n")
            return (text, headers.signed)
        }

        /// The path as signed: normalized and encoded again, or for S3 as sent.
        ///
        /// The normalization is the AWS SDKs' (botocore's `remove_dot_segments`): empty, `.`
        /// and `..` segments go, and the path keeps its trailing `/` only when it had one and
        /// segments remain, so `/a/b/..` is `/a` where RFC 3986 §5.2.4 would give `/a/`, and
        /// `//a//` is `/a/`. The server computes the same, so it is followed byte for byte.
        func canonicalPath(_ path: String) -> String {
            let path = path.isEmpty ? "/" : path
            guard service != "s3" else { return path }
            var segments: [Substring] = []
            for segment in path.split(separator: "/", omittingEmptySubsequences: true) where segment != "." {
                if segment == ".." {
                    _ = segments.popLast()
                } else {
                    segments.append(segment)
                }
            }
            let trailing = path.hasSuffix("/") && !segments.isEmpty ? "/" : ""
            return "/" + segments.map { Self.uriEncode(String($0)) }.joined(separator: "/") + trailing
        }

        /// The query's parameters, decoded, encoded again and sorted.
        static func canonicalQuery(_ query: String, extra: [(String, String)]) -> String {
            var pairs: [(String, String)] = []
            for part in query.split(separator: "&", omittingEmptySubsequences: true) {
                let equals = part.firstIndex(of: "=")
                let name = String(part[..<(equals ?? part.endIndex)])
                let value = equals.map { String(part[part.index(after: $0)...]) } ?? ""
                pairs.append((uriEncode(percentDecode(name)), uriEncode(percentDecode(value))))
            }
            pairs += extra.map { (uriEncode($0.0), uriEncode($0.1)) }
            pairs.sort { $0.0 == $1.0 ? $0.1.utf8.lexicographicallyPrecedes($1.1.utf8) : $0.0.utf8.lexicographicallyPrecedes($1.0.utf8) }
            return pairs.map { $0.0 + "=" + $0.1 }.joined(separator: "&")
        }

        /// `name:value\n` lines sorted by name, and the names joined with `;`.
        static func canonicalHeaders(_ request: HTTPRequest) throws -> (text: String, signed: String) {
            guard let authority = request.authority, !authority.isEmpty else {
                throw SigV4Error("the request has no authority: SigV4 signs the host")
            }
            var values: [String: [String]] = ["host": [authority]]
            for field in request.headerFields {
                let name = field.name.canonicalName
                guard name != "host", !unsigned.contains(name) else { continue }
                values[name, default: []].append(foldSpaces(field.value))
            }
            let names = values.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
            let text = names.map { "\($0):\(values[$0]!.joined(separator: ","))\n" }.joined()
            return (text, names.joined(separator: ";"))
        }

        /// Trimmed, with each inner run of spaces and tabs folded to one space.
        static func foldSpaces(_ value: String) -> String {
            var output: [UInt8] = []
            var pendingSpace = false
            for octet in value.utf8 {
                if octet == 0x20 || octet == 0x09 {
                    pendingSpace = !output.isEmpty
                    continue
                }
                if pendingSpace { output.append(0x20) }
                pendingSpace = false
                output.append(octet)
            }
            return String(decoding: output, as: UTF8.self)
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
