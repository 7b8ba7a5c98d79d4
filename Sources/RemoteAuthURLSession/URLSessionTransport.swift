public import Foundation
public import HTTPTypes
public import RemoteAuth
import Synchronization

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// An ``HTTPTransport`` over Foundation's `URLSession` (FoundationNetworking on Linux).
///
/// It puts one request on the wire and hands back what came back, leaving authentication and
/// redirects to ``AuthenticatingClient``:
/// - redirects are not followed (the 3xx response is returned);
/// - authentication challenges are not answered (the session's credential storage, cookie
///   storage and cache are off), so a 401 or 407 comes back to the client.
///
/// FoundationNetworking on Linux (seen with Swift 6.3.1) handles a `401` with
/// `WWW-Authenticate: Basic` itself: without a delegate, or when the delegate asks for default
/// handling, the task never completes; when the delegate declines, the task fails as
/// cancelled. This transport's delegate therefore keeps the challenge's `failureResponse`,
/// declines, and hands that response back, status and header fields intact but with an empty
/// body. Digest and other schemes reach the client untouched.
///
/// **Server trust.** FoundationNetworking on Linux (libcurl underneath) never delivers a
/// server-trust challenge to the delegate (`NSURLAuthenticationMethodServerTrust` does not
/// occur; there is no `SecTrust`), has no per-session CA bundle and no access to the
/// certificate chain, and does not ask the delegate for a client certificate. It evaluates the
/// system's roots and the host name, nothing else. So this transport accepts only
/// ``RemoteAuth/ServerTrust`` with ``RemoteAuth/DefaultTrustPolicy`` on the system roots and no
/// ``RemoteAuth/ClientIdentity``; anything else (a pin, a CA bundle, a pinned certificate,
/// accept-anything, mutual TLS) throws ``RemoteAuth/TrustError/Code/unsupportedByTransport``
/// from the initializer rather than connect without it. Use `RemoteAuthNIO`'s
/// `NIOHTTP1Transport` for those. (On Apple platforms the delegate can evaluate `SecTrust`;
/// that adapter is not written yet.)
///
/// Limits of `URLRequest`/`HTTPURLResponse`: header fields with the same name are joined with
/// `,` (and the order of fields is not kept), and `URLSession` may add `Accept-Encoding` and
/// decode the body.
public struct URLSessionTransport: HTTPTransport {
    /// A failure below HTTP (connection refused, timeout, TLS), with the system's reason.
    public struct TransportError: Error, Hashable, CustomStringConvertible {
        public let reason: String
        public var description: String { "URLSessionTransport: \(reason)" }
    }

    let session: URLSession
    let timeout: TimeInterval

    /// A transport with its own ephemeral session.
    ///
    /// - Throws: ``RemoteAuth/TrustError/Code/unsupportedByTransport`` for a trust policy other
    ///   than the system's default, or a client identity (see the type's discussion).
    public init(timeout: TimeInterval = 30, trust: ServerTrust, clientIdentity: ClientIdentity? = nil) throws {
        try Self.checkSupported(trust: trust, clientIdentity: clientIdentity)
        self.init(timeout: timeout)
    }

    /// Fails closed: a policy this transport cannot evaluate is an error, never skipped.
    static func checkSupported(trust: ServerTrust, clientIdentity: ClientIdentity?) throws {
        guard trust.isSystemDefault else {
            throw TrustError(
                .unsupportedByTransport,
                "URLSession on Linux (FoundationNetworking) cannot evaluate \(trust): it shows no certificate chain to the delegate; use NIOHTTP1Transport"
            )
        }
        guard clientIdentity == nil else {
            throw TrustError(
                .unsupportedByTransport,
                "URLSession on Linux (FoundationNetworking) cannot present a client certificate; use NIOHTTP1Transport"
            )
        }
    }

