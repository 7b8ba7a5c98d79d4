#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension OAuth2 {
    /// The members of a JSON object response, read strictly: a member of the wrong type is a
    /// ``OAuth2/Error/Code/malformedResponse`` naming the member (never its value), and what
    /// the typed reader did not take stays in ``remaining``.
    struct JSONObject {
        private(set) var members: [String: JSONValue]
        private var taken: Set<String> = []
        let status: Int

        init(members: [String: JSONValue], status: Int) {
            self.members = members
            self.status = status
        }

        /// Parses `body` as a JSON object. An `error` member, or a status outside 2xx, is an
        /// OAuth error ([RFC 6749 §5.2](https://www.rfc-editor.org/rfc/rfc6749#section-5.2)):
        /// ``OAuth2/Error/Code/serverRefused`` with what the server said, or
        /// ``OAuth2/Error/Code/malformedResponse`` (status and a short excerpt) when the body is
        /// not a JSON object or an error without `error`.
        static func parse(status: Int, body: [UInt8], redacting secrets: [Secret] = []) throws -> JSONObject {
            guard let members = try? JSONValue.parseObject(body) else {
                throw OAuth2.Error(
                    .malformedResponse,
                    "HTTP \(status): the body is not a JSON object: \(excerpt(body, redacting: secrets))",
                    status: status
                )
            }
            var object = JSONObject(members: members, status: status)
            if members["error"] != nil {
                throw try object.errorResponse()
            }
            guard (200..<300).contains(status) else {
                throw OAuth2.Error(
                    .malformedResponse,
                    "HTTP \(status) without an OAuth error member: \(excerpt(body, redacting: secrets))",
                    status: status
                )
            }
            return object
        }

        /// The `error`, `error_description` and `error_uri` members as an error.
        mutating func errorResponse() throws -> OAuth2.Error {
            guard let code = try string("error") else {
                throw malformed("no 'error' member")
            }
            let response = ErrorResponse(
                code: ErrorCode(rawValue: code),
                errorDescription: try string("error_description"),
                errorURI: try string("error_uri")
            )
            return OAuth2.Error(
                .serverRefused,
                "the server answered \(PeerText.printable(code, limit: 100))",
                serverError: response,
                status: status
            )
        }

        func malformed(_ reason: String) -> OAuth2.Error {
            OAuth2.Error(.malformedResponse, "HTTP \(status): \(reason)", status: status)
        }

        mutating func string(_ name: String) throws -> String? {
            taken.insert(name)
            switch members[name] {
            case nil, .null?: return nil
            case .string(let value)?: return value
            default: throw malformed("'\(name)' is not a string")
            }
        }

        mutating func requiredString(_ name: String) throws -> String {
            guard let value = try string(name) else { throw malformed("'\(name)' is missing") }
            return value
        }

        mutating func bool(_ name: String) throws -> Bool? {
            taken.insert(name)
            switch members[name] {
            case nil, .null?: return nil
            case .bool(let value)?: return value
            default: throw malformed("'\(name)' is not a boolean")
            }
        }

        /// An integer; a string of decimal digits is read too, as some servers quote `expires_in`.
        mutating func integer(_ name: String) throws -> Int64? {
            taken.insert(name)
            switch members[name] {
            case nil, .null?: return nil
            case .integer(let value)?: return value
            case .number(let value)? where value.rounded() == value && abs(value) < 9e15: return Int64(value)
            case .string(let value)? where !value.isEmpty && value.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }):
                if let number = Int64(value) { return number }
                throw malformed("'\(name)' is not an integer")
            default: throw malformed("'\(name)' is not an integer")
            }
        }

        /// An array of strings, or a single string (`aud` may be either, RFC 7519 §4.1.3).
        mutating func strings(_ name: String) throws -> [String]? {
            taken.insert(name)
            switch members[name] {
            case nil, .null?: return nil
            case .string(let value)?: return [value]
            case .array(let values)?:
                return try values.map {
                    guard let value = $0.stringValue else { throw malformed("'\(name)' holds a non-string") }
                    return value
                }
            default: throw malformed("'\(name)' is not a string or an array of strings")
            }
        }

        /// An array of strings, strictly.
        mutating func stringArray(_ name: String) throws -> [String]? {
            if case .string? = members[name] { throw malformed("'\(name)' is not an array of strings") }
            return try strings(name)
        }

        /// Space-separated list ([RFC 6749 §3.3](https://www.rfc-editor.org/rfc/rfc6749#section-3.3)).
        mutating func scope(_ name: String = "scope") throws -> [String]? {
            try string(name).map(OAuth2.splitScope)
        }

        /// A member that is a JSON object, read with its own strict reader.
        mutating func object(_ name: String) throws -> JSONObject? {
            taken.insert(name)
            switch members[name] {
            case nil, .null?: return nil
            case .object(let members)?: return JSONObject(members: members, status: status)
            default: throw malformed("'\(name)' is not an object")
            }
        }

        /// The members no typed accessor took.
        var remaining: [String: JSONValue] {
            members.filter { !taken.contains($0.key) }
        }
    }

    /// `scope` split on spaces, empty pieces dropped.
    static func splitScope(_ scope: String) -> [String] {
        scope.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
    }

    /// At most 200 characters of a response body for an error's reason, on one line, with:
    /// - the value of every member named in ``secretMembers`` (`"access_token": "…"` in JSON,
    ///   `access_token=…` in a form) replaced by `<redacted>`, whatever the body's validity:
    ///   an almost-JSON token response still carries fresh tokens;
    /// - any of `secrets` (the request's) replaced by `<redacted>` should the server have
    ///   echoed one;
    /// - control characters escaped (``PeerText/printable(_:)``): the reason reaches terminals.
    static func excerpt(_ body: [UInt8], redacting secrets: [Secret] = []) -> String {
        var text = String(decoding: blankingSecretMembers(body), as: UTF8.self)
        for secret in secrets where !secret.isEmpty {
            text = text.replacing(secret.reveal(), with: "<redacted>")
        }
        text = String(text.map { $0.isNewline || $0 == "\t" ? " " : $0 })
        if text.isEmpty { return "(empty body)" }
        if text.count > 200 { text = String(text.prefix(197)) + "..." }
        return "'\(PeerText.printable(text))'"
    }

    /// The members whose values are secrets, in token, device, introspection, registration and
    /// error responses (RFC 6749 §5.1, RFC 8628 §3.2, RFC 7591 §3.2.1, RFC 8693 §2.2.1), and the
    /// request parameters a server might echo.
    package static let secretMembers: Set<String> = [
        "access_token", "refresh_token", "id_token", "device_code", "code", "code_verifier", "client_secret",
        "client_assertion", "assertion", "password", "registration_access_token", "token", "subject_token",
        "actor_token", "issued_token", "request_uri", "dpop_nonce", "oauth_token_secret",
    ]

    /// `body` with the value of each ``secretMembers`` member blanked: after `"name"` and a
    /// colon, a JSON string (escapes followed) or a bare value up to `,`, `}`, `]` or a space;
    /// after `name=` at the start, after `&`, `?` or a space, up to `&` or a space.
    static func blankingSecretMembers(_ body: [UInt8]) -> [UInt8] {
        let redacted = Array("<redacted>".utf8)
        var output: [UInt8] = []
        output.reserveCapacity(body.count)
        var index = 0
        /// The end of the JSON string that starts at `start` (its opening quote), past the
        /// closing quote or at the end of the body.
        func stringEnd(_ start: Int) -> Int {
            var i = start + 1
            while i < body.count {
                if body[i] == UInt8(ascii: "\\") {
                    i += 2
                    continue
                }
                if body[i] == UInt8(ascii: "\"") { return i + 1 }
                i += 1
            }
            return body.count
        }
        func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D }
        func isSecret(_ name: ArraySlice<UInt8>) -> Bool {
            name.count <= 32 && secretMembers.contains(String(decoding: name, as: UTF8.self).lowercased())
        }
        while index < body.count {
            let byte = body[index]
            if byte == UInt8(ascii: "\"") {
                let end = stringEnd(index)
                output.append(contentsOf: body[index..<end])
                let name = body[(index + 1)..<max(index + 1, end - 1)]
                index = end
                guard isSecret(name) else { continue }
                var i = index
                while i < body.count, isSpace(body[i]) { i += 1 }
                guard i < body.count, body[i] == UInt8(ascii: ":") else { continue }
                i += 1
                while i < body.count, isSpace(body[i]) { i += 1 }
                output.append(contentsOf: body[index..<i])
                if i < body.count, body[i] == UInt8(ascii: "\"") {
                    output.append(UInt8(ascii: "\""))
                    output.append(contentsOf: redacted)
                    output.append(UInt8(ascii: "\""))
                    index = stringEnd(i)
                } else {
                    var end = i
                    while end < body.count, !isSpace(body[end]), !",}]".utf8.contains(body[end]) { end += 1 }
                    if end > i { output.append(contentsOf: redacted) }
                    index = end
                }
                continue
            }
            let startsWord =
                index == 0 || [UInt8(ascii: "&"), UInt8(ascii: "?")].contains(body[index - 1])
                || isSpace(body[index - 1])
            if startsWord {
                var end = index
                while end < body.count, end - index <= 32,
                    body[end] == UInt8(ascii: "_") || (0x61...0x7A).contains(body[end] | 0x20)
                {
                    end += 1
                }
                if end > index, end < body.count, body[end] == UInt8(ascii: "="), isSecret(body[index..<end]) {
                    output.append(contentsOf: body[index...end])
                    var valueEnd = end + 1
                    while valueEnd < body.count, body[valueEnd] != UInt8(ascii: "&"), !isSpace(body[valueEnd]) {
                        valueEnd += 1
                    }
                    if valueEnd > end + 1 { output.append(contentsOf: redacted) }
                    index = valueEnd
                    continue
                }
            }
            output.append(byte)
            index += 1
        }
        return output
    }
}
