import FuzzSupport
import HTTPTypes
@_spi(Fuzzing) import RemoteAuth

/// An OAuth 1.0a provider's answer to the temporary credentials request (RFC 5849 §2.1) or the
/// token request (§2.3), as ``OAuth1/Flow`` reads it.
///
/// Input: line 1 is the status and the step (`200 temporary`, `401 token`, …), line 2 a
/// `WWW-Authenticate` value, the rest the body.
///
/// Invariants: an answer that reads has a non-empty `oauth_token` and keeps no `oauth_token`
/// or `oauth_token_secret` among its other fields; a refusal carries the status.
@main struct Target {
    static func main() {
        Fuzz.run { input in
            let lines = input.lines(3)
            let head = lines[0].text.split(separator: " ", maxSplits: 1)
            let code = head.first.flatMap { Int($0) }.map { min(max($0, 100), 599) } ?? 200
            let temporary = head.count > 1 && head[1] == "temporary"
            var response = HTTPResponse(status: .init(code: code))
            if !lines[1].isEmpty {
                response.headerFields.append(HTTPField(name: .wwwAuthenticate, value: lines[1].text))
            }
            do {
                let answer = try FuzzingEntryPoints.oauth1ProviderAnswer(
                    response,
                    body: lines[2],
                    temporaryCredentials: temporary
                )
                Fuzz.require(code == 200, "an answer read from a refusal")
                Fuzz.require(!answer.credentials.token.isEmpty, "an empty oauth_token accepted")
                Fuzz.require(
                    !answer.fields.contains { $0.name == "oauth_token" || $0.name == "oauth_token_secret" },
                    "the token credentials are left among the other fields"
                )
                _ = answer.description
            } catch let error as OAuth1.FlowError {
                if error.code == .providerRefused {
                    Fuzz.require(error.status == code, "a refusal without its status")
                } else {
                    Fuzz.require(code == 200, "a refusal that is not .providerRefused")
                }
            } catch {
                Fuzz.require(false, "an error that is not an OAuth1.FlowError: \(type(of: error))")
            }
        }
    }
}
