import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import RemoteAuth

/// The bodies every route collection answers with: text, form-encoded, JSON and redirects.
enum SandboxResponse {
    static func text(
        _ status: HTTPResponse.Status,
        _ body: String,
        contentType: String,
        headers: HTTPFields = [:]
    ) -> Response {
        var fields = headers
        fields[.contentType] = contentType
        return Response(status: status, headers: fields, body: .init(byteBuffer: ByteBuffer(string: body)))
    }

    /// `application/x-www-form-urlencoded`, as an OAuth 1.0a provider answers
    /// ([RFC 5849 §2.1](https://www.rfc-editor.org/rfc/rfc5849#section-2.1)).
    static func form(_ pairs: [(name: String, value: String)]) -> Response {
        text(.ok, FormURLEncoding.encode(pairs), contentType: "application/x-www-form-urlencoded")
    }

    /// `value` as compact JSON with sorted keys (and `/` escaped, as Foundation writes it).
    static func json(_ value: some Encodable, status: HTTPResponse.Status = .ok, headers: HTTPFields = [:]) -> Response
    {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let data = (try? encoder.encode(value)) ?? Data("{}".utf8)
        return text(status, String(decoding: data, as: UTF8.self), contentType: "application/json", headers: headers)
    }

    static func redirect(to location: String, status: HTTPResponse.Status = .found) -> Response {
        Response(status: status, headers: [.location: location])
    }

    /// `{"error":"…"}`.
    struct ErrorBody: Encodable {
        let error: String
    }
}

/// Form fields of a browser form or a query string, decoded with the core's codec
/// (``FormURLEncoding``) but leniently, as the sandbox always has for these: octets that are not
/// UTF-8 become U+FFFD, and a malformed `%` escape leaves no fields at all. Signed requests are
/// not read this way: ``OAuth1/ReceivedRequest`` decodes them strictly.
struct FormFields: Sendable {
    let pairs: [(name: String, value: String)]

    init(_ pairs: [(name: String, value: String)]) {
        self.pairs = pairs
    }

    init(decoding encoded: some StringProtocol) {
        var pairs: [(name: String, value: String)] = []
        do {
            try FormURLEncoding.forEachPair(Array(encoded.utf8)[...]) { name, value in
                pairs.append(
                    (
                        String(decoding: try FormURLEncoding.decodeOctets(name), as: UTF8.self),
                        String(decoding: try FormURLEncoding.decodeOctets(value), as: UTF8.self)
                    )
                )
            }
        } catch {
            pairs = []
        }
        self.pairs = pairs
    }

    /// The first value named `name`.
    subscript(_ name: String) -> String? {
        pairs.first { $0.name == name }?.value
    }

    func contains(_ name: String) -> Bool {
        pairs.contains { $0.name == name }
    }
}

// MARK: - Errors

/// An error a handler throws that Hummingbird turns into the response (``HTTPResponseError``),
/// with a line for the request log saying why.
protocol SandboxRefusal: HTTPResponseError, Sendable {
    /// What the request log shows after the status; never a secret.
    var logOutcome: String { get }
}

/// `{"error":"…"}` with a status: a request the sandbox cannot serve as asked.
struct JSONError: SandboxRefusal {
    let status: HTTPResponse.Status
    let message: String

    init(_ status: HTTPResponse.Status, _ message: String) {
        self.status = status
        self.message = message
    }

    func response(from request: Request, context: some RequestContext) -> Response {
        SandboxResponse.json(SandboxResponse.ErrorBody(error: message), status: status)
    }

    var logOutcome: String { message }
}

/// `500` with a plain-text reason: the state file cannot be written, or a token cannot be signed.
struct ServerFailure: SandboxRefusal {
    let message: String

    init(_ message: String) { self.message = message }

    var status: HTTPResponse.Status { .internalServerError }

    func response(from request: Request, context: some RequestContext) -> Response {
        SandboxResponse.text(.internalServerError, message, contentType: "text/plain")
    }

    var logOutcome: String { message }

    /// Runs `work`; any error it throws is answered as `message`.
    static func mapping<T>(_ message: String, _ work: () async throws -> T) async throws(ServerFailure) -> T {
        do {
            return try await work()
        } catch {
            throw ServerFailure(message)
        }
    }
}

extension AuthenticationChallenge {
    /// The challenge with every parameter value written as a quoted-string, as the examples of
    /// [RFC 7617 §2.1](https://www.rfc-editor.org/rfc/rfc7617#section-2.1) and of OAuth Problem
    /// Reporting write them: `Basic realm="…", charset="UTF-8"`. (``headerValue`` writes a
    /// value that is a token bare, `charset=UTF-8`, which means the same; the sandbox has
    /// always quoted, and clients and tests compare its challenges byte for byte.)
    /// [RFC 9110 §11.2](https://www.rfc-editor.org/rfc/rfc9110#section-11.2)
    var quotedHeaderValue: String {
        scheme + " " + parameters.map { $0.name + "=\"" + $0.value.replacingQuotes() + "\"" }.joined(separator: ", ")
    }
}

extension String {
    /// Escapes `"` and `\` for a quoted-string
    /// ([RFC 9110 §5.6.4](https://www.rfc-editor.org/rfc/rfc9110#section-5.6.4)).
    func replacingQuotes() -> String {
        var output = ""
        for character in self {
            if character == "\"" || character == "\\" { output.append("\\") }
            output.append(character)
        }
        return output
    }
}
