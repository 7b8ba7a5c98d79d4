import HTTPTypes
import RemoteAuth

/// A refusal in the words of OAuth Problem Reporting (`oauth_problem`), with the status RFC 5849
/// §3.2 gives it: 400 for a malformed request (missing, duplicated or unsupported parameters),
/// 401 for credentials, tokens, signatures, nonces and timestamps that are not accepted.
struct OAuthProblem: Error, Sendable {
    let status: HTTPResponse.Status
    let problem: String
    let advice: String
    var extra: [(String, String)] = []

    static func badRequest(_ problem: String, _ advice: String, _ extra: [(String, String)] = []) -> Self {
        OAuthProblem(status: .badRequest, problem: problem, advice: advice, extra: extra)
    }

    static func unauthorized(_ problem: String, _ advice: String, _ extra: [(String, String)] = []) -> Self {
        OAuthProblem(status: .unauthorized, problem: problem, advice: advice, extra: extra)
    }

    /// The problem a request-parsing or verification error stands for.
    init(_ error: OAuth1Error) {
        switch error.code {
        case .missingParameter:
            let name = error.reason.split(separator: " ").first.map(String.init) ?? ""
            self = .badRequest(
                "parameter_absent",
                error.reason,
                name.hasPrefix("oauth_") ? [("oauth_parameters_absent", name)] : []
            )
        case .unsupportedSignatureMethod:
            self = .badRequest("signature_method_rejected", error.reason)
        case .unsupportedVersion:
            self = .badRequest("version_rejected", error.reason, [("oauth_acceptable_versions", "1.0-1.0")])
        case .invalidSignature, .missingKey:
            self = .unauthorized("signature_invalid", error.reason)
        case .timestampRefused:
            self = .unauthorized("timestamp_refused", error.reason)
        default:
            self = .badRequest("parameter_rejected", error.reason)
        }
    }

    init(status: HTTPResponse.Status, problem: String, advice: String, extra: [(String, String)] = []) {
        self.status = status
        self.problem = problem
        self.advice = advice
        self.extra = extra
    }

    /// The form-encoded body: `oauth_problem=…&oauth_problem_advice=…`.
    var body: String {
        ([("oauth_problem", problem), ("oauth_problem_advice", advice)] + extra)
            .map { OAuth1.PercentEncoding.encode($0.0) + "=" + OAuth1.PercentEncoding.encode($0.1) }
            .joined(separator: "&")
    }

    /// `OAuth realm="…", oauth_problem="…"`.
    func challenge(realm: String) -> String {
        "OAuth realm=\"\(realm.replacingQuotes())\", oauth_problem=\"\(problem)\""
    }
}

extension String {
    /// Escapes `"` and `\` for a quoted-string.
    func replacingQuotes() -> String {
        var output = ""
        for character in self {
            if character == "\"" || character == "\\" { output.append("\\") }
            output.append(character)
        }
        return output
    }

    /// Escapes text for HTML element content and attribute values.
    var htmlEscaped: String {
        var output = ""
        for character in self {
            switch character {
            case "&": output += "&amp;"
            case "<": output += "&lt;"
            case ">": output += "&gt;"
            case "\"": output += "&quot;"
            case "'": output += "&#39;"
            default: output.append(character)
            }
        }
        return output
    }
}
