import HTTPTypes
import RemoteAuth

/// A refusal in the words of OAuth Problem Reporting (`oauth_problem`), with the status RFC 5849
/// §3.2 gives it: 400 for a malformed request (missing, duplicated or unsupported parameters),
/// 401 for credentials, tokens, signatures, nonces and timestamps that are not accepted.
struct OAuthProblem: Error, Sendable {
    let status: HTTPResponse.Status
    let problem: OAuth1.Problem
    let advice: String
    var extra: [(String, String)] = []

    static func badRequest(_ problem: String, _ advice: String, _ extra: [(String, String)] = []) -> Self {
        OAuthProblem(status: .badRequest, problem: OAuth1.Problem(problem), advice: advice, extra: extra)
    }

    static func unauthorized(_ problem: String, _ advice: String, _ extra: [(String, String)] = []) -> Self {
        OAuthProblem(status: .unauthorized, problem: OAuth1.Problem(problem), advice: advice, extra: extra)
    }

    /// The problem a request-parsing or verification error stands for.
    init(_ error: OAuth1Error) {
        switch error.code {
        case .missingParameter:
            self.init(
                status: .badRequest,
                problem: .parameterAbsent,
                advice: error.reason,
                extra: error.parameter.map { [("oauth_parameters_absent", $0)] } ?? []
            )
        case .unsupportedSignatureMethod:
            self.init(status: .badRequest, problem: .signatureMethodRejected, advice: error.reason)
        case .unsupportedVersion:
            self.init(
                status: .badRequest,
                problem: .versionRejected,
                advice: error.reason,
                extra: [("oauth_acceptable_versions", "1.0-1.0")]
            )
        case .invalidSignature, .missingKey:
            self.init(status: .unauthorized, problem: .signatureInvalid, advice: error.reason)
        case .timestampRefused:
            self.init(status: .unauthorized, problem: .timestampRefused, advice: error.reason)
        default:
            self.init(status: .badRequest, problem: .parameterRejected, advice: error.reason)
        }
    }

    init(status: HTTPResponse.Status, problem: OAuth1.Problem, advice: String, extra: [(String, String)] = []) {
        self.status = status
        self.problem = problem
        self.advice = advice
        self.extra = extra
    }

    /// The form-encoded body: `oauth_problem=…&oauth_problem_advice=…`.
    var body: String {
        FormURLEncoding.encode(
            ([("oauth_problem", problem.rawValue), ("oauth_problem_advice", advice)] + extra).map {
                (name: $0.0, value: $0.1)
            }
        )
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
