import HTTPTypes
import RemoteAuth
import Testing

/// A case of `oauth2_responses.json` (fields described in Tests/Vectors/SOURCES.md), with the
/// members the OAuth 2 protocol tests read.
struct OAuth2ResponseVector: Decodable, Sendable, CustomTestStringConvertible {
    let name: String
    let kind: String
    let status: Int?
    let body: String?
    let location: String?
    let www_authenticate: String?
    let auth_param: String?
    let configured_issuer: String?
    let expected_json: OAuth2.JSONValue?
    let expected_params: [Pair]?
    let expected_error: String?
    let expected_error_description: String?
    let expected_error_uri: String?
    let expected_realm: String?
    let expected_scope: String?
    let expected_access_token: String?
    let expected_token_type: String?
    let expected_expires_in: Int64?
    let expected_refresh_token: String?
    let expected_extra_members: [String: OAuth2.JSONValue]?
    let expected_active: Bool?
    let expected_code: String?
    let expected_state: String?
    let expected_iss: String?
    let expected_iss_accepted: Bool?
    let expected_acr_values: String?
    let expected_max_age: Int?
    var testDescription: String { name }

    static func all(_ kind: String) throws -> [OAuth2ResponseVector] {
        try Vectors.load("oauth2_responses", as: OAuth2ResponseVector.self).filter { $0.kind == kind }
    }

    func member(_ name: String) -> OAuth2.JSONValue? {
        guard case .object(let members)? = expected_json else { return nil }
        return members[name]
    }
}

/// A clock the tests move by hand.
final class OAuth2TestClock: Sendable {
    private let time: Locked<Int64>
    private let log = Locked<[Int64]>([])
    init(_ start: Int64) { time = Locked(start) }
    var now: Int64 { time.withLock { $0 } }
    func advance(_ seconds: Int64) { time.withLock { $0 += seconds } }
    /// A fake sleep: records the seconds and moves the clock by them.
    func sleep(_ seconds: Int64) {
        log.withLock { $0.append(seconds) }
        advance(seconds)
    }
    var sleeps: [Int64] { log.withLock { $0 } }
    var closure: @Sendable () -> Int64 { { self.now } }
}

enum OAuth2Script {
    /// An answer with a JSON body.
    static func json(_ status: Int, _ body: String) -> ScriptedTransport.Answer {
        { _, _ in
            (
                HTTPResponse(status: .init(code: status), headerFields: [.contentType: "application/json"]),
                Array(body.utf8)
            )
        }
    }

    static func form(_ body: [UInt8]?) throws -> [Pair] {
        try FormURLEncoding.decode(bytes: body ?? []).map { Pair(name: $0.name, value: $0.value) }
    }
}

extension Pair {
    init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}

let oauth2Server = OAuth2.AuthorizationServer(
    issuer: "https://as.example",
    authorizationEndpoint: "https://as.example/authorize",
    tokenEndpoint: "https://as.example/token",
    deviceAuthorizationEndpoint: "https://as.example/device_authorization",
    revocationEndpoint: "https://as.example/revoke",
    introspectionEndpoint: "https://as.example/introspect"
)