    /// A transport with its own ephemeral session, trusting the system's roots.
    public init(timeout: TimeInterval = 30) {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpShouldSetCookies = false
        configuration.httpCookieStorage = nil
        configuration.urlCredentialStorage = nil
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        session = URLSession(configuration: configuration, delegate: Delegate(), delegateQueue: nil)
        self.timeout = timeout
    }

    /// Runs `body` with a transport and invalidates its session afterwards.
    public static func withTransport<T: Sendable>(
        timeout: TimeInterval = 30,
        _ body: (URLSessionTransport) async throws -> T
    ) async throws -> T {
        let transport = URLSessionTransport(timeout: timeout)
        defer { transport.session.finishTasksAndInvalidate() }
        return try await body(transport)
    }

    public func send(_ request: HTTPRequest, body: [UInt8]?) async throws -> (HTTPResponse, [UInt8]) {
        guard let url = URL(string: request.absoluteURL) else {
            throw TransportError(reason: "'\(request.absoluteURL)' is not a URL Foundation accepts")
        }
        var urlRequest = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: timeout)
        urlRequest.httpMethod = request.method.rawValue
        urlRequest.httpShouldHandleCookies = false
        for field in request.headerFields {
            urlRequest.addValue(field.value, forHTTPHeaderField: field.name.rawName)
        }
        if let body { urlRequest.httpBody = Data(body) }
        let delegate = session.delegate as? Delegate
        let taskID = Mutex<Int?>(nil)
        let (data, response): (Data, URLResponse) = try await withCheckedThrowingContinuation { continuation in
            let task = session.dataTask(with: urlRequest) { data, response, error in
                if let error {
                    if let id = taskID.withLock({ $0 }),
                        let declined = delegate?.takeDeclinedResponse(taskIdentifier: id)
                    {
                        continuation.resume(returning: (Data(), declined))
                    } else {
                        continuation.resume(throwing: TransportError(reason: error.localizedDescription))
                    }
                } else if let response {
                    continuation.resume(returning: (data ?? Data(), response))
                } else {
                    continuation.resume(throwing: TransportError(reason: "no response"))
                }
            }
            taskID.withLock { $0 = task.taskIdentifier }
            task.resume()
        }
        guard let http = response as? HTTPURLResponse else {
            throw TransportError(reason: "the response is not HTTP")
        }
        var fields = HTTPFields()
        for (name, value) in http.allHeaderFields {
            guard let text = name as? String, let name = HTTPField.Name(text), let value = value as? String else {
                continue
            }
            fields.append(HTTPField(name: name, value: value))
        }
        return (HTTPResponse(status: .init(code: http.statusCode), headerFields: fields), Array(data))
    }

    /// Keeps redirects and challenges for ``AuthenticatingClient``.
    final class Delegate: NSObject, URLSessionTaskDelegate, @unchecked Sendable {
        // @unchecked because NSObject is not Sendable; the one stored value is behind a Mutex.
        /// The 401/407 responses of challenges declined, by task, until the task's completion
        /// handler takes them.
        private let declined = Mutex<[Int: HTTPURLResponse]>([:])

        func takeDeclinedResponse(taskIdentifier: Int) -> HTTPURLResponse? {
            declined.withLock { $0.removeValue(forKey: taskIdentifier) }
        }

        func urlSession(
            _ session: URLSession,
            task: URLSessionTask,
            willPerformHTTPRedirection response: HTTPURLResponse,
            newRequest request: URLRequest,
            completionHandler: @escaping (URLRequest?) -> Void
        ) {
            completionHandler(nil)
        }

        func urlSession(
            _ session: URLSession,
            task: URLSessionTask,
            didReceive challenge: URLAuthenticationChallenge,
            completionHandler: @escaping (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
        ) {
            if let response = challenge.failureResponse as? HTTPURLResponse {
                declined.withLock { $0[task.taskIdentifier] = response }
            }
            completionHandler(.cancelAuthenticationChallenge, nil)
        }
    }
}
