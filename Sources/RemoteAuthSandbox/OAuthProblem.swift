import HTTPTypes
import Hummingbird
import RemoteAuth

/// A refusal in the words of OAuth Problem Reporting (`oauth_problem`), with the status RFC 5849
/// §3.2 gives it: 400 for a malformed request (missing, duplicated or unsupported parameters),
/// 401 for credentials, tokens, signatures, nonces and timestamps that are not accepted.
/// [RFC 5849 §3.2](https://www.rfc-editor.org/rfc/rfc5849#section-3.2)
///
/// Handlers throw it; Hummingbird answers with the form-encoded body
/// `oauth_problem=…&oauth_problem_advice=…` and `WWW-Authenticate: OAuth realm="…", oauth_problem="…"`.
struct OAuthProblem: SandboxRefusal {
    let status: HTTPResponse.Status
    let problem: OAuth1.Problem
    let advice: String
    let extra: [(name: String, value: String)]
    /// The realm of the `WWW-Authenticate` challenge.
    let realm: String
    /// The challenges of the other schemes the resource takes, each answered as its own
    /// `WWW-Authenticate` field line after this one
    /// ([RFC 9110 §11.6.1](https://www.rfc-editor.org/rfc/rfc9110#section-11.6.1)).
    var otherChallenges: [String] = []

    init(
        _ status: HTTPResponse.Status,
        _ problem: OAuth1.Problem,
        _ advice: String,
        _ extra: [(name: String, value: String)] = [],
        realm: String
    ) {
        self.status = status
        self.problem = problem
        self.advice = advice
        self.extra = extra
        self.realm = realm
    }

    /// The problem a request-parsing or verification error stands for; the parameter at fault
    /// comes from ``OAuth1Error/parameter``.
    init(_ error: OAuth1Error, realm: String) {
        switch error.code {
        case .missingParameter:
            self.init(
                .badRequest,
                .parameterAbsent,
                error.reason,
                error.parameter.map { [("oauth_parameters_absent", $0)] } ?? [],
                realm: realm
            )
        case .unsupportedSignatureMethod:
            self.init(.badRequest, .signatureMethodRejected, error.reason, realm: realm)
        case .unsupportedVersion:
            self.init(
                .badRequest,
                .versionRejected,
                error.reason,
                [("oauth_acceptable_versions", "1.0-1.0")],
                realm: realm
            )
        case .invalidSignature, .missingKey:
            self.init(.unauthorized, .signatureInvalid, error.reason, realm: realm)
        case .timestampRefused:
            self.init(.unauthorized, .timestampRefused, error.reason, realm: realm)
        default:
            self.init(.badRequest, .parameterRejected, error.reason, realm: realm)
        }
    }

    /// The form-encoded body: `oauth_problem=…&oauth_problem_advice=…`, then ``extra``.
    var body: String {
        FormURLEncoding.encode([("oauth_problem", problem.rawValue), ("oauth_problem_advice", advice)] + extra)
    }

    /// `OAuth realm="…", oauth_problem="…"`.
    var challenge: AuthenticationChallenge {
        AuthenticationChallenge(
            scheme: "OAuth",
            parameters: [.init(name: "realm", value: realm), .init(name: "oauth_problem", value: problem.rawValue)]
        )
    }

    func response(from request: Request, context: some RequestContext) -> Response {
        var headers: HTTPFields = [.wwwAuthenticate: challenge.quotedHeaderValue]
        for other in otherChallenges { headers.append(HTTPField(name: .wwwAuthenticate, value: other)) }
        return SandboxResponse.text(status, body, contentType: "application/x-www-form-urlencoded", headers: headers)
    }

    var logOutcome: String { "oauth_problem=\(problem): \(advice)" }
}
