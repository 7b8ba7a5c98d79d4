public import HTTPTypes
import Hummingbird

/// One line of the sandbox's request log: what arrived and how it was answered, with the
/// `oauth_problem` or challenge outcome of a refusal, so that a developer writing a client sees
/// why a request was refused.
///
/// ```
/// POST /oauth/request_token 401 oauth_problem=signature_invalid: oauth_signature does not match the request
/// GET /basic/ 401 Basic challenge: no credentials
/// GET /digest/SHA-256/auth/ 200
/// ```
public struct SandboxLogEntry: Sendable, Hashable, CustomStringConvertible {
    /// The request's method.
    public var method: HTTPRequest.Method
    /// The path without its query, which may carry a token or a verifier.
    public var path: String
    /// The status the sandbox answered with.
    public var status: HTTPResponse.Status
    /// Why the request was refused: `oauth_problem=…: advice`, `Basic challenge: …`,
    /// `Digest challenge: …`, or the error the sandbox answered; `nil` for an answer that is not
    /// a refusal. Never a secret.
    public var outcome: String?

    /// Creates an entry: `path` without its query, and `outcome` only for a refusal.
    public init(method: HTTPRequest.Method, path: String, status: HTTPResponse.Status, outcome: String? = nil) {
        self.method = method
        self.path = path
        self.status = status
        self.outcome = outcome
    }

    /// `METHOD PATH STATUS[ OUTCOME]`, on one line: control characters (which an echoed
    /// parameter could carry) are written as `\u{…}`.
    public var description: String {
        let line = "\(method.rawValue) \(path) \(status.code)" + (outcome.map { " " + $0 } ?? "")
        var output = ""
        for scalar in line.unicodeScalars {
            if scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) {
                output += "\\u{" + String(scalar.value, radix: 16) + "}"
            } else {
                output.unicodeScalars.append(scalar)
            }
        }
        return output
    }
}

/// Writes a ``SandboxLogEntry`` for every request once it is answered, including the refusals
/// that handlers throw (which it passes on for Hummingbird to render).
struct RequestLog: RouterMiddleware {
    typealias Context = SandboxRequestContext
    let write: @Sendable (SandboxLogEntry) -> Void

    func handle(
        _ request: Request,
        context: SandboxRequestContext,
        next: (Request, SandboxRequestContext) async throws -> Response
    ) async throws -> Response {
        let target = request.head.path ?? "/"
        let path = String(target[..<(target.firstIndex(of: "?") ?? target.endIndex)])
        do {
            let response = try await next(request, context)
            write(SandboxLogEntry(method: request.method, path: path, status: response.status))
            return response
        } catch {
            write(
                SandboxLogEntry(
                    method: request.method,
                    path: path,
                    status: (error as? any HTTPResponseError)?.status ?? .internalServerError,
                    outcome: (error as? any SandboxRefusal)?.logOutcome
                )
            )
            throw error
        }
    }
}

/// Shows every request head to ``SandboxConfiguration/onRequest`` before handling it.
struct RequestObserver: RouterMiddleware {
    typealias Context = SandboxRequestContext
    let observe: @Sendable (HTTPRequest) -> Void

    func handle(
        _ request: Request,
        context: SandboxRequestContext,
        next: (Request, SandboxRequestContext) async throws -> Response
    ) async throws -> Response {
        observe(request.head)
        return try await next(request, context)
    }
}
