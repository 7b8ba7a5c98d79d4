import Dispatch
import FuzzSupport
import HTTPTypes
import RemoteAuth
@_spi(Fuzzing) import RemoteAuthSandbox

/// The sandbox's request handling, whole: a request read from the input goes through the
/// routes `remote-auth sandbox` serves (``SandboxResponder``, no socket), reaching every parser
/// of a request there: the query and form bodies, `Authorization` credentials of each scheme
/// (Basic, Digest, OAuth 1.0a, Bearer, DPoP), OAuth 1.0a verification, OAuth 2 client
/// authentication, PKCE, DPoP proofs, client assertions and ID token hints.
///
/// The input, so that a seed is readable: the method on the first line, the request target
/// (path and query) on the second, then `name: value` header lines up to an empty line, then
/// the body. Lines that are not a valid method or field name are dropped, as a server's HTTP
/// parser would refuse them before the router.
///
/// One sandbox serves every input (the demo identities, a fixed clock, a seeded random source),
/// its tables bounded at 1,000 entries, so that state stays small however long the run; its
/// OpenID signing keys are made before the first input.
///
/// Invariants: no answer is a `5xx` (a route that throws what is not an HTTP error, or a bug,
/// is answered `500`: bad input must get a typed `4xx`); every `401` carries a challenge
/// (`WWW-Authenticate`, RFC 9110 §15.5.2).
@main struct Target {
    nonisolated(unsafe) static var responder: SandboxResponder?

    static func main() {
        Fuzz.run(setUp: {
            var configuration = SandboxConfiguration.demo()
            configuration.now = { 1_700_000_000 }
            configuration.random = .seeded(20_261_126)
            configuration.tableCapacity = 1000
            let sandbox = SandboxResponder(configuration)
            // The OpenID provider makes its signing keys on first use, to keep them for the
            // whole run: made here, where leak detection is off (see `Fuzz.run`).
            let jwks = HTTPRequest(method: .get, scheme: "http", authority: "127.0.0.1:8080", path: "/oauth2/jwks")
            _ = wait { await sandbox.respond(jwks, body: []) }
            responder = sandbox
        }) { input in
            guard let responder, let (head, body) = request(input) else { return }
            let response = wait { await responder.respond(head, body: body) }
            Fuzz.require(response.status.code < 500, "a request was answered \(response.status.code)")
            if response.status == .unauthorized {
                Fuzz.require(response.headerFields[.wwwAuthenticate] != nil, "a 401 without WWW-Authenticate")
            }
        }
    }

    /// The request the input describes, or `nil` when its first line is not a method.
    static func request(_ input: FuzzInput) -> (HTTPRequest, [UInt8])? {
        let bytes = input.bytes
        var lines: [[UInt8]] = []
        var index = bytes.startIndex
        var body: [UInt8] = []
        while index < bytes.endIndex {
            let end = bytes[index...].firstIndex(of: UInt8(ascii: "\n")) ?? bytes.endIndex
            let line = Array(bytes[index..<end])
            index = end < bytes.endIndex ? end + 1 : end
            if lines.count >= 2 && line.isEmpty {
                body = Array(bytes[index...])
                break
            }
            lines.append(line)
        }
        guard lines.count >= 2, let method = HTTPRequest.Method(lines[0].text) else { return nil }
        var head = HTTPRequest(method: method, scheme: "http", authority: "127.0.0.1:8080", path: lines[1].text)
        for line in lines.dropFirst(2) {
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")),
                let name = HTTPField.Name(Array(line[..<colon]).text)
            else { continue }
            head.headerFields.append(HTTPField(name: name, value: Array(line[(colon + 1)...]).text))
        }
        return (head, body)
    }

    /// Runs `body` to its end from this synchronous callback (libFuzzer's thread, not one of the
    /// concurrency pool's, so waiting here cannot starve the task).
    static func wait<T: Sendable>(_ body: @escaping @Sendable () async -> T) -> T {
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var result: T?
        Task {
            result = await body()
            done.signal()
        }
        done.wait()
        return result!
    }
}
